"""The aspects a summarize request asks for, checked against the built-in and custom ones."""

from __future__ import annotations

import pytest

from threadwise.errors import ServiceError
from threadwise.organizations.aspects import CustomAspect
from threadwise.protocol import ErrorCode
from threadwise.superpowers.summarize.requested_aspects import canonical_aspects

TONE = CustomAspect("customerTone", "How the customer sounds.", "Ana: Hi", "Calm.")


def test_aspects_are_spelled_as_defined_once_each_in_the_order_asked() -> None:
    asked = [" NEXTSTEPS", "customertone", "issue", "nextSteps"]
    assert canonical_aspects(asked, [TONE], "f") == ("nextSteps", "customerTone", "issue")


def test_nothing_asked_is_nothing_chosen() -> None:
    assert canonical_aspects([], [TONE], "f") == ()


def test_an_unknown_aspect_is_refused_naming_the_field_and_the_known_ones() -> None:
    with pytest.raises(ServiceError) as raised:
        canonical_aspects(["mood"], [TONE], "request.settings.summaryAspects")
    error = raised.value
    assert error.code is ErrorCode.PAYLOAD_SCHEMA_MISMATCH
    assert "request.settings.summaryAspects" in error.message and "'mood'" in error.message
    assert "nextSteps" in error.message and "customerTone" in error.message


def test_another_organizations_aspect_is_unknown() -> None:
    with pytest.raises(ServiceError, match="none defined"):
        canonical_aspects(["customerTone"], [], "f")
