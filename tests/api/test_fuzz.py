"""Hostile input, generated (hypothesis): any JSON shape, nesting, number and string (every
Unicode category, lone surrogates, Apertium's reserved characters), as REST bodies and as
WebSocket frames; any parameter of /glossaries, /usage and /languages, and any file name under
/playground and /docs. Every REST answer is a documented envelope with a 4xx or a result,
never a 5xx; every frame is answered so, and its socket stays open.

Kept fast: valid requests are fast-tier translations of English text (Apertium and Bergamot,
milliseconds); summarize only gets bodies that cannot be valid, so the model never runs; the
routes that use no engine are fuzzed on an app whose engines are never loaded.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import timedelta
from typing import Any
from urllib.parse import quote

import jsonschema
import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from starlette.testclient import WebSocketTestSession

from tests.conftest import minimal_body, signed_in, wait_until_ready
from threadwise.protocol import ErrorCode, ErrorEnvelope
from threadwise.services import Services

# Apertium's stream format gives these a meaning of their own.
APERTIUM_RESERVED = "^$[]{}/<>@\\*"
ENGLISH = "Good morning, my parcel has not arrived yet "
ERROR_SCHEMA = ErrorEnvelope.model_json_schema(mode="serialization")
# The statuses /message/… documents (see test_openapi.py) that bad input may get.
CLIENT_ERRORS = frozenset({400, 401, 403, 413, 415, 422, 429})
# A frame may also name an unknown superpower or frame action (404 UNKNOWN_ACTION).
FRAME_ERRORS = CLIENT_ERRORS | {404}
FUZZ = settings(
    max_examples=150,
    deadline=timedelta(seconds=15),
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

# --- what is generated ---------------------------------------------------------------------

characters = st.one_of(
    st.characters(exclude_categories=()),  # every category, surrogates (Cs) included
    st.sampled_from(APERTIUM_RESERVED),
)
texts = st.text(characters, max_size=40)
numbers = st.one_of(
    st.integers(),
    st.integers(min_value=-(10**30), max_value=10**30),
    st.floats(allow_nan=False, allow_infinity=False),
)
json_values = st.recursive(
    st.none() | st.booleans() | numbers | texts,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(texts, children, max_size=4),
    max_leaves=12,
)


def nested(depth: int, opening: str) -> str:
    return opening * depth + "0" + ("]" if opening == "[" else "}") * depth


# Text no JSON value renders: nesting past any limit, numbers past Python's, not-JSON.
raw_values = st.one_of(
    st.builds(nested, st.integers(min_value=20, max_value=3_000), st.sampled_from(["[", '{"a":'])),
    st.integers(min_value=4_000, max_value=6_000).map(lambda n: "9" * n),
    st.sampled_from(["NaN", "-Infinity", "1e999", '"\\ud800"', '"\\udfff\\ud800"', "{", "]"]),
)

# A whole body or frame: any JSON value (its non-ASCII characters escaped or not), or raw text.
documents = st.one_of(
    st.builds(
        lambda value, ascii: json.dumps(value, ensure_ascii=ascii), json_values, st.booleans()
    ),
    raw_values,
)

# Where a translation body may be changed (never translationMode: a quality translation
# would run the model).
BODY_PATHS = [
    ("session",),
    ("session", "channel", "language"),
    ("request",),
    ("request", "requestId"),
    ("request", "attributes", "variant"),
    ("request", "connections", "threadId"),
    ("request", "context", "organizationId"),
    ("request", "scope", "conversations"),
    ("request", "scope", "conversations", 0, "messages"),
    ("request", "scope", "conversations", 0, "messages", 0),
    ("request", "scope", "conversations", 0, "messages", 0, "timestamp"),
    ("request", "scope", "conversations", 0, "messages", 0, "participantId"),
    ("request", "scope", "conversations", 0, "participants"),
    ("request", "settings", "targetLanguages"),
    ("request", "settings", "maxResponseLength"),
    ("request", "settings", "disableStream"),
    ("request", "settings", "summaryFormat"),
    ("request", "settings", "overrideOutputLanguage"),
    ("request", "settings", "includeEvidence"),
    ("request", "settings", "redactPersonalData"),
]
MARKER = "\x00fuzzed\x00"


def translation(content: str, target: str) -> dict[str, Any]:
    settings = {"translationMode": "fast", "targetLanguages": [target]}
    body = minimal_body(settings=settings)
    # English, whatever follows it: its fast engine is Apertium (es) or Bergamot (pt).
    body["request"]["scope"]["conversations"][0]["messages"][0]["content"] = ENGLISH + content
    return body


@dataclass(frozen=True)
class Change:
    """One field of a body given another value: a JSON value, or raw text in its place."""

    path: tuple[str | int, ...]
    value: Any
    raw: str | None = None

    def render(self, document: dict[str, Any], at: tuple[str | int, ...] = ()) -> str:
        changed = json.loads(json.dumps(document))
        where: Any = changed
        for key in (*at, *self.path)[:-1]:
            where = where[key] if isinstance(key, int) else where.setdefault(key, {})
        where[(*at, *self.path)[-1]] = MARKER if self.raw is not None else self.value
        text = json.dumps(changed)
        return text.replace(json.dumps(MARKER), self.raw) if self.raw is not None else text


changes = st.builds(
    Change,
    st.sampled_from(BODY_PATHS),
    json_values,
    st.none() | raw_values,
)
translations = st.builds(translation, texts, st.sampled_from(["es", "pt-BR"]))


# --- the app -------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def app_client(services: Services) -> Iterator[TestClient]:
    """The app, a 500 returned rather than raised, with a token for org-1."""
    wait_until_ready(services)
    with signed_in(
        services, ["org-1"], "fuzz", unlimited=True, raise_server_exceptions=False
    ) as http:
        yield http


def assert_documented_answer(
    status: int, answer: dict[str, Any], allowed: frozenset[int] = CLIENT_ERRORS
) -> None:
    """A result (200), or the error envelope at its code's status, one of ``allowed``."""
    if status == 200:
        assert answer["state"] == "completed" and "error" not in answer, answer
        assert answer["message"]["results"], answer
        return
    assert status in allowed, (status, answer)
    jsonschema.validate(answer, ERROR_SCHEMA)
    assert ErrorCode(answer["error"]["code"]).http_status == status, answer
    assert answer["error"]["message"], answer


