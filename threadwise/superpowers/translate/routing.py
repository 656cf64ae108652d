"""Which engine translates each direction, in each tier, from the measured table, and how
well (its label).

``translation_routes.json`` (``text.measured_languages``) is written by ``bench/translate.py``
(chrF and BLEU on NTREX, seconds per sentence on this machine) and committed with its figures.
The *quality* engine is the best measured; the *fast* one the best among those that answer in
milliseconds, and none (``NO_ENGINE``: the text is returned as written) where no such engine
has the direction: the fast tier never waits for the model. Settings can override either, per
direction. A direction between two languages other than English that was not measured is
labelled as the worse of its two legs through English, and marked as estimated.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from threadwise.text.measured_languages import (
    SERVED_TO_ALL,
    THRESHOLDS,
    Label,
    label_of,
    load_table,
    lower,
)

Tier = Literal["quality", "fast"]
TIERS: tuple[Tier, ...] = ("quality", "fast")

# Engines as the table names them: a machine translation engine, the language model, or the
# model post-editing an engine's draft ("llm+apertium").
FAST_ENGINES = ("bergamot", "apertium")
LLM = "llm"
NO_ENGINE = "none"
ENGLISH = "en"


def uses_llm(engine: str) -> bool:
    return engine == LLM or engine.startswith(f"{LLM}+")


def draft_engine(engine: str) -> str | None:
    """The engine whose draft the model post-edits (``llm+apertium`` → ``apertium``)."""
    return engine.partition("+")[2] or None if engine.startswith(f"{LLM}+") else None


def direction_key(source: str, target: str) -> str:
    return f"{source}-{target}"


@dataclass(frozen=True)
class Figures:
    """An engine's measured quality and speed on one direction."""

    chrf: float | None = None
    bleu: float | None = None
    seconds: float | None = None  # median per sentence

    def to_json(self) -> dict[str, float | None]:
        return {"chrF": self.chrf, "BLEU": self.bleu, "secondsPerSentence": self.seconds}


@dataclass(frozen=True)
class Route:
    source: str
    target: str
    quality: str
    fast: str
    figures: Mapping[str, Figures]
    # The quality engine for a translation in a register (formal or informal): the model,
    # which can be told, where the quality engine cannot.
    registered: str = ""
    # Each measured tier's label (None: below every threshold, or no engine); a tier left out
    # was not measured, and is not judged.
    labels: Mapping[Tier, Label | None] = field(default_factory=dict)
    # The labels are the worse of the two legs through English, not measured.
    estimated: bool = False

    def served(self, tier: Tier, experimental: bool = False) -> bool:
        """Whether the tier's translation is served: labelled good or usable, or
        experimental where ``experimental`` (an organization's policy) allows it."""
        if tier not in self.labels:
            return True
        label = self.labels[tier]
        return label in SERVED_TO_ALL or (experimental and label == "experimental")

    def engine(self, tier: Tier, registered: bool = False) -> str:
        """The tier's engine; ``registered``: the translation must be in a register, which
        only the model can write (the fast tier answers without it, and says so)."""
        if tier == "fast":
            return self.fast
        return self.registered or self.quality if registered else self.quality


class RouteError(ValueError):
    """The table or an override names an engine that cannot serve a direction."""


