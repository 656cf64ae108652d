"""What each kind of OpenAI-compatible server understands beyond the OpenAI API.

| kind | an answer begun by the caller | extra fields | tokenizer | context size |
|---|---|---|---|---|
| llama.cpp's server | trailing assistant message | cache_prompt, greedy | /tokenize | /props |
| vllm (also SGLang) | continue_final_message | — | /tokenize | /v1/models |
| llama-cpp-python | asked for in the instruction | greedy | estimated | configured |
| openai (any other) | asked for in the instruction | — | estimated | configured |

llama-cpp-python's endpoints all wait for its one model lock (and by default a waiting request
interrupts the running stream), so its tokenizer is not used: counts are estimated.
``auto`` asks the server what it is: llama.cpp's has ``/props``, vLLM's ``/version``,
llama-cpp-python's OpenAPI title names it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal
from urllib.parse import urlsplit, urlunsplit

import httpx2

# A model server's answer to a look at what it is; it runs no model.
PROBE_SECONDS = 5.0

Continuation = Literal["trailing", "flag", "instruction"]


@dataclass(frozen=True)
class ServerTraits:
    kind: str
    # How an answer begun by the caller (``continue_from``) is continued.
    continues: Continuation
    # Request fields it understands beyond OpenAI's: the embedded engine's greedy sampling,
    # and llama.cpp's prompt cache (the KV cache of the last prompt of a slot is kept, and a
    # prompt that extends it is processed from where it differs).
    fields: Mapping[str, Any] = field(default_factory=dict)
    tokenizer: Literal["llama.cpp", "vllm"] | None = None
    # Reports token usage at the end of a stream when asked (``stream_options``).
    usage: bool = True


_GREEDY = {"top_k": 1, "repeat_penalty": 1.0}
TRAITS: dict[str, ServerTraits] = {
    "llama.cpp": ServerTraits(
        "llama.cpp", "trailing", {"cache_prompt": True, **_GREEDY}, tokenizer="llama.cpp"
    ),
    "vllm": ServerTraits("vllm", "flag", tokenizer="vllm"),
    "llama-cpp-python": ServerTraits("llama-cpp-python", "instruction", _GREEDY, usage=False),
    "openai": ServerTraits("openai", "instruction"),
}


@dataclass(frozen=True)
class ServerInfo:
    traits: ServerTraits
    context_size: int | None = None
    models: tuple[str, ...] = ()


def server_root(base: str) -> str:
    """``http://host:8080`` of ``http://host:8080/v1``: where servers keep their own routes."""
    parts = urlsplit(base)
    path = parts.path.rstrip("/")
    if path.endswith("/v1"):
        path = path[: -len("/v1")]
    return urlunsplit((parts.scheme, parts.netloc, path, "", ""))


def estimate_tokens(text: str) -> int:
    """A count that errs high over a conversation: 3 bytes of UTF-8 a token (the default
    model's tokenizer averages 4.6 in English, 3.8-3.9 in Spanish, French and German; a short
    line of digits can run to 2.2): a conversation is split into parts a little early rather
    than overflowing the server's context."""
    return math.ceil(len(text.encode("utf-8")) / 3)


async def detect(client: httpx2.AsyncClient, base: str, kind: str) -> ServerInfo:
    """What the server at ``base`` is (``kind``, unless "auto"), the models it lists and its
    context size where it tells. A server that does not answer raises ``TransportError``."""
    root = server_root(base)
    context_size = None
    if kind in ("auto", "llama.cpp"):
        props = await _get_json(client, f"{root}/props")
        settings = props.get("default_generation_settings") if isinstance(props, dict) else None
        if isinstance(settings, dict):
            kind = "llama.cpp"
            context_size = _positive(settings.get("n_ctx"))
    if kind == "auto":
        version = await _get_json(client, f"{root}/version")
        if isinstance(version, dict) and "version" in version:
            kind = "vllm"
    if kind == "auto":
        schema = await _get_json(client, f"{root}/openapi.json")
        info = schema.get("info") if isinstance(schema, dict) else None
        title = str(info.get("title", "")) if isinstance(info, dict) else ""
        kind = "llama-cpp-python" if "llama.cpp Python" in title else "openai"
    listed = await _get_json(client, f"{base}/models")
    entries = listed.get("data") if isinstance(listed, dict) else None
    models: list[str] = []
    for entry in entries if isinstance(entries, list) else []:
        if isinstance(entry, dict) and isinstance(entry.get("id"), str):
            models.append(entry["id"])
            # vLLM says how long a context each model takes.
            context_size = context_size or _positive(entry.get("max_model_len"))
    return ServerInfo(TRAITS[kind], context_size, tuple(models))


async def count_tokens(
    client: httpx2.AsyncClient, base: str, traits: ServerTraits, model: str, text: str
) -> int:
    """The server's own count of ``text``'s tokens (``traits.tokenizer`` must be set)."""
    root = server_root(base)
    if traits.tokenizer == "llama.cpp":
        response = await client.post(
            f"{root}/tokenize", json={"content": text}, timeout=PROBE_SECONDS
        )
        response.raise_for_status()
        return len(response.json()["tokens"])
    response = await client.post(
        f"{root}/tokenize",
        json={"model": model, "prompt": text, "add_special_tokens": False},
        timeout=PROBE_SECONDS,
    )
    response.raise_for_status()
    return int(response.json()["count"])


async def answers(client: httpx2.AsyncClient, base: str) -> bool:
    """Does the server answer at all? Any answer below 500 says it is up (``/health`` is
    llama.cpp's and vLLM's; other servers' 404 also comes from a live server)."""
    response = await client.get(f"{server_root(base)}/health", timeout=PROBE_SECONDS)
    return response.status_code < 500


async def _get_json(client: httpx2.AsyncClient, url: str) -> object:
    response = await client.get(url, timeout=PROBE_SECONDS)
    if response.status_code != 200:
        return None
    try:
        return response.json()
    except ValueError:
        return None


def _positive(value: object) -> int | None:
    return value if isinstance(value, int) and value > 0 else None
