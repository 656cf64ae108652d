"""One settings object, read from ``THREADWISE_*`` variables and an optional TOML file."""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path
from typing import Literal

import platformdirs
from pydantic import Field
from pydantic_settings import (
    BaseSettings,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    TomlConfigSettingsSource,
)

CONFIG_FILE_VARIABLE = "THREADWISE_CONFIG_FILE"


def _default_threads() -> int:
    return max(1, len(os.sched_getaffinity(0)))


class Settings(BaseSettings):
    """Everything configurable. Environment beats the config file, which beats the defaults."""

    model_config = SettingsConfigDict(env_prefix="THREADWISE_", extra="ignore")

    host: str = "127.0.0.1"
    port: int = 8000

    # State (database, keys) lives here; model files live in model_dir so that several
    # data directories share one copy of the model.
    data_dir: Path = Field(default_factory=lambda: Path(platformdirs.user_data_dir("threadwise")))
    model_dir: Path = Field(
        default_factory=lambda: Path(platformdirs.user_cache_dir("threadwise")) / "models"
    )

    # Language model. Without llm_model_path the packaged default model is joined and verified.
    llm_model_path: Path | None = None
    llm_context_size: int = Field(default=4096, ge=512)
    llm_threads: int = Field(default_factory=_default_threads, ge=1)
    llm_batch_size: int = Field(default=512, ge=32)
    # Requests waiting for (or holding) the model; one more gets 503 OVERLOADED at once.
    llm_queue_size: int = Field(default=8, ge=1)
    # Have the model write notes (issue, actions with actors, outcome, follow-up) before the
    # summary. The structured format and conversations longer than the context always do.
    summary_notes: bool = True
    # Ask the model, sentence by sentence, whether its draft is true of the conversation.
    summary_self_check: bool = False

    request_timeout_seconds: float = Field(default=120.0, gt=0)

    # Translation. Its deadline: a quality engine (the model) that cannot answer within it
    # gives way to the direction's fast engine.
    translation_timeout_seconds: float = Field(default=30.0, gt=0)
    # Override the measured routing table per direction, e.g. {"en-es": {"quality": "apertium"}}.
    # Engines: apertium, bergamot, llm, llm+apertium, llm+bergamot (the model post-editing).
    translation_routes: dict[str, dict[Literal["quality", "fast"], str]] = {}
    # Threads for the fast engines (Apertium, Bergamot), apart from the model's queue.
    translation_threads: int = Field(default=2, ge=1)

    max_body_bytes: int = Field(default=512 * 1024, ge=1024)
    max_conversations: int = Field(default=50, ge=1)
    max_messages: int = Field(default=2000, ge=1)
    max_message_chars: int = Field(default=32_000, ge=1)

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        sources: list[PydanticBaseSettingsSource] = [init_settings, env_settings]
        config_file = os.environ.get(CONFIG_FILE_VARIABLE)
        if config_file:
            path = Path(config_file)
            if not path.is_file():
                raise FileNotFoundError(
                    f"{CONFIG_FILE_VARIABLE} names {path}, which is not a file; "
                    "point it at a TOML file or unset it"
                )
            sources.append(TomlConfigSettingsSource(settings_cls, toml_file=path))
        return tuple(sources)


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    return Settings()