def post(client: TestClient, path: str, text: str) -> None:
    # Lone surrogates, unescaped, are not UTF-8: sent as the bytes a broken encoder makes.
    content = text.encode("utf-8", "surrogatepass")
    response = client.post(path, content=content, headers={"content-type": "application/json"})
    assert_documented_answer(response.status_code, response.json())
    assert response.headers["x-interface-version"] == "3.6.0"


# --- REST ----------------------------------------------------------------------------------


@FUZZ
@given(body=translations, change=st.none() | changes)
@example(body=translation("^", "es"), change=None)  # once jammed Apertium's eng-spa
@example(body=translation(APERTIUM_RESERVED, "es"), change=None)
@example(body=translation("\ud83d", "pt-BR"), change=None)  # half an emoji
def test_translation_bodies(
    app_client: TestClient, body: dict[str, Any], change: Change | None
) -> None:
    post(app_client, "/message/translate", change.render(body) if change else json.dumps(body))


@FUZZ
@given(text=documents)
def test_any_json_as_a_body(app_client: TestClient, text: str) -> None:
    # Never a valid request: summarize, too, answers it without the model.
    for path in ("/message/translate", "/message/summarize"):
        post(app_client, path, text)


# --- WebSocket -----------------------------------------------------------------------------


@dataclass
class Socket:
    session: WebSocketTestSession
    probes: Iterator[int]

    def answers_to(self, text: str) -> list[dict[str, Any]]:
        """Send ``text``, then a probe request: the replies up to the probe's (a frame may
        get none: a cancel for nothing in flight)."""
        self.session.send_text(text)
        probe = f"probe-{next(self.probes)}"
        frame = {**translation("", "es"), "actionType": "translate", "correlationId": probe}
        self.session.send_text(json.dumps(frame))
        replies: list[dict[str, Any]] = []
        while True:
            reply: dict[str, Any] = json.loads(self.session.receive_text())
            if reply.get("correlationId") == probe:
                assert reply["state"] == "completed", reply
                return replies
            replies.append(reply)


