"""One settings object, read from ``THREADWISE_*`` variables and an optional TOML file."""

from __future__ import annotations

import os
import re
import tomllib
from datetime import datetime
from pathlib import Path
from typing import Annotated, Literal, Self
from urllib.parse import urlsplit

import annotated_types
import platformdirs
from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Discriminator,
    Field,
    SecretStr,
    Tag,
    ValidationError,
    model_validator,
)
from pydantic_core import ErrorDetails
from pydantic_settings import (
    BaseSettings,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    SettingsError,
    TomlConfigSettingsSource,
)

CONFIG_FILE_VARIABLE = "THREADWISE_CONFIG_FILE"


class ConfigurationError(RuntimeError):
    """The settings cannot work together (says which, and what to set)."""


def _default_threads() -> int:
    return max(1, len(os.sched_getaffinity(0)))


class RetiredKey(BaseModel):
    """A token-signing key that has been replaced; its tokens stay valid until they expire.

    HS256 keys give ``secret``, RS256 keys ``public_key_file``.
    """

    kid: str = Field(min_length=1, max_length=128)
    retired_at: datetime
    secret: SecretStr | None = None
    public_key_file: Path | None = None


def _http_base(url: str) -> str:
    parsed = urlsplit(url)
    if parsed.scheme not in ("http", "https") or not parsed.hostname:
        raise ValueError(
            f"{url[:80]!r} is not an http:// or https:// URL with a host; give the server's "
            "base URL, e.g. http://127.0.0.1:8080/v1"
        )
    return url.rstrip("/")


HttpBase = Annotated[str, AfterValidator(_http_base)]
# How a model server is spoken to; "auto" asks it what it is (see engines/remote/servers.py).
ServerKind = Literal["auto", "llama.cpp", "vllm", "llama-cpp-python", "openai"]


class RemoteEngine(BaseModel):
    """An OpenAI-compatible model server: ``POST {url}/chat/completions``, streamed."""

    model_config = ConfigDict(extra="forbid")

    url: HttpBase
    # The model the server is asked for; empty: the first one the server lists.
    model: str = ""
    api_key: SecretStr | None = None
    # Requests in flight to the server at once (it batches them); more wait in the queue.
    concurrency: int = Field(default=4, ge=1, le=1024)
    server: ServerKind = "auto"
    # Tokens of context; unset: what the server reports, else llm_context_size.
    context_size: int | None = Field(default=None, ge=512)


EMBEDDED = "embedded"
# "embedded" or a server; a wrong one is reported as what its kind (text or object) should be.
EngineChoice = Annotated[
    Annotated[Literal["embedded"], Tag("embedded")] | Annotated[RemoteEngine, Tag("server")],
    Discriminator(lambda value: "embedded" if isinstance(value, str) else "server"),
]


def _profile_names(profiles: dict[str, EngineChoice]) -> dict[str, EngineChoice]:
    seen: dict[str, str] = {}
    for name in profiles:
        if not name.strip() or len(name) > 64:
            raise ValueError(f"profile name {name[:80]!r} must be 1 to 64 characters")
        other = seen.setdefault(name.casefold(), name)
        if other != name:
            raise ValueError(
                f"profile names {other!r} and {name!r} differ only in case; variants are "
                "matched without regard to case"
            )
    return profiles


