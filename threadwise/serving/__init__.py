"""Serving under load, whatever the transport: shutdown, idempotency, caches, request records."""
