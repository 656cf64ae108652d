"""Secrets and tokens never reach the logs: the filter, and a real server's logs captured
while clients authenticate every way they can."""

from __future__ import annotations

import base64
import io
import json
import logging
import sys
from pathlib import Path
from typing import Any

import httpx2
import pytest
import uvicorn
from websockets.sync.client import connect

from tests.api.stack import auth_stack, new_org
from tests.conftest import run_in_thread
from threadwise.api.app import create_app
from threadwise.logs import JsonFormatter, log_config, redact
from threadwise.webhooks.signing import new_secret

pytestmark = pytest.mark.usefixtures("isolated_logging")

JWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ0d2NfMSJ9.c2lnbmF0dXJlLXNpZ25hdHVyZQ"
SECRET = "tws_AAAAbbbbCCCCddddEEEEffff0123456789-_xyz"
CLIENT_ID = "twc_0123456789abcdef01234567"
API_KEY = "twk_0123456789abcdef_AAAAbbbbCCCCddddEEEEffff0123456789-_xyzABCD"


@pytest.mark.parametrize(
    "line",
    [
        f"POST /auth/oauth2/token?grant_type=client_credentials&client_id=x&client_secret={SECRET}",
        "GET /ws?OptaveTraceChatSessionId=s&Authorization=abc.def.ghi HTTP/1.1",
        f"Authorization: Bearer {JWT}",
        f"Authorization: Basic {base64.b64encode(b'twc_1:' + SECRET.encode()).decode()}",
        f"token {JWT} in a message",
        f"a secret {SECRET} pasted somewhere",
        "POST /x?access_token=opaque-token-value",
    ],
)
def test_redacted(line: str) -> None:
    cleaned = redact(line)
    assert SECRET not in cleaned
    assert JWT not in cleaned
    assert "abc.def.ghi" not in cleaned
    assert "opaque-token-value" not in cleaned
    assert "redacted" in cleaned


@pytest.mark.parametrize(
    "line",
    [
        f"POST /translate?q=hi&api_key={API_KEY}",
        "POST /translate?q=hi&api_key=anything-a-client-sends",
        f"Authorization: Bearer {API_KEY}",
        f"Authorization: DeepL-Auth-Key {API_KEY}",
        f"a key {API_KEY} pasted somewhere",
    ],
)
def test_api_keys_are_redacted(line: str) -> None:
    cleaned = redact(line)
    assert API_KEY not in cleaned and "anything-a-client-sends" not in cleaned
    assert "redacted" in cleaned


def test_webhook_secrets_are_redacted() -> None:
    secret = new_secret()
    cleaned = redact(f"signing with {secret} for org o1")
    assert secret not in cleaned and "[redacted webhook secret] for org o1" in cleaned


def test_client_ids_are_redacted() -> None:
    line = f"POST /auth/oauth2/token?client_id={CLIENT_ID}&grant_type=client_credentials"
    assert CLIENT_ID not in redact(line)
    assert CLIENT_ID not in redact(f"something about {CLIENT_ID}")


def json_line(msg: str, args: tuple[Any, ...] = (), **extra: Any) -> dict[str, Any]:
    """``msg % args`` (and ``extra``) as the JSON formatter writes it: one parsable line."""
    try:
        raise ValueError(f'failed with client_secret={SECRET} and "quotes"\nacross lines')
    except ValueError:
        exc_info = sys.exc_info()
    record = logging.getLogger("uvicorn.error").makeRecord(
        "uvicorn.error", logging.INFO, __file__, 1, msg, args, exc_info, extra=extra
    )
    line = JsonFormatter().format(record)
    assert "\n" not in line
    line.encode()  # UTF-8 can carry it
    for secret in (SECRET, JWT, CLIENT_ID, "abc.def.ghi"):
        assert secret not in line
    parsed: dict[str, Any] = json.loads(line)
    assert "redacted" in parsed["exception"]
    return parsed


def test_json_lines_stay_json() -> None:
    """Redaction after serializing cut lines short at the backslash of an escaped quote:
    every /ws?Authorization=… access line failed to parse."""
    websocket = json_line(
        '%s - "WebSocket %s" [accepted]', ("127.0.0.1:5000", f"/ws?Authorization={JWT}")
    )
    assert (
        websocket["message"]
        == '127.0.0.1:5000 - "WebSocket /ws?Authorization=[redacted]" [accepted]'
    )
    quoted = json_line(
        'a "quoted" %s,\nnewline, «non-ASCII» 日本語, a lone \ud800', (f"token={JWT}",)
    )
    assert "«non-ASCII» 日本語" in quoted["message"] and "\n" in quoted["message"]
    fields = {
        "event": "request",
        "correlationId": 'quote " and backslash \\ and\nnewline',
        "organization": "ørg-1",
        "path": f'/ws?Authorization={JWT}&client_id={CLIENT_ID}"',
        "nested": {"list": [SECRET, 1.5, None, True], "inf": float("inf")},
    }
    request = json_line("request", fields=fields)
    assert request["organization"] == "ørg-1"
    assert request["correlationId"] == fields["correlationId"]
    assert request["nested"]["list"][1:] == [1.5, None, True]
    assert request["nested"]["inf"] == "inf"