class Settings(BaseSettings):
    """Everything configurable. Environment beats the config file, which beats the defaults."""

    model_config = SettingsConfigDict(env_prefix="THREADWISE_", extra="ignore")

    host: str = "127.0.0.1"
    port: int = 8000
    # The proxies whose X-Forwarded-For and X-Forwarded-Proto are believed: addresses or
    # networks, comma-separated ("10.0.0.0/8"), or "*". Empty: none, and every client is the
    # address it connects from; uvicorn's own default would trust 127.0.0.1, and so let any
    # local process name whatever address it likes to the per-address limits.
    forwarded_allow_ips: str = ""
    # A request's line and headers must all arrive within this time of its first byte, else
    # its connection is closed: a client that trickles them cannot hold one for long.
    header_timeout_seconds: float = Field(default=10.0, gt=0)

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
    # Fewer model threads while the fast translation engines run (they would otherwise slow
    # every model thread down: llama.cpp's threads wait for each other).
    llm_share_cores: bool = True
    # Requests waiting for (or holding) the model; one more gets 503 OVERLOADED at once.
    llm_queue_size: int = Field(default=8, ge=1)
    # Have the model write notes (issue, actions with actors, outcome, follow-up) before the
    # summary. The structured format and conversations longer than the context always do.
    summary_notes: bool = False

    # How the model's queue orders work: "priority" takes translations (short, a user waits)
    # before summaries, a summary that waited 30 s ranking with new translations; "fifo" in
    # arrival order.
    llm_scheduling: Literal["priority", "fifo"] = "priority"
    # The model's threads run this much nicer than the rest of the process (0-19), so that the
    # fast engines and the HTTP loop are not slowed by generation on a small machine.
    llm_nice: int = Field(default=10, ge=0, le=19)
    # llama.cpp states of long prompts (a conversation already summarized) kept in memory so
    # that a later prompt extending one is processed only from where it differs; 0: none.
    llm_prefix_cache_mb: int = Field(default=256, ge=0)

    # A model server instead of the embedded model (any OpenAI-compatible chat completions
    # API: vLLM, llama.cpp's server, TGI, Ollama, LiteLLM...): its base URL, e.g.
    # http://127.0.0.1:8080/v1. Unset: the embedded model.
    llm_url: HttpBase | None = None
    llm_model: str = ""
    llm_api_key: SecretStr | None = None
    llm_concurrency: int = Field(default=4, ge=1, le=1024)
    llm_server: ServerKind = "auto"
    # Engines a request's attributes.variant picks by name (case aside): "embedded", or a
    # server as {"url", "model", "api_key", "concurrency", "server", "context_size"}. Other
    # variants, and requests without one, get the engine above.
    engine_profiles: Annotated[dict[str, EngineChoice], AfterValidator(_profile_names)] = {}
    # After this many connection failures in a row a model server counts as down: requests
    # fail at once (503) and /readyz says so, until a probe every llm_breaker_seconds finds
    # it answering again.
    llm_breaker_failures: int = Field(default=3, ge=1)
    llm_breaker_seconds: float = Field(default=10.0, gt=0)

    # A summary's deadline, queueing included: fixed when set, else from the request's size
    # (base + per 1,000 characters, at most the ceiling).
    request_timeout_seconds: float | None = Field(default=None, gt=0)
    summary_deadline_base_seconds: float = Field(default=90.0, gt=0)
    summary_deadline_seconds_per_1000_characters: float = Field(default=20.0, ge=0)
    request_timeout_ceiling_seconds: float = Field(default=600.0, gt=0)

    # Translation. Its deadline (fixed when set, else from its size): a quality engine (the
    # model) that cannot answer within it gives way to the direction's fast engine.
    translation_timeout_seconds: float | None = Field(default=None, gt=0)
    translation_deadline_base_seconds: float = Field(default=20.0, gt=0)
    translation_deadline_seconds_per_1000_characters: float = Field(default=10.0, ge=0)
    # Override the measured routing table per direction, e.g. {"en-es": {"quality": "apertium"}}.
    # Engines: apertium, bergamot, llm, llm+apertium, llm+bergamot (the model post-editing).
    translation_routes: dict[str, dict[Literal["quality", "fast"], str]] = {}
    # Threads for the fast engines (Apertium, Bergamot), apart from the model's queue, and
    # the requests that may wait for or hold them; one more gets 503 OVERLOADED at once.
    translation_threads: int = Field(default=2, ge=1)
    translation_queue_size: int = Field(default=32, ge=1)

    # A REST body, or a WebSocket frame (a larger frame closes its socket with 1009).
    max_body_bytes: int = Field(default=512 * 1024, ge=1024)
    max_conversations: int = Field(default=50, ge=1)
    max_messages: int = Field(default=2000, ge=1)
    max_message_chars: int = Field(default=32_000, ge=1)

    # WebSocket (/ and /ws). Requests one socket may have in flight; one more is answered
    # OVERLOADED at once.
    websocket_max_in_flight: int = Field(default=32, ge=1)
    # The server pings every socket this often, and closes one whose pong is this late: idle
    # sockets stay open through proxies, dead ones are found.
    websocket_ping_interval_seconds: float = Field(default=20.0, gt=0)
    websocket_ping_timeout_seconds: float = Field(default=20.0, gt=0)
    # Replies one socket may have waiting to be sent. Past that its next frame is read only
    # once the client has read some, and a client that reads none for the ping timeout is
    # closed (1008): one that sends without reading cannot make the server hold its replies.
    websocket_max_unsent_replies: int = Field(default=64, ge=1)
    # At shutdown, how long in-flight WebSocket requests may take to be answered before their
    # sockets are closed (1001) regardless.
    websocket_shutdown_seconds: float = Field(default=30.0, ge=0)

    # Production refuses the conveniences of local use: a generated signing key and the
    # first-run development client.
    production: bool = False

    # Clients, tenants and the audit log. Default: a SQLite file in data_dir. PostgreSQL:
    # postgresql://user:password@host/db (psycopg 3 is used whatever driver the URL names).
    database_url: str | None = None
    # With it, the tenant is the first label of the Host (acme.example.com → acme); without
    # it there is one tenant, "default".
    base_domain: str | None = None

    # Tokens. HS256 with jwt_secret (generated into data_dir outside production), or RS256
    # with jwt_private_key_file. The key id defaults to a digest of the key.
    jwt_algorithm: Literal["HS256", "RS256"] = "HS256"
    jwt_secret: SecretStr | None = None
    jwt_private_key_file: Path | None = None
    jwt_key_id: str | None = None
    jwt_retired_keys: list[RetiredKey] = []
    jwt_issuer: str = "threadwise"
    access_token_seconds: int = Field(default=3600, ge=60, le=86_400)
    jwt_leeway_seconds: float = Field(default=10.0, ge=0, le=300)
    # Also accept tokens of an external identity provider: its issuer and its JWKS URL.
    jwt_external_issuer: str | None = None
    jwt_jwks_url: str | None = None
    # How long a replica may trust what it read from the database about a client, an
    # organization's policies and glossaries, and its usage this month: a change (revoking a
    # client, say) reaches every replica within this time, at once the replica that made it.
    store_cache_seconds: float = Field(default=5.0, ge=0)
    # Deprecated: the name store_cache_seconds had before it covered more than clients; still
    # read when store_cache_seconds is not set.
    client_cache_seconds: float | None = Field(default=None, ge=0)

    # Per-organization limits, unless the client has its own. Shared through Redis when
    # redis_url is set, else kept in the process.
    redis_url: str | None = None
    rate_limit_requests_per_minute: int = Field(default=600, ge=1)
    rate_limit_characters_per_minute: int = Field(default=2_000_000, ge=1)
    # Failed token requests allowed per minute, per client id from one address, and per address.
    token_failures_per_minute_per_client: int = Field(default=10, ge=1)
    token_failures_per_minute_per_address: int = Field(default=30, ge=1)

    # /metrics requires "Authorization: Bearer <metrics_token>" when this is set; without it,
    # /metrics answers loopback addresses only.
    metrics_token: SecretStr | None = None

    # Idempotency-Key (REST) / headers.idempotencyKey (WebSocket): answers kept this long, per
    # organization; in Redis when redis_url is set, else in the process (at most so many).
    idempotency_ttl_seconds: float = Field(default=86_400.0, gt=0)
    idempotency_max_entries: int = Field(default=10_000, ge=1)
    # Answers kept per organization, keyed by operation, content, languages, settings and
    # model version; in Redis when redis_url is set, else in the process (at most so many).
    result_cache_ttl_seconds: float = Field(default=3600.0, ge=0)
    result_cache_entries: int = Field(default=1000, ge=0)

    # SIGTERM: new work is refused (503), work in flight gets this long to finish.
    shutdown_grace_seconds: float = Field(default=30.0, ge=0)
    # One JSON object per log line ("json"), or plain text. Message content is logged only
    # with log_content (debugging).
    log_format: Literal["json", "text"] = "json"
    log_level: str = "INFO"
    log_content: bool = False

    @model_validator(mode="after")
    def _deprecated_client_cache_seconds(self) -> Self:
        if self.client_cache_seconds is not None and "store_cache_seconds" not in (
            self.model_fields_set
        ):
            self.store_cache_seconds = self.client_cache_seconds
        return self

    @property
    def default_engine(self) -> EngineChoice:
        """The engine of requests no profile claims: the server at llm_url, or embedded."""
        if self.llm_url is None:
            return "embedded"
        return RemoteEngine(
            url=self.llm_url,
            model=self.llm_model,
            api_key=self.llm_api_key,
            concurrency=self.llm_concurrency,
            server=self.llm_server,
        )

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
                raise ConfigurationError(
                    f"{CONFIG_FILE_VARIABLE} names {path}, which is not a file; "
                    "point it at a TOML file or unset it"
                )
            sources.append(TomlConfigSettingsSource(settings_cls, toml_file=path))
        return tuple(sources)