@pytest.fixture(scope="module")
def socket(app_client: TestClient) -> Iterator[Socket]:
    token = app_client.headers["Authorization"].removeprefix("Bearer ")
    with app_client.websocket_connect("/ws", subprotocols=["optave-v1", token]) as session:
        yield Socket(session, itertools.count())


def assert_frame_answered(socket: Socket, text: str) -> None:
    for reply in socket.answers_to(text):
        assert reply["action"] == "superpower" and "payload" not in reply, reply
        assert len(reply.get("correlationId") or "") <= 128, reply
        if reply["state"] == "error":
            status = ErrorCode(reply["error"]["code"]).http_status
            assert_documented_answer(status, reply, FRAME_ERRORS)
        else:
            assert_documented_answer(200, reply)


def sdk_frame_of(body: dict[str, Any]) -> dict[str, Any]:
    return {
        "action": "message",
        "headers": {"correlationId": "fuzzed", "action": "translate"},
        "payload": body,
    }


@FUZZ
@given(body=translations, change=st.none() | changes, header=st.none() | json_values)
def test_frames(socket: Socket, body: dict[str, Any], change: Change | None, header: Any) -> None:
    frame = sdk_frame_of(body)
    if header is not None:
        frame["headers"]["correlationId"] = header
    text = change.render(frame, at=("payload",)) if change else json.dumps(frame)
    assert_frame_answered(socket, text)


@FUZZ
@given(text=documents)
def test_any_json_as_a_frame(socket: Socket, text: str) -> None:
    assert_frame_answered(socket, text)


# --- the routes that use no engine: /glossaries, /usage, /languages; the pages ---------------

ORGANIZATION = "org-1"
GLOSSARY = {
    "organizationId": ORGANIZATION,
    "name": "Support",
    "sourceLanguage": "en",
    "targetLanguage": "es",
    "entries": [{"source": "ticket", "target": "incidencia", "caseSensitive": False}],
}
GLOSSARY_PATHS = [
    ("organizationId",),
    ("name",),
    ("sourceLanguage",),
    ("targetLanguage",),
    ("default",),
    ("entries",),
    ("entries", 0),
    ("entries", 0, "source"),
    ("entries", 0, "target"),
    ("entries", 0, "caseSensitive"),
]
TERMS = {"organizationId": ORGANIZATION, "terms": [{"term": "Optave", "caseSensitive": True}]}
TERM_PATHS = [("organizationId",), ("terms",), ("terms", 0), ("terms", 0, "term")]
# /glossaries answers 201 (created), 204 (deleted), 404 (no such glossary) and 405 (a method
# its path does not take) besides.
GLOSSARY_ANSWERS = CLIENT_ERRORS | {404, 405}
# Anything a client may put in a parameter: text of every category, dates, and what a
# glossary id looks like.
parameters = st.one_of(
    texts,
    st.dates().map(str),
    st.sampled_from(["", ORGANIZATION, "org-2", "2026-02-30", "9999-12-31", "g-1"]),
)


@pytest.fixture(scope="module")
def engineless_client(engineless: Services) -> Iterator[TestClient]:
    """The app with no engine loaded, a 500 returned rather than raised, with a token for
    org-1 (never org-2)."""
    with signed_in(
        engineless, [ORGANIZATION], "fuzz", unlimited=True, raise_server_exceptions=False
    ) as http:
        yield http


def assert_answered(response: Any, allowed: frozenset[int] = GLOSSARY_ANSWERS) -> None:
    """A success of its route, or a documented error envelope."""
    if response.status_code in (200, 201, 204):
        return
    assert_documented_answer(response.status_code, response.json(), allowed)


