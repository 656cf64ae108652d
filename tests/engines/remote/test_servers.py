from __future__ import annotations

from typing import Any

import pytest

from threadwise.engines.remote.servers import estimate_tokens, server_root


@pytest.mark.parametrize(
    ("base", "root"),
    [
        ("http://127.0.0.1:8080/v1", "http://127.0.0.1:8080"),
        ("http://vllm:8000/v1/", "http://vllm:8000"),
        ("https://gateway.example/llm/v1", "https://gateway.example/llm"),
        ("http://ollama:11434", "http://ollama:11434"),
    ],
)
def test_server_root(base: str, root: str) -> None:
    assert server_root(base) == root


def test_the_estimate_errs_high(support_chat: dict[str, Any]) -> None:
    lines = [
        m["content"]
        for c in support_chat["request"]["scope"]["conversations"]
        for m in c["messages"]
    ]
    # The default model's tokenizer counts 231 tokens in these messages (and on NTREX news
    # sentences 4.6 bytes a token in English, 3.8-3.9 in Spanish, French and German).
    assert sum(estimate_tokens(line) for line in lines) >= 231
    assert estimate_tokens("") == 0
