"""Serving under load, whatever the transport.

How a transport uses it (REST in ``threadwise.api``; the WebSocket endpoint the same way), all
from the ``ServingContext`` the composition root gives it (``serving.context``):

- ``record = RequestRecord.start(transport, correlation_id, trace_id)`` for each request, and
  ``record.finish(context.metrics)`` once its answer (or error) has been sent: one log line,
  the request metrics.
- ``admitted = await context.admission.admit(operation, token, host, read_body, record)`` lets
  it in: the caller, the body within its limits, the organization's access and rate limits.
- ``await context.operations.run(operation, body, tenant=..., record=record,
  idempotency_key=..., charged=admitted.characters)`` answers it: shutdown admission,
  idempotency key, result cache, the superpower. It raises ``ServiceError`` (render it as the
  transport's error); cancelling the task that awaits it (a cancel frame, a closed socket)
  takes a queued job out of its queue and stops a running one at its next deadline check.
- ``context.lifecycle.on_shutdown(hook)``: ``hook(grace_seconds)`` runs when SIGTERM starts
  the drain (send the replies still due, then close with 1001).
"""
