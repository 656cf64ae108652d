"""Settings of the model servers and engine profiles: what they become, and the one sentence
a mistake in them gets."""

from __future__ import annotations

import json

import pytest

from threadwise.config import ConfigurationError, RemoteEngine, load_settings


def test_no_model_server_means_the_embedded_model(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("THREADWISE_LLM_URL", raising=False)
    settings = load_settings()
    assert settings.default_engine == "embedded" and settings.engine_profiles == {}


def test_a_model_server_is_the_default_engine(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("THREADWISE_LLM_URL", "http://vllm:8000/v1/")
    monkeypatch.setenv("THREADWISE_LLM_MODEL", "Qwen/Qwen2.5-7B-Instruct")
    monkeypatch.setenv("THREADWISE_LLM_API_KEY", "sk-never-shown")
    monkeypatch.setenv("THREADWISE_LLM_CONCURRENCY", "16")
    settings = load_settings()
    engine = settings.default_engine
    assert isinstance(engine, RemoteEngine)
    assert engine.url == "http://vllm:8000/v1" and engine.model == "Qwen/Qwen2.5-7B-Instruct"
    assert engine.concurrency == 16 and engine.server == "auto"
    assert engine.api_key is not None and engine.api_key.get_secret_value() == "sk-never-shown"
    assert "sk-never-shown" not in repr(settings) and "sk-never-shown" not in repr(engine)


def test_profiles_from_json(monkeypatch: pytest.MonkeyPatch) -> None:
    profiles = {"A": "embedded", "B": {"url": "http://vllm:8000/v1", "concurrency": 8}}
    monkeypatch.setenv("THREADWISE_ENGINE_PROFILES", json.dumps(profiles))
    settings = load_settings()
    assert settings.engine_profiles["A"] == "embedded"
    assert settings.engine_profiles["B"] == RemoteEngine(url="http://vllm:8000/v1", concurrency=8)


@pytest.mark.parametrize(
    ("variable", "value", "sentence"),
    [
        (
            "THREADWISE_LLM_URL",
            "vllm:8000",
            "THREADWISE_LLM_URL=vllm:8000 is not valid: Value error, 'vllm:8000' is not an "
            "http:// or https:// URL with a host",
        ),
        (
            "THREADWISE_LLM_CONCURRENCY",
            "0",
            "THREADWISE_LLM_CONCURRENCY=0 is out of range: it must be at least 1 and at most 1024.",
        ),
        (
            "THREADWISE_ENGINE_PROFILES",
            '{"A": "embeded"}',
            "THREADWISE_ENGINE_PROFILES[A][embedded] is not valid: Input should be 'embedded'.",
        ),
        (
            "THREADWISE_ENGINE_PROFILES",
            '{"B": {"url": "http://h/v1", "apikey": "sk-never-shown"}}',
            "THREADWISE_ENGINE_PROFILES[B][server][apikey] is not valid: Extra inputs are not "
            "permitted.",
        ),
        (
            "THREADWISE_ENGINE_PROFILES",
            '{"B": "embedded", "b": "embedded"}',
            "THREADWISE_ENGINE_PROFILES is not valid: Value error, profile names 'B' and 'b' "
            "differ only in case",
        ),
    ],
)
def test_a_wrong_engine_setting_is_one_sentence_naming_it(
    monkeypatch: pytest.MonkeyPatch, variable: str, value: str, sentence: str
) -> None:
    monkeypatch.setenv(variable, value)
    with pytest.raises(ConfigurationError) as wrong:
        load_settings()
    assert str(wrong.value).startswith(sentence), str(wrong.value)
    assert "sk-never-shown" not in str(wrong.value)


def test_store_cache_seconds_and_its_deprecated_name(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("THREADWISE_STORE_CACHE_SECONDS", raising=False)
    monkeypatch.delenv("THREADWISE_CLIENT_CACHE_SECONDS", raising=False)
    assert load_settings().store_cache_seconds == 5.0
    # Deployments that set the old name keep their setting.
    monkeypatch.setenv("THREADWISE_CLIENT_CACHE_SECONDS", "12")
    assert load_settings().store_cache_seconds == 12.0
    # The new name wins when both are set.
    monkeypatch.setenv("THREADWISE_STORE_CACHE_SECONDS", "3")
    assert load_settings().store_cache_seconds == 3.0
    monkeypatch.setenv("THREADWISE_CLIENT_CACHE_SECONDS", "-1")
    with pytest.raises(ConfigurationError, match="THREADWISE_CLIENT_CACHE_SECONDS=-1"):
        load_settings()
