"""The request body each kind of server gets: how an answer begun by the caller is continued."""

from __future__ import annotations

from threadwise.engines.base import ChatMessage
from threadwise.engines.remote.exchange import Ask, Streamed, payload
from threadwise.engines.remote.servers import TRAITS

CHAT: list[ChatMessage] = [{"role": "user", "content": "Hello."}]


def ask(continue_from: str = "", stop: tuple[str, ...] = ()) -> Ask:
    return Ask(CHAT, 64, None, continue_from, stop)


def test_a_trailing_assistant_message_continues_the_answer_on_llama_cpp() -> None:
    body = payload(ask("Hi"), TRAITS["llama.cpp"], "m", 32)
    assert body["messages"][-1] == {"role": "assistant", "content": "Hi"}
    assert body["max_tokens"] == 32 and body["model"] == "m" and body["cache_prompt"] is True
    assert body["stream_options"] == {"include_usage": True}


def test_vllm_is_told_to_continue_the_final_message() -> None:
    body = payload(ask("Hi"), TRAITS["vllm"], "", 32)
    assert body["continue_final_message"] is True and body["add_generation_prompt"] is False
    assert "model" not in body


def test_a_server_that_cannot_continue_is_instructed_and_sends_at_most_four_stops() -> None:
    body = payload(ask("Hi", ("a", "b", "c", "d", "e")), TRAITS["llama-cpp-python"], "m", 32)
    assert all(m["role"] != "assistant" for m in body["messages"])
    assert body["stop"] == ["a", "b", "c", "d"]
    assert "stream_options" not in body


def test_token_counts_are_read_only_when_the_server_gave_them() -> None:
    streamed = Streamed("stop", {"completion_tokens": 7, "prompt_tokens": -1}, 3, 0.0, 1.0)
    assert streamed.count("completion_tokens") == 7
    assert streamed.count("prompt_tokens") == 0
    assert Streamed("stop", None, 3, 0.0, 1.0).count("completion_tokens") == 0
