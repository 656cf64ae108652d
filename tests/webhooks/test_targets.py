"""The SSRF guard: only public addresses, unless the operator allows a host; each refusal
says why."""

from __future__ import annotations

import pytest

from threadwise.webhooks.targets import UnresolvedTarget, UnsafeTarget, resolve_target

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize(
    ("url", "why"),
    [
        ("http://127.0.0.1/hook", "127.0.0.1, a loopback address"),
        ("http://localhost:8080/hook", "a loopback address"),
        ("http://10.0.0.1/", "10.0.0.1, a private address"),
        ("http://192.168.1.1/", "192.168.1.1, a private address"),
        ("http://169.254.169.254/latest/meta-data", "a cloud metadata address"),
        ("http://[fd00:ec2::254]/", "a cloud metadata address"),
        ("http://100.100.100.200/", "a cloud metadata address"),
        ("http://169.254.1.1/", "a link-local address"),
        ("http://[fe80::1]/", "a link-local address"),
        ("http://100.64.0.1/", "a carrier-grade NAT address"),
        ("http://[::1]/", "::1, a loopback address"),
        ("http://[fc00::1]/", "a private address"),
        ("http://[::ffff:127.0.0.1]/", "a loopback address written as IPv6"),
        ("http://[::ffff:10.0.0.1]/", "a private address written as IPv6"),
        ("http://[::127.0.0.1]/", "a loopback address written as IPv6"),
        ("http://0.0.0.0/", "the unspecified address"),
        ("http://224.0.0.1/", "a multicast address"),
        ("http://240.0.0.1/", "a reserved address"),
        ("http://2130706433/", "127.0.0.1, a loopback address"),  # 127.0.0.1 as a number
    ],
)
async def test_internal_addresses_are_refused(url: str, why: str) -> None:
    with pytest.raises(UnsafeTarget, match=why) as refused:
        await resolve_target(url)
    assert "only to public addresses, unless the operator allows its host" in str(refused.value)


@pytest.mark.parametrize(
    ("url", "why"),
    [
        ("ftp://example.com/hook", "must start with https:// or http://, got 'ftp'"),
        ("example.com/hook", "got 'none'"),
        ("http://user:pass@example.com/hook", "must not carry a user name or password"),
        ("http://user@example.com/hook", "must not carry a user name or password"),
        ("https:///hook", "needs a host"),
        ("http://example.com:99999/", "malformed"),
    ],
)
async def test_malformed_urls_are_refused(url: str, why: str) -> None:
    with pytest.raises(UnsafeTarget, match=why):
        await resolve_target(url)


async def test_an_unresolvable_host_may_be_retried() -> None:
    with pytest.raises(UnresolvedTarget, match="does not resolve"):
        await resolve_target("https://no-such-host.invalid/hook")


async def test_an_allowed_host_goes_through_with_its_addresses() -> None:
    target = await resolve_target("http://127.0.0.1:8080/hook?job=1#frag", ["127.0.0.1:8080"])
    assert target.addresses == ("127.0.0.1",)
    assert (target.scheme, target.host, target.port, target.path) == (
        "http",
        "127.0.0.1",
        8080,
        "/hook?job=1",
    )
    assert target.host_header == "127.0.0.1:8080"
    assert target.url_for("127.0.0.1") == "http://127.0.0.1:8080/hook?job=1"
    # Host alone allows every port; a port names only that one.
    assert await resolve_target("http://LOCALHOST:9/", ["localhost"])
    with pytest.raises(UnsafeTarget):
        await resolve_target("http://127.0.0.1:9/", ["127.0.0.1:8080"])


async def test_ipv6_targets_keep_their_brackets_in_urls() -> None:
    target = await resolve_target("https://[::1]/hook", ["[::1]"])
    assert target.host_header == "[::1]"
    assert target.url_for("::1") == "https://[::1]:443/hook"


async def test_public_addresses_pass() -> None:
    target = await resolve_target("https://8.8.8.8/hook")  # a literal: no DNS needed
    assert target.addresses == ("8.8.8.8",) and target.host_header == "8.8.8.8"
