"""Standard Webhooks signatures: ``whsec_`` secrets and the three headers a delivery carries.

The HMAC itself is the ``standardwebhooks`` library's, so a receiver using any Standard
Webhooks library verifies what is signed here.
"""

from __future__ import annotations

import base64
import secrets
from collections.abc import Sequence
from datetime import UTC, datetime

from standardwebhooks import Webhook

SECRET_PREFIX = "whsec_"
# 24 random bytes, as Svix's secrets: above the 128 bits an HMAC-SHA256 key needs.
_SECRET_BYTES = 24


def new_secret() -> str:
    """A fresh signing secret, ``whsec_`` and the base64 of random bytes."""
    return SECRET_PREFIX + base64.b64encode(secrets.token_bytes(_SECRET_BYTES)).decode("ascii")


def new_message_id() -> str:
    """A delivery's ``webhook-id``: the same on every retry of one event, so that receivers
    can drop duplicates."""
    return f"msg_{secrets.token_hex(16)}"


def signed_headers(
    signing_secrets: Sequence[str], msg_id: str, timestamp: datetime, body: bytes
) -> dict[str, str]:
    """The ``webhook-id``, ``webhook-timestamp`` and ``webhook-signature`` headers for ``body``.

    With several secrets (during a rotation) the signature header carries one ``v1,<sig>``
    per secret, separated by spaces, as the specification allows: a receiver that knows
    either secret verifies.
    """
    if not signing_secrets:
        raise ValueError("Signing needs at least one secret; got none.")
    if timestamp.tzinfo is None:
        raise ValueError(f"Expected a timezone-aware timestamp, got naive {timestamp!r}.")
    # The library reads the timestamp's wall time as UTC, whatever its zone.
    moment = timestamp.astimezone(UTC)
    data = body.decode("utf-8")
    signatures = [
        Webhook(secret).sign(msg_id=msg_id, timestamp=moment, data=data)
        for secret in signing_secrets
    ]
    return {
        "webhook-id": msg_id,
        "webhook-timestamp": str(int(moment.timestamp())),
        "webhook-signature": " ".join(signatures),
    }
