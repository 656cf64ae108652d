"""Signatures a Standard Webhooks receiver verifies, with one secret or, during a rotation, two."""

from __future__ import annotations

import base64
from datetime import UTC, datetime, timedelta, timezone

import pytest
from standardwebhooks import Webhook, WebhookVerificationError

from threadwise.webhooks.signing import new_message_id, new_secret, signed_headers

BODY = b'{"type":"job.completed","data":{"id":"job_1","caf\xc3\xa9":true}}'


def test_a_new_secret_is_whsec_and_random_bytes() -> None:
    secret = new_secret()
    assert secret.startswith("whsec_")
    assert len(base64.b64decode(secret.removeprefix("whsec_"))) == 24
    assert new_secret() != secret
    assert new_message_id() != new_message_id()


def test_the_library_verifies_what_is_signed() -> None:
    secret = new_secret()
    headers = signed_headers([secret], "msg_1", datetime.now(UTC), BODY)
    assert headers["webhook-id"] == "msg_1"
    assert Webhook(secret).verify(BODY, headers)["data"]["id"] == "job_1"


def test_during_a_rotation_either_secret_verifies() -> None:
    new, old = new_secret(), new_secret()
    headers = signed_headers([new, old], "msg_2", datetime.now(UTC), BODY)
    assert len(headers["webhook-signature"].split(" ")) == 2
    for secret in (new, old):
        Webhook(secret).verify(BODY, headers)
    with pytest.raises(WebhookVerificationError):
        Webhook(new_secret()).verify(BODY, headers)


def test_a_changed_body_or_an_old_timestamp_does_not_verify() -> None:
    secret = new_secret()
    headers = signed_headers([secret], "msg_3", datetime.now(UTC), BODY)
    with pytest.raises(WebhookVerificationError):
        Webhook(secret).verify(BODY.replace(b"true", b"false"), headers)
    stale = signed_headers([secret], "msg_3", datetime.now(UTC) - timedelta(hours=1), BODY)
    with pytest.raises(WebhookVerificationError, match="too old"):
        Webhook(secret).verify(BODY, stale)


def test_the_timestamp_is_the_moment_whatever_its_zone() -> None:
    moment = datetime(2026, 11, 27, 12, 0, tzinfo=UTC)
    naive = moment.replace(tzinfo=None)
    secret = new_secret()
    in_utc = signed_headers([secret], "m", moment, BODY)
    plus_two = signed_headers([secret], "m", moment.astimezone(_zone(2)), BODY)
    assert in_utc == plus_two
    assert in_utc["webhook-timestamp"] == str(int(moment.timestamp()))
    with pytest.raises(ValueError, match="timezone-aware"):
        signed_headers([secret], "m", naive, BODY)
    with pytest.raises(ValueError, match="at least one secret"):
        signed_headers([], "m", moment, BODY)


def _zone(hours: int) -> timezone:
    return timezone(timedelta(hours=hours))
