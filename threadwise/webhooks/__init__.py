"""Webhooks that tell a receiver a job has ended (issue 29): the foundation, not yet wired.

- ``signing``: Standard Webhooks signatures (``webhook-id``, ``-timestamp``, ``-signature``)
  with ``whsec_`` secrets; during a rotation every current secret signs.
- ``targets``: the SSRF guard; a URL is resolved once, refused if any address is internal
  (unless the operator allows its host), and delivered to only the addresses checked.
- ``delivery``: one POST, its outcome recorded (``Attempt``), never raised.
- ``schedule``: when to try again, for a little over a day.
- ``secrets``: each organization's signing secrets (``threadwise webhooks secret``).

Still to do, with the jobs (``threadwise.jobs``): a job's ``webhook`` URL checked at
submission, its delivery (and retries on ``schedule``) run by the queue when the job ends,
each ``Attempt`` stored and shown on the job, and a setting for the allowed hosts.
"""
