"""Serving under load, whatever the transport.

How a transport uses it (REST in ``threadwise.api``; the WebSocket endpoint the same way):

- ``record = RequestRecord.start(transport, correlation_id, trace_id)`` for each request, and
  ``record.finish(services.metrics)`` once its answer (or error) has been sent: one log line,
  the request metrics.
- ``await services.operations.run(operation, body, scope=..., record=record,
  idempotency_key=...)`` answers it: shutdown admission, idempotency key, result cache, the
  superpower. It raises ``ServiceError`` (render it as the transport's error); cancelling the
  task that awaits it (a cancel frame, a closed socket) takes a queued job out of its queue
  and stops a running one at its next deadline check.
- ``services.lifecycle.on_shutdown(hook)``: ``hook(grace_seconds)`` runs when SIGTERM starts
  the drain (send the replies still due, then close with 1001).
"""
