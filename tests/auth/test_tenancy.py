from __future__ import annotations

import pytest

from threadwise.auth.tenancy import tenant_name, tenant_of


@pytest.mark.parametrize(
    ("host", "tenant"),
    [
        ("acme.example.com", "acme"),
        ("ws-acme.example.com", "acme"),
        ("ACME.Example.COM:8443", "acme"),
        ("acme.example.com.", "acme"),
        ("eu.acme.example.com", "eu"),
        ("example.com", None),
        ("acme.example.org", None),
        ("acmeexample.com", None),
        ("127.0.0.1:8000", None),
        ("[::1]:8000", None),
        ("", None),
        (None, None),
    ],
)
def test_tenant_of_host(host: str | None, tenant: str | None) -> None:
    assert tenant_of(host, "example.com") == tenant


def test_one_tenant_without_a_base_domain() -> None:
    assert tenant_of("anything.example.com", None) == "default"
    assert tenant_of(None, None) == "default"


@pytest.mark.parametrize("name", ["acme", "Acme", "a", "acme-eu-1", "x" * 63])
def test_valid_tenant_names(name: str) -> None:
    assert tenant_name(name) == name.lower()


@pytest.mark.parametrize("name", ["", "-acme", "acme-", "ac.me", "ac_me", "x" * 64, "ws-acme"])
def test_invalid_tenant_names(name: str) -> None:
    with pytest.raises(ValueError, match="tenant name"):
        tenant_name(name)
