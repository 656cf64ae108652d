"""A replica that takes one job and hangs in it, for a test to kill with SIGKILL.

``python -m tests.jobs.stalling_worker DATABASE_URL STALLED_SECONDS`` prints ``started JOB_ID``
once its handler has the job, then waits forever.
"""

from __future__ import annotations

import asyncio
import sys

from threadwise.jobs import queue_for


async def main(database_url: str, stalled_seconds: float) -> None:
    queue = queue_for(database_url, stalled_seconds=stalled_seconds)
    await queue.open()

    async def hang(job_id: str) -> None:
        print(f"started {job_id}", flush=True)
        await asyncio.Event().wait()

    queue.start_worker(hang)
    await asyncio.Event().wait()


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], float(sys.argv[2])))
