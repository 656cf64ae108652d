"""Each organization's policies: the summary aspects and the personal-data redaction its
requests get when they do not ask for their own, the summary aspects it defines itself, and
its monthly character quota.

An organization is a tenant's ``organizationId``. What a replica reads is cached for
``cache_seconds``: a change takes effect at once on the replica that made it and within that
time on the others.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import Enum
from typing import Final

from sqlalchemy import Select, func, select
from sqlalchemy.orm import Session

from threadwise.auth.tenancy import tenant_name
from threadwise.db import tables
from threadwise.db.database import Database
from threadwise.organizations.aspects import CustomAspect, checked_aspect
from threadwise.organizations.scope import organization_id, require_tenant
from threadwise.protocol import BUILT_IN_ASPECTS, RedactMode
from threadwise.ttl_cache import TtlCache

MAX_CUSTOM_ASPECTS = 10


class _Keep(Enum):
    KEEP = "keep"


_KEEP: Final = _Keep.KEEP  # set_defaults: a field not given stays as it is


@dataclass(frozen=True)
class OrganizationPolicy:
    summary_aspects: tuple[str, ...] = ()  # empty: no default
    redact_personal_data: RedactMode | None = None
    custom_aspects: tuple[CustomAspect, ...] = ()  # ordered by name
    # The message characters its requests may use per UTC calendar month; None: no quota.
    monthly_characters: int | None = None
    # Where its jobs' webhooks go when a job names no URL; None: nowhere.
    webhook_url: str | None = None
    # Its requests may use translation directions labelled experimental (GET /languages).
    experimental_languages: bool = False


class OrganizationPolicies:
    """Per-organization defaults, read from the database and cached per replica for
    ``cache_seconds``; the synchronous methods manage them (``threadwise organizations``)."""

    def __init__(
        self,
        database: Database,
        cache_seconds: float = 30.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.database = database
        self._cache: TtlCache[tuple[str, str], OrganizationPolicy] = TtlCache(
            cache_seconds, clock=clock
        )

    async def get(self, tenant: str, organization: str) -> OrganizationPolicy:
        """The organization's policy, from the cache when fresh enough."""
        return await self._cache.read_through(
            (tenant, organization), lambda: self._read(tenant, organization)
        )

    # --- management ----------------------------------------------------------------------

    def policy(self, tenant: str, organization: str) -> OrganizationPolicy:
        tenant, organization = tenant_name(tenant), organization_id(organization)
        with self.database.session() as session:
            require_tenant(session, tenant)
            return _load(session, tenant, organization)

    def set_defaults(
        self,
        tenant: str,
        organization: str,
        *,
        summary_aspects: Sequence[str] | _Keep | None = _KEEP,
        redact_personal_data: str | _Keep | None = _KEEP,
        monthly_characters: int | _Keep | None = _KEEP,
        webhook_url: str | _Keep | None = _KEEP,
        experimental_languages: bool | _Keep = _KEEP,
    ) -> OrganizationPolicy:
        """Set the defaults and the quota given; an empty list, ``None``, ``"off"``, a
        quota of 0 or an empty URL clears one."""
        tenant, organization = tenant_name(tenant), organization_id(organization)
        if isinstance(summary_aspects, str):
            raise ValueError(
                f"Give the default summary aspects as a list, got {summary_aspects!r}."
            )
        with self.database.session() as session, session.begin():
            require_tenant(session, tenant)
            row = session.get(tables.OrganizationSettings, (tenant, organization))
            aspects = _stored_aspects(row.summary_aspects) if row else ()
            mode = _redact_mode(row.redact_personal_data) if row else None
            quota = row.monthly_characters if row else None
            hook = row.webhook_url if row else None
            experimental = row.experimental_languages if row else False
            if not isinstance(summary_aspects, _Keep):
                known = session.scalars(_aspect_names(tenant, organization)).all()
                aspects = _default_aspects(summary_aspects or (), known, organization)
            if not isinstance(redact_personal_data, _Keep):
                mode = _redact_mode(redact_personal_data)
            if not isinstance(monthly_characters, _Keep):
                quota = _quota(monthly_characters)
            if not isinstance(webhook_url, _Keep):
                hook = _webhook_url(webhook_url)
            if not isinstance(experimental_languages, _Keep):
                experimental = experimental_languages
            if not aspects and mode is None and quota is None and hook is None and not experimental:
                if row is not None:  # nothing left to store
                    session.delete(row)
            else:
                if row is None:
                    row = tables.OrganizationSettings(tenant=tenant, organization_id=organization)
                    session.add(row)
                row.summary_aspects = json.dumps(list(aspects)) if aspects else None
                row.redact_personal_data = mode
                row.monthly_characters = quota
                row.webhook_url = hook
                row.experimental_languages = experimental
                row.updated_at = datetime.now(UTC)
            session.flush()
            policy = _load(session, tenant, organization)
        self._forget(tenant, organization)
        return policy

    def put_aspect(self, tenant: str, organization: str, aspect: CustomAspect) -> None:
        """Create the custom aspect, or replace the one of that name."""
        tenant, organization = tenant_name(tenant), organization_id(organization)
        aspect = checked_aspect(aspect)
        with self.database.session() as session, session.begin():
            require_tenant(session, tenant)
            names = session.scalars(_aspect_names(tenant, organization)).all()
            row = session.get(tables.CustomAspect, (tenant, organization, aspect.name))
            if row is None:
                same = [name for name in names if name.lower() == aspect.name.lower()]
                if same:
                    raise ValueError(
                        f"Organization {organization!r} has the aspect {same[0]!r}, which "
                        f"differs from {aspect.name!r} only in case: put it under that name, "
                        "or remove it first."
                    )
                if len(names) >= MAX_CUSTOM_ASPECTS:
                    raise ValueError(
                        f"An organization has at most {MAX_CUSTOM_ASPECTS} custom aspects and "
                        f"{organization!r} has {len(names)}: remove one first."
                    )
                row = tables.CustomAspect(
                    tenant=tenant,
                    organization_id=organization,
                    name=aspect.name,
                    created_at=datetime.now(UTC),
                )
                session.add(row)
            row.instruction = aspect.instruction
            row.example_conversation = aspect.example_conversation
            row.example_answer = aspect.example_answer
        self._forget(tenant, organization)

    def remove_aspect(self, tenant: str, organization: str, name: str) -> bool:
        """Remove the custom aspect (its name in any case); False if there is none."""
        tenant, organization = tenant_name(tenant), organization_id(organization)
        with self.database.session() as session, session.begin():
            require_tenant(session, tenant)
            row = session.scalars(
                select(tables.CustomAspect).where(
                    tables.CustomAspect.tenant == tenant,
                    tables.CustomAspect.organization_id == organization,
                    func.lower(tables.CustomAspect.name) == name.strip().lower(),
                )
            ).one_or_none()
            if row is None:
                return False
            settings = session.get(tables.OrganizationSettings, (tenant, organization))
            if settings is not None and row.name in _stored_aspects(settings.summary_aspects):
                raise ValueError(
                    f"{row.name!r} is one of the default summary aspects of organization "
                    f"{organization!r}: set the defaults without it first."
                )
            session.delete(row)
        self._forget(tenant, organization)
        return True

    def organizations(self, tenant: str | None = None) -> list[tuple[str, str]]:
        """The (tenant, organization) pairs that have defaults, a quota or custom aspects,
        sorted."""
        settings = select(
            tables.OrganizationSettings.tenant, tables.OrganizationSettings.organization_id
        )
        aspects = select(tables.CustomAspect.tenant, tables.CustomAspect.organization_id)
        with self.database.session() as session:
            if tenant is not None:
                tenant = tenant_name(tenant)
                require_tenant(session, tenant)
                settings = settings.where(tables.OrganizationSettings.tenant == tenant)
                aspects = aspects.where(tables.CustomAspect.tenant == tenant)
            pairs = {(row[0], row[1]) for row in session.execute(settings.union(aspects))}
        return sorted(pairs)

    def _read(self, tenant: str, organization: str) -> OrganizationPolicy:
        with self.database.session() as session:
            return _load(session, tenant, organization)

    def _forget(self, tenant: str, organization: str) -> None:
        self._cache.forget((tenant, organization))


