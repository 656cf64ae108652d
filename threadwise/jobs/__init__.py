"""Asynchronous jobs: the queue that hands batches of jobs to a worker in each server.

``queue_for(database_url)`` gives a ``JobQueue``: ``defer(job_id)`` queues a job once,
``cancel(job_id)`` takes it out or stops its run, and ``start_worker(handler)`` runs
``handler(job_id)`` for each job, inside the server's event loop. Any replica may take any job;
one whose worker was killed (no heartbeat for ``stalled_seconds``) is taken up by another.

The queue is procrastinate's. Against pgqueuer, arq, saq, dramatiq and huey: it is
PostgreSQL-native on psycopg 3, the driver threadwise already ships (jobs claimed with
``SELECT … FOR UPDATE SKIP LOCKED``, woken by LISTEN/NOTIFY, so no Redis in the path), it is
asyncio through, and it has what the issue asks for built in: priorities, a queueing lock (a
job queued at most once), abort of a running job, worker heartbeats with stalled-job lookup.
With SQLite (the no-server default) procrastinate's in-process connector is the queue: it holds
nothing across a restart, so the job records are deferred again at start-up.

Beside the queue: the job records (``store``), the batch fast jobs join (``batches``), their
group commit (``group_commit``), webhooks (``notify``), the short-work-first turn of the
model's lane (``fast_first``) and the job as the API shows it (``resource``). Submitting and
running jobs is ``serving/jobs.py``'s.
"""

from threadwise.jobs.queue import Handler, JobQueue, queue_for

__all__ = ["Handler", "JobQueue", "queue_for"]