ENV_PREFIX = "THREADWISE_"
_OUT_OF_RANGE = frozenset({"greater_than", "greater_than_equal", "less_than", "less_than_equal"})


def load_settings() -> Settings:
    """The settings, or a ``ConfigurationError`` of one sentence per wrong setting, naming
    its variable and what it may be (not pydantic's report)."""
    try:
        return Settings()
    except ValidationError as exc:
        raise ConfigurationError(" ".join(_explain(error) for error in exc.errors())) from None
    except SettingsError as exc:  # a variable that should hold JSON does not
        named = re.search(r'field "(\w+)"', str(exc))
        variable = ENV_PREFIX + named.group(1).upper() if named else "A setting"
        raise ConfigurationError(f"{variable} is not valid JSON; give its value as JSON.") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigurationError(
            f"{CONFIG_FILE_VARIABLE} names a file that is not valid TOML: {exc}."
        ) from None


def _explain(error: ErrorDetails) -> str:
    """One sentence: the variable (or the config file's key), the value, what it may be."""
    name = str(error["loc"][0]) if error["loc"] else ""
    field = Settings.model_fields.get(name)
    where = "".join(f"[{part}]" for part in error["loc"][1:])
    # A value is shown only when it is one setting's own, and never a secret's.
    value = error.get("input")
    shown = not where and isinstance(value, str | int | float)
    secret = field is None or "SecretStr" in str(field.annotation)
    given = f"={str(value)[:80]}" if shown and not secret else ""
    variable = ENV_PREFIX + name.upper()
    config_file = os.environ.get(CONFIG_FILE_VARIABLE)
    if variable in os.environ or not config_file:
        setting = f"{variable}{where}{given}"
    else:
        setting = f"{name}{where}{given} in {config_file}"
    if error["type"] == "missing":
        return f"{setting} is missing."
    if field is not None and not where and error["type"] in _OUT_OF_RANGE:
        return f"{setting} is out of range: it must be {_allowed_range(field.metadata)}."
    return f"{setting} is not valid: {error['msg']}."


def _allowed_range(constraints: list[object]) -> str:
    """``[Ge(60), Le(86400)]`` → ``at least 60 and at most 86400``."""
    parts = []
    for constraint in constraints:
        if isinstance(constraint, annotated_types.Ge):
            parts.append(f"at least {constraint.ge}")
        elif isinstance(constraint, annotated_types.Gt):
            parts.append(f"more than {constraint.gt}")
        elif isinstance(constraint, annotated_types.Le):
            parts.append(f"at most {constraint.le}")
        elif isinstance(constraint, annotated_types.Lt):
            parts.append(f"less than {constraint.lt}")
    return " and ".join(parts)
