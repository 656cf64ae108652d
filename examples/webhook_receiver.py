"""A receiver of threadwise's job webhooks: checks each delivery's Standard Webhooks signature,
prints the job's id and status, answers 204 (400 for a delivery it cannot verify).

    THREADWISE_WEBHOOK_SECRET=whsec_… python examples/webhook_receiver.py --port 8080

The secret is the organization's (``threadwise webhooks secret show ORG``). Only the standard
library and ``standardwebhooks`` (``pip install standardwebhooks``).
"""

from __future__ import annotations

import argparse
import os
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from standardwebhooks import Webhook
from standardwebhooks.webhooks import WebhookVerificationError


class WebhookServer(ThreadingHTTPServer):
    def __init__(self, address: tuple[str, int], secret: str) -> None:
        super().__init__(address, WebhookHandler)
        self.webhook = Webhook(secret)
        # A delivery retried after a lost answer carries the same webhook-id: done once.
        self.seen: set[str] = set()


class WebhookHandler(BaseHTTPRequestHandler):
    server: WebhookServer

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        try:
            # Verified over the body's bytes as they came: re-encoded JSON would not match.
            event = self.server.webhook.verify(body, dict(self.headers.items()))
        except (WebhookVerificationError, ValueError) as exc:
            self.send_error(400, f"webhook not verified: {exc}")
            return
        message_id = self.headers["webhook-id"]
        if message_id not in self.server.seen:
            self.server.seen.add(message_id)
            job = event["data"]
            # A result over 256 KiB is left out: GET /jobs/{jobId} then reads it.
            omitted = " (result omitted)" if job.get("resultOmitted") else ""
            print(f"{event['type']}: job {job['jobId']} {job['status']}{omitted}", flush=True)
        self.send_response(204)
        self.end_headers()

    def log_message(self, format: str, *args: object) -> None:
        pass  # one line per job above is enough


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8080, help="0: any free port")
    args = parser.parse_args()
    secret = os.environ.get("THREADWISE_WEBHOOK_SECRET")
    if not secret:
        print("set THREADWISE_WEBHOOK_SECRET to the organization's whsec_… secret", file=sys.stderr)
        return 2
    server = WebhookServer((args.host, args.port), secret)
    print(f"listening on http://{args.host}:{server.server_port}", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
