"""The tenant and organization a store is asked about, checked the same way by every store."""

from __future__ import annotations

from sqlalchemy.orm import Session

from threadwise.db import tables
from threadwise.protocol import MAX_ID_LENGTH


def require_tenant(session: Session, tenant: str) -> None:
    """``ValueError`` saying how to create ``tenant`` if it does not exist."""
    if session.get(tables.Tenant, tenant) is None:
        raise ValueError(
            f"There is no tenant {tenant!r}; a tenant exists once it has a client "
            f"(`threadwise clients create --tenant {tenant} --org ORG`)."
        )


def organization_id(organization: str) -> str:
    """``organization`` stripped, or ``ValueError`` if it is empty or too long."""
    organization = organization.strip()
    if not organization:
        raise ValueError("An organization id must not be empty.")
    if len(organization) > MAX_ID_LENGTH:
        raise ValueError(
            f"An organization id has at most {MAX_ID_LENGTH} characters; "
            f"{organization[:40]!r}… has {len(organization)}."
        )
    return organization
