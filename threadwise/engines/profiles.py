"""Engine profiles: a request's ``attributes.variant`` picks one of several configured models.

An organization can A/B two engines (``A`` the embedded model, ``B`` a 7B on a model server):
each profile is a name and what requests of that variant run on. Names are matched without
regard to case (the official client upper-cases variants). A request without a variant gets
the default; one whose variant no profile has gets the default too, and its results' ``engine``
says so. With no profiles configured variants are not looked at, as before there were any.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Generic, TypeVar

T = TypeVar("T")
U = TypeVar("U")


@dataclass(frozen=True)
class Choice(Generic[T]):
    value: T
    # The profile's name; None for the default.
    profile: str | None = None
    # Appended to the model's results' ``engine``: "" or " (variant X unknown: default)".
    note: str = ""


class Profiles(Generic[T]):
    def __init__(self, default: T, named: Mapping[str, T] | None = None) -> None:
        self.default = default
        self._named = {name.casefold(): (name, value) for name, value in (named or {}).items()}

    def choose(self, variant: str | None) -> Choice[T]:
        if not self._named or variant is None or not variant.strip():
            return Choice(self.default)
        found = self._named.get(variant.strip().casefold())
        if found is None:
            shown = variant.strip()[:64]
            return Choice(self.default, note=f" (variant {shown} unknown: default)")
        name, value = found
        return Choice(value, name)

    def values(self) -> list[T]:
        """The default and every profile's value, each once (profiles may share one)."""
        unique: dict[int, T] = {id(self.default): self.default}
        for _, value in self._named.values():
            unique.setdefault(id(value), value)
        return list(unique.values())

    def items(self) -> list[tuple[str | None, T]]:
        """(profile name, value) of the default (None) and each profile."""
        return [(None, self.default), *self._named.values()]

    @property
    def configured(self) -> bool:
        """Are there profiles besides the default?"""
        return bool(self._named)

    def map(self, build: Callable[[T], U]) -> Profiles[U]:
        """The same names over ``build`` of each value; a value shared by several profiles is
        built once, and stays shared."""
        built: dict[int, U] = {}

        def one(value: T) -> U:
            if id(value) not in built:
                built[id(value)] = build(value)
            return built[id(value)]

        return Profiles(one(self.default), {name: one(v) for name, v in self._named.values()})