def _load(session: Session, tenant: str, organization: str) -> OrganizationPolicy:
    row = session.get(tables.OrganizationSettings, (tenant, organization))
    aspects = session.scalars(
        select(tables.CustomAspect).where(
            tables.CustomAspect.tenant == tenant,
            tables.CustomAspect.organization_id == organization,
        )
    )
    custom = [
        CustomAspect(a.name, a.instruction, a.example_conversation, a.example_answer)
        for a in aspects
    ]
    # Sorted here, not by the database: SQLite and PostgreSQL collate differently.
    custom.sort(key=lambda aspect: aspect.name.lower())
    if row is None:
        return OrganizationPolicy(custom_aspects=tuple(custom))
    return OrganizationPolicy(
        summary_aspects=_stored_aspects(row.summary_aspects),
        redact_personal_data=_redact_mode(row.redact_personal_data),
        custom_aspects=tuple(custom),
        monthly_characters=row.monthly_characters,
        webhook_url=row.webhook_url,
        experimental_languages=row.experimental_languages,
    )


def _webhook_url(url: str | None) -> str | None:
    """``url`` if it is an http(s) URL; empty or None clears the default."""
    url = (url or "").strip()
    if not url:
        return None
    if not url.lower().startswith(("https://", "http://")) or len(url) > 2048:
        raise ValueError(
            f"A webhook URL starts with https:// (or http://) and has at most 2048 "
            f"characters; got {url[:80]!r}."
        )
    return url


def _aspect_names(tenant: str, organization: str) -> Select[str]:
    return select(tables.CustomAspect.name).where(
        tables.CustomAspect.tenant == tenant,
        tables.CustomAspect.organization_id == organization,
    )


def _default_aspects(
    names: Sequence[str], custom: Sequence[str], organization: str
) -> tuple[str, ...]:
    """``names`` as known aspects, spelled as defined, without repeats."""
    known = {name.lower(): name for name in (*BUILT_IN_ASPECTS, *custom)}
    aspects: list[str] = []
    for name in names:
        aspect = known.get(name.strip().lower())
        if aspect is None:
            theirs = ", ".join(custom) if custom else "none yet"
            raise ValueError(
                f"{name!r} is not a summary aspect of organization {organization!r}: give "
                f"built-in ones ({', '.join(BUILT_IN_ASPECTS)}) or its custom ones ({theirs})."
            )
        if aspect not in aspects:
            aspects.append(aspect)
    return tuple(aspects)


def _stored_aspects(stored: str | None) -> tuple[str, ...]:
    return tuple(json.loads(stored)) if stored else ()


def _redact_mode(value: str | None) -> RedactMode | None:
    mode = (value or "off").strip().lower()
    if mode == "restore":
        return "restore"
    if mode == "mask":
        return "mask"
    if mode == "off":
        return None
    raise ValueError(f"A redaction policy is 'restore', 'mask' or 'off', got {value!r}.")


def _quota(value: int | None) -> int | None:
    """A monthly character quota; 0 or ``None``: none."""
    if value is None or value == 0:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(
            f"A monthly character quota is a whole number of characters (0: no quota), got "
            f"{value!r}."
        )
    return value
