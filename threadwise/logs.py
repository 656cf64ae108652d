"""Logging for the service and the CLI, with secrets and tokens blanked out of every record.

Our code never logs a secret or a token, but the access log prints request lines, and the
official client sends its secret in the token request's query string (and its client id,
half of its credentials, which is blanked out too).
"""

from __future__ import annotations

import copy
import json
import logging
import math
import re
import time
from typing import Any

from uvicorn.config import LOGGING_CONFIG

_REDACTIONS = [
    # Query-string and form parameters that carry credentials.
    (
        re.compile(
            r"(?i)\b(client_id|client_secret|access_token|authorization|token|api_key|auth_key)=[^&\s\"']+"
        ),
        r"\1=[redacted]",
    ),
    (re.compile(r"(?i)\b(bearer|basic)\s+[A-Za-z0-9._~+/-]{16,}=*"), r"\1 [redacted]"),
    # Anything shaped like a JWT, or like one of our client secrets.
    (re.compile(r"eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*"), "[redacted token]"),
    (re.compile(r"tws_[A-Za-z0-9_-]{16,}"), "[redacted secret]"),
    (re.compile(r"twk_[0-9a-f]{16}_[A-Za-z0-9_-]{16,}"), "[redacted API key]"),
    # A webhook signing secret (Standard Webhooks: whsec_ and base64).
    (re.compile(r"whsec_[A-Za-z0-9+/=_-]{16,}"), "[redacted webhook secret]"),
    # A client id is half of a client's credentials.
    (re.compile(r"twc_[0-9a-f]{24}"), "[redacted client id]"),
]


def redact(text: str) -> str:
    for pattern, replacement in _REDACTIONS:
        text = pattern.sub(replacement, text)
    return text


def _redacted(value: Any) -> Any:
    """``value`` with credentials blanked out; values that carry none keep their type."""
    if value is None or isinstance(value, int | float):
        return value
    text = str(value)  # a URL object, say, prints its query string
    cleaned = redact(text)
    return value if cleaned == text else cleaned


class RedactSecrets(logging.Filter):
    """Blank credentials out of a record's message, arguments and traceback."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.msg, str):
            record.msg = redact(record.msg)
        if isinstance(record.args, tuple):
            # Keep the tuple's shape: uvicorn's access formatter unpacks it.
            record.args = tuple(_redacted(arg) for arg in record.args)
        elif isinstance(record.args, dict):
            record.args = {key: _redacted(value) for key, value in record.args.items()}
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = redact(record.exc_text)
        return True


class RefusedUpgradeIsNoError(logging.Filter):
    """Drop uvicorn's error for a WebSocket upgrade answered with an HTTP response (a 401 for
    a missing token): it reports every such refusal as "returned without completing handshake",
    but the endpoint always either accepts or refuses on purpose."""

    def filter(self, record: logging.LogRecord) -> bool:
        return record.msg != "ASGI callable returned without completing handshake."


_SURROGATE = re.compile("[\ud800-\udfff]")


def _loggable(value: Any) -> Any:
    """``value`` ready for ``json.dumps``: strings redacted (before serializing, so that a
    replacement cannot break the line's quoting) and without lone surrogates (which no UTF-8
    stream can carry); numbers that JSON lacks, and other objects, as text."""
    if value is None or isinstance(value, bool | int):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    if isinstance(value, dict):
        return {_loggable(str(key)): _loggable(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_loggable(item) for item in value]
    return _SURROGATE.sub("\ufffd", redact(str(value)))


class JsonFormatter(logging.Formatter):
    """One JSON object per line: time, level, logger, message, and a record's ``fields``."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "time": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created))
            + f".{int(record.msecs):03d}Z",
            "level": record.levelname,
            "logger": record.name,
        }
        fields = getattr(record, "fields", None)
        if isinstance(fields, dict):
            line.update(fields)
        else:
            line["message"] = record.getMessage()
        if record.exc_info and not record.exc_text:
            record.exc_text = self.formatException(record.exc_info)
        if record.exc_text:
            line["exception"] = record.exc_text
        return json.dumps(_loggable(line), ensure_ascii=False)


def log_config(level: str = "INFO", style: str = "text") -> dict[str, Any]:
    """uvicorn's logging configuration, plus ours, every handler filtered; with ``json``,
    every line is a JSON object and the request lines replace uvicorn's access log."""
    config: dict[str, Any] = copy.deepcopy(LOGGING_CONFIG)
    config["filters"] = {
        "redact": {"()": RedactSecrets},
        "refused_upgrade": {"()": RefusedUpgradeIsNoError},
    }
    config["formatters"]["threadwise"] = {"format": "%(levelname)s %(name)s: %(message)s"}
    if style == "json":
        for name in ("threadwise", "default", "access"):
            config["formatters"][name] = {"()": JsonFormatter}
        config["loggers"]["uvicorn.access"]["level"] = "WARNING"
    config["handlers"]["threadwise"] = {
        "class": "logging.StreamHandler",
        "formatter": "threadwise",
        "stream": "ext://sys.stderr",
    }
    for handler in config["handlers"].values():
        handler["filters"] = ["redact", "refused_upgrade"]
    config["root"] = {"handlers": ["threadwise"], "level": level}
    # Alembic announces its dialect on every start; only its problems are news.
    config["loggers"]["alembic"] = {"level": "WARNING"}
    # The HTTP clients log every request they send at INFO: a webhook or a model call each.
    # Our own lines say what matters of them (a webhook's attempts are kept on its job).
    for client in ("httpx", "httpx2", "httpcore", "httpcore2"):
        config["loggers"][client] = {"level": "WARNING"}
    return config