BODY_ROUTES = [
    ("POST", "/glossaries"),
    ("PUT", "/glossaries/g-1"),
    ("PUT", "/glossaries/do-not-translate"),
]


def send(client: TestClient, method: str, path: str, text: str) -> None:
    response = client.request(
        method,
        path,
        content=text.encode("utf-8", "surrogatepass"),
        headers={"content-type": "application/json"},
    )
    assert_answered(response)


def changes_of(paths: list[tuple[str | int, ...]]) -> st.SearchStrategy[Change | None]:
    return st.none() | st.builds(
        Change, st.sampled_from(paths), json_values, st.none() | raw_values
    )


@FUZZ
@given(route=st.sampled_from(BODY_ROUTES[:2]), change=changes_of(GLOSSARY_PATHS))
def test_glossary_bodies(
    engineless_client: TestClient, route: tuple[str, str], change: Change | None
) -> None:
    send(engineless_client, *route, change.render(GLOSSARY) if change else json.dumps(GLOSSARY))


@FUZZ
@given(change=changes_of(TERM_PATHS))
def test_do_not_translate_bodies(engineless_client: TestClient, change: Change | None) -> None:
    text = change.render(TERMS) if change else json.dumps(TERMS)
    send(engineless_client, "PUT", "/glossaries/do-not-translate", text)


@FUZZ
@given(route=st.sampled_from(BODY_ROUTES), text=documents)
def test_any_json_as_a_glossary_body(
    engineless_client: TestClient, route: tuple[str, str], text: str
) -> None:
    send(engineless_client, *route, text)


def in_path(value: str) -> str:
    """``value`` as one segment of a path, whatever its characters."""
    return quote(value.encode("utf-8", "surrogatepass"), safe="")


@FUZZ
@given(
    method=st.sampled_from(["GET", "DELETE"]),
    glossary=st.none() | parameters,
    organization=st.none() | parameters,
)
def test_glossary_parameters(
    engineless_client: TestClient, method: str, glossary: str | None, organization: str | None
) -> None:
    path = "/glossaries" if glossary is None else f"/glossaries/{in_path(glossary)}"
    if method == "DELETE" and glossary is None:
        method = "GET"
    query = {} if organization is None else {"organizationId": organization}
    assert_answered(
        engineless_client.request(method, path, params=_encodable(query)), GLOSSARY_ANSWERS
    )


@FUZZ
@given(
    organization=st.none() | parameters,
    first=st.none() | parameters,
    last=st.none() | parameters,
)
def test_usage_and_language_parameters(
    engineless_client: TestClient, organization: str | None, first: str | None, last: str | None
) -> None:
    query = {"organizationId": organization, "from": first, "to": last}
    present = {name: value for name, value in query.items() if value is not None}
    assert_answered(engineless_client.get("/usage", params=_encodable(present)), CLIENT_ERRORS)
    assert_answered(engineless_client.get("/languages", params=_encodable(present)), CLIENT_ERRORS)


def _encodable(query: dict[str, str]) -> dict[str, str]:
    # A lone surrogate cannot be sent in a URL: it goes as the replacement a browser sends.
    return {k: v.encode("utf-8", "replace").decode() for k, v in query.items()}


names = st.one_of(
    texts,
    st.builds(
        lambda n, suffix: "a" * n + suffix,
        st.integers(200, 5000),
        st.sampled_from([".js", ".css", ".html", ""]),
    ),
    st.sampled_from(
        ["index.html", "calls.js", "..", ".", "%2e%2e", "swagger-ui.css", "favicon.png"]
    ),
)


@FUZZ
@given(prefix=st.sampled_from(["/playground/", "/docs/assets/", "/docs/", "/redoc/"]), name=names)
def test_page_and_file_names(engineless_client: TestClient, prefix: str, name: str) -> None:
    response = engineless_client.get(prefix + in_path(name))
    if response.status_code in (200, 304):
        return
    assert response.status_code == 404, (response.status_code, response.text[:200])
    assert_documented_answer(404, response.json(), frozenset({404}))
