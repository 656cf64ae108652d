"""The WebSocket endpoint, at ``/`` and ``/ws``: both superpowers, framed as the official client
frames them (``docs/protocol/client.md`` §2 to §6, ``docs/protocol/interface.md`` §9).

Thin, like the REST routes: the gate authenticates the upgrade (401 before the socket opens,
``endpoint``) and every request goes through the same admission as a REST call, then the same
superpowers (``session``). Every request runs as a task of its own, so many can be in flight on
one socket; one writer per socket sends the replies in the order they are ready. A bad frame is
answered with an error frame (``frames``) and the socket stays open. Replies wait to be sent in
a bounded outbox: a client that does not read them is not read either, and then closed (1008).
Shutdown lets the requests of every open socket finish, then closes them (``registry``).
"""
