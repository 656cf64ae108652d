"""Transport: REST routes (and later the WebSocket endpoint); no business logic here."""