def test_ordinary_text_is_kept() -> None:
    text = "token refused for twc_0123 from 127.0.0.1: wrong_secret; use HTTP Basic authentication"
    assert redact(text) == text


@pytest.mark.parametrize("style", ["text", "json"])
def test_a_real_servers_logs_hold_no_secret_or_token(tmp_path: Path, style: str) -> None:
    stream = io.StringIO()
    config = log_config(style=style)
    for handler in config["handlers"].values():
        handler["stream"] = stream
    config["loggers"]["threadwise"] = {"level": "DEBUG"}

    with auth_stack(tmp_path, base_domain=None) as stack:
        org = new_org()
        client = stack.register(org, tenant="default")
        client_id, secret = client.client.client_id, client.client_secret
        server = uvicorn.Server(
            uvicorn.Config(
                create_app(stack.services.serving_context()),
                host="127.0.0.1",
                port=0,
                log_config=config,
            )
        )
        thread = run_in_thread(server)
        port = server.servers[0].sockets[0].getsockname()[1]
        seen: list[str] = [secret]
        try:
            with httpx2.Client(base_url=f"http://127.0.0.1:{port}") as http:
                seen += exercise(http, client_id, secret, org)
            # The official client's WebSocket: its token in the query string.
            with connect(f"ws://127.0.0.1:{port}/ws?Authorization={seen[1]}"):
                pass
        finally:
            server.should_exit = True
            thread.join(timeout=30)
        audit = repr(stack.services.auth.audit.recent(100))

    logs = stream.getvalue()
    if style == "text":
        assert "POST /auth/oauth2/token?" in logs  # the access log did run
        assert "client_secret=[redacted]" in logs
    else:  # every line a JSON object; the request lines stand for the access log
        lines = [json.loads(line) for line in logs.splitlines()]
        assert any(line.get("event") == "request" for line in lines)
    assert '"WebSocket /ws?Authorization=[redacted]" [accepted]' in logs.replace('\\"', '"')
    assert "token refused" in logs
    for value in seen:
        assert value not in logs
        assert value not in audit
    assert client_id not in logs  # half of the credentials: the audit log alone keeps it


def exercise(http: httpx2.Client, client_id: str, secret: str, org: str) -> list[str]:
    """Authenticate every way; returns the tokens handed out or sent."""
    query = f"grant_type=client_credentials&client_id={client_id}&client_secret={secret}"
    tokens = [http.post(f"/auth/oauth2/token?{query}").json()["access_token"]]
    form = {"grant_type": "client_credentials", "client_id": client_id, "client_secret": secret}
    tokens.append(http.post("/auth/oauth2/token", data=form).json()["access_token"])
    basic = http.post(
        "/auth/oauth2/token", data=form | {"client_secret": ""}, auth=(client_id, secret)
    )
    assert basic.status_code == 400  # the secret twice: refused, and still not logged
    wrong = f"grant_type=client_credentials&client_id={client_id}&client_secret={secret}x"
    assert http.post(f"/auth/oauth2/token?{wrong}").status_code == 401
    # A secret pasted as the client id.
    assert (
        http.post(
            f"/auth/oauth2/token?grant_type=client_credentials&client_id={secret}&client_secret={secret}"
        ).status_code
        == 401
    )
    body: dict[str, Any] = {
        "request": {
            "connections": {"threadId": "t"},
            "context": {"organizationId": org},
            "scope": {"conversations": [{"messages": [{"content": "hi"}]}]},
            "settings": {"overrideOutputLanguage": "tlh"},
        }
    }
    sent = []
    for token in tokens:
        good = {"Authorization": f"Bearer {token}"}
        assert http.post("/message/summarize", json=body, headers=good).status_code == 422
        tampered = token[:-4] + "AAAA"
        bad = {"Authorization": f"Bearer {tampered}"}
        assert http.post("/message/summarize", json=body, headers=bad).status_code == 401
        # The WebSocket's query-string form, sent to REST: refused, and not logged either.
        assert http.post(f"/message/summarize?Authorization={token}", json=body).status_code == 401
        sent.append(tampered)
    return tokens + sent