class TranslationRouter:
    def __init__(
        self,
        available: Mapping[str, Collection[tuple[str, str]]],
        table: Mapping[str, Any] | None = None,
        overrides: Mapping[str, Mapping[Tier, str]] | None = None,
    ) -> None:
        """``available``: the directions each engine serves here (``llm+X`` derived)."""
        self._available = dict(available)
        for engine in FAST_ENGINES:
            if engine in available and LLM in available:
                self._available[f"{LLM}+{engine}"] = available[engine]
        table = load_table() if table is None else table
        directions = table.get("directions", {})
        self.measured_on: dict[str, Any] = table.get("measured", {})
        self._thresholds = table.get("labels", {}).get("thresholds", THRESHOLDS)
        self._routes: dict[tuple[str, str], Route] = {}
        for source, target in sorted(set().union(*self._available.values())):
            entry = directions.get(direction_key(source, target), {})
            override = (overrides or {}).get(direction_key(source, target), {})
            self._routes[(source, target)] = self._route(source, target, entry, override)
        for (source, target), route in list(self._routes.items()):
            if ENGLISH not in (source, target) and direction_key(source, target) not in directions:
                self._routes[(source, target)] = self._estimated(route)
        unknown = set(overrides or {}) - {direction_key(*d) for d in self._routes}
        if unknown:
            raise RouteError(
                f"translation_routes overrides name unknown directions {sorted(unknown)}; use "
                f"'source-target' keys such as 'en-es' from: {', '.join(self.keys())}."
            )

    def _serves(self, engine: str, source: str, target: str) -> bool:
        return (source, target) in self._available.get(engine, ())

    def _route(
        self, source: str, target: str, entry: Mapping[str, Any], override: Mapping[Tier, str]
    ) -> Route:
        figures = {
            name: Figures(f.get("chrF"), f.get("BLEU"), f.get("secondsPerSentence"))
            for name, f in entry.get("candidates", {}).items()
        }
        chosen: dict[Tier, str] = {}
        for tier in TIERS:
            wanted = override.get(tier)
            if wanted is not None:
                self._check_override(tier, wanted, source, target)
                chosen[tier] = wanted
            elif self._serves(entry.get(tier, ""), source, target) and (
                tier == "quality" or entry[tier] in FAST_ENGINES
            ):
                chosen[tier] = entry[tier]
            else:
                chosen[tier] = self._best(source, target, figures, fast=tier == "fast")
        quality = chosen["quality"]
        registered = quality if uses_llm(quality) or not self._serves(LLM, source, target) else LLM
        labels = self._labels(figures, chosen, entry)
        return Route(source, target, quality, chosen["fast"], figures, registered, labels)

    def _labels(
        self, figures: Mapping[str, Figures], chosen: Mapping[Tier, str], entry: Mapping[str, Any]
    ) -> dict[Tier, Label | None]:
        """Each tier's label: the table's for its quality engine (which may be capped,
        ``bench.routing_table``), else its engine's figure's; a tier with no engine has
        none; a tier whose engine was not measured is left out (not judged)."""
        labels: dict[Tier, Label | None] = {}
        for tier, engine in chosen.items():
            chrf = figures.get(engine, Figures()).chrf
            if engine == NO_ENGINE:
                labels[tier] = None
            elif "label" in entry and (engine == entry.get("quality") or chrf is None):
                labels[tier] = entry["label"]
            elif chrf is not None:
                labels[tier] = label_of(chrf, self._thresholds)
        return labels

    def _estimated(self, route: Route) -> Route:
        """A direction between two languages other than English, not measured: labelled
        as the worse of its legs through English."""
        legs = self.route(route.source, ENGLISH), self.route(ENGLISH, route.target)
        labels = {
            tier: lower(*(leg.labels.get(tier) if leg else None for leg in legs))
            for tier in TIERS
            if all(leg is not None and tier in leg.labels for leg in legs)
        }
        return Route(
            route.source,
            route.target,
            route.quality,
            route.fast,
            route.figures,
            route.registered,
            labels,
            estimated=True,
        )

    def _check_override(self, tier: Tier, engine: str, source: str, target: str) -> None:
        if tier == "fast" and engine == NO_ENGINE:
            return
        if tier == "fast" and engine not in FAST_ENGINES:
            raise RouteError(
                f"translation_routes sets fast for {source}-{target} to {engine!r}, but the fast "
                f"tier answers in milliseconds: choose one of {list(FAST_ENGINES)}, or "
                f"{NO_ENGINE!r} to return messages as written."
            )
        if not self._serves(engine, source, target):
            raise RouteError(
                f"translation_routes sets {tier} for {source}-{target} to {engine!r}, "
                f"which cannot translate it here; choose one of "
                f"{sorted(e for e in self._available if self._serves(e, source, target))}."
            )

    def _best(self, source: str, target: str, figures: Mapping[str, Figures], fast: bool) -> str:
        """The best measured engine that serves the direction; unmeasured: a sensible order."""
        names = [e for e in self._available if self._serves(e, source, target)]
        if fast:
            names = [e for e in names if e in FAST_ENGINES]
            if not names:
                return NO_ENGINE
        measured = [e for e in names if figures.get(e, Figures()).chrf is not None]
        if measured:
            return max(measured, key=lambda e: figures[e].chrf or 0.0)
        order = [*FAST_ENGINES] if fast else [LLM, *FAST_ENGINES]
        return next(e for e in order if e in names)

    def keys(self) -> list[str]:
        return [direction_key(*d) for d in self._routes]

    def route(self, source: str, target: str) -> Route | None:
        return self._routes.get((source, target))

    def routes(self) -> list[Route]:
        return list(self._routes.values())
