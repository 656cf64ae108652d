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
    """Everything configurable. Environment beats the config file, which beats the defaults.

    Each field's ``description`` is its line in docs/reference/settings.md
    (``python -m scripts.reference`` writes it).
    """

    model_config = SettingsConfigDict(env_prefix="THREADWISE_", extra="ignore")

    host: str = Field(default="127.0.0.1", description="Address `threadwise serve` listens on.")
    port: int = Field(default=8000, description="Port `threadwise serve` listens on.")
    # Empty: none, and every client is the address it connects from; uvicorn's own default
    # would trust 127.0.0.1, and so let any local process name whatever address it likes to
    # the per-address limits.
    forwarded_allow_ips: str = Field(
        default="",
        description="The proxies whose `X-Forwarded-For` and `X-Forwarded-Proto` are believed: "
        "addresses or networks, comma-separated (`10.0.0.0/8`), or `*`. Empty: none.",
    )
    # A client that trickles its headers cannot hold a connection for long.
    header_timeout_seconds: float = Field(
        default=10.0,
        gt=0,
        description="A request's line and headers must arrive within this time of its first "
        "byte, else its connection is closed (uvicorn has no such limit).",
    )

    # Model files live apart from the state so that several data directories share one copy.
    data_dir: Path = Field(
        default_factory=lambda: Path(platformdirs.user_data_dir("threadwise")),
        description="The service's state (database, signing key). Default: the per-user data "
        "directory.",
    )
    model_dir: Path = Field(
        default_factory=lambda: Path(platformdirs.user_cache_dir("threadwise")) / "models",
        description="Joined model files, shared by data directories. Default: `models` in the "
        "per-user cache directory.",
    )

    llm_model_path: Path | None = Field(
        default=None,
        description="A GGUF model to use instead of the packaged default (which is joined from "
        "its packages and verified).",
    )
    llm_context_size: int = Field(
        default=4096,
        ge=512,
        description="The model's context in tokens; longer conversations are summarized in "
        "parts, never truncated.",
    )
    llm_threads: int = Field(
        default_factory=_default_threads,
        ge=1,
        description="Threads of the embedded model. Default: the CPUs this process may use.",
    )
    llm_batch_size: int = Field(
        default=512, ge=32, description="Tokens the embedded model processes in one batch."
    )
    # llama.cpp's threads wait for each other, so a busy core slows every model thread.
    llm_share_cores: bool = Field(
        default=True,
        description="The model uses one thread fewer while each fast translation runs.",
    )
    llm_queue_size: int = Field(
        default=8,
        ge=1,
        description="Requests of one kind (summaries; translations by the model) waiting for "
        "or holding the model; one more gets `503 OVERLOADED` at once.",
    )
    llm_batching: int = Field(
        default=0,
        ge=0,
        le=8,
        description="Requests the embedded model serves at once by continuous batching (their "
        "calls decode side by side, joining and leaving between steps); 0: one at a time.",
    )
    summary_notes: bool = Field(
        default=False,
        description="Have the model write notes (issue, actions, outcome) before the summary: "
        "about twice the latency. The structured format and conversations longer than the "
        "context always do.",
    )

    # Translations are short and a user waits for them; summaries are long.
    llm_scheduling: Literal["priority", "fifo"] = Field(
        default="priority",
        description="How the model's queue orders work: `priority` takes translations before "
        "waiting summaries (a summary that waited 30 s ranks with new work); `fifo` in arrival "
        "order.",
    )
    # So that the fast engines and the HTTP loop are not slowed by generation on a small
    # machine; in a container of its own it weighs only against the service's own threads.
    llm_nice: int = Field(
        default=10,
        ge=0,
        le=19,
        description="How much nicer than the rest of the process the model's threads run.",
    )
    llm_prefix_cache_mb: int = Field(
        default=256,
        ge=0,
        description="Memory for saved llama.cpp states of summarized conversations, reused "
        "when the thread grows (only its new part is processed); 0: none.",
    )

    llm_url: HttpBase | None = Field(
        default=None,
        description="Base URL of an OpenAI-compatible model server (vLLM, llama.cpp's server, "
        "TGI, Ollama, LiteLLM…), e.g. `http://vllm:8000/v1`. Unset: the embedded model.",
    )
    llm_model: str = Field(
        default="",
        description="The `model` asked of the server. Empty: the first one the server lists.",
    )
    llm_api_key: SecretStr | None = Field(
        default=None, description="Sent to the model server as a bearer token; never logged."
    )
    llm_concurrency: int = Field(
        default=4,
        ge=1,
        le=1024,
        description="Requests in flight to the model server at once (it batches them).",
    )
    llm_server: ServerKind = Field(
        default="auto",
        description="What the model server is: `llama.cpp`, `vllm`, `llama-cpp-python` or "
        "`openai`; `auto` asks it.",
    )
    engine_profiles: Annotated[dict[str, EngineChoice], AfterValidator(_profile_names)] = Field(
        default={},
        description="Engines a request's `attributes.variant` picks by name (case aside): "
        '`"embedded"`, or a server as `{"url", "model", "api_key", "concurrency", "server", '
        '"context_size"}`. Other variants, and requests without one, get the default engine.',
    )
    llm_breaker_failures: int = Field(
        default=3,
        ge=1,
        description="Connection failures in a row after which a model server counts as down: "
        "requests fail at once (503) and `/readyz` says so.",
    )
    llm_breaker_seconds: float = Field(
        default=10.0,
        gt=0,
        description="How often a model server counted as down is probed.",
    )

    request_timeout_seconds: float | None = Field(
        default=None,
        gt=0,
        description="A summary's deadline, queueing included. Unset: from the request's size "
        "(base + per 1,000 characters, at most the ceiling).",
    )
    summary_deadline_base_seconds: float = Field(
        default=90.0, gt=0, description="A summary's deadline from its size: the base."
    )
    summary_deadline_seconds_per_1000_characters: float = Field(
        default=20.0, ge=0, description="A summary's deadline from its size: per 1,000 characters."
    )
    request_timeout_ceiling_seconds: float = Field(
        default=600.0, gt=0, description="A summary's deadline from its size: at most this."
    )

    translation_timeout_seconds: float | None = Field(
        default=None,
        gt=0,
        description="A translate request's deadline. Unset: from its size. A quality engine "
        "(the model) that cannot answer within it gives way to the direction's fast engine.",
    )
    translation_deadline_base_seconds: float = Field(
        default=20.0, gt=0, description="A translation's deadline from its size: the base."
    )
    translation_deadline_seconds_per_1000_characters: float = Field(
        default=10.0,
        ge=0,
        description="A translation's deadline from its size: per 1,000 characters.",
    )
    translation_routes: dict[str, dict[Literal["quality", "fast"], str]] = Field(
        default={},
        description='Override the measured routing table per direction, e.g. `{"en-es": '
        '{"quality": "apertium"}}`. Engines: `apertium`, `bergamot`, `llm`, `llm+apertium`, '
        "`llm+bergamot`; `fast` only `apertium`, `bergamot` or `none` (never the model).",
    )
    apertium_warm_languages: list[str] = Field(
        default=["en", "es", "fr", "de", "pt"],
        description="Languages whose Apertium pairs start with the server; the others' start "
        "at their first message (0.1-0.5 s once). Each pair is several processes, some of "
        "200 MB: warm only those the traffic needs at once.",
    )
    translation_threads: int = Field(
        default=2,
        ge=1,
        description="Threads for the fast engines (Apertium, Bergamot), apart from the model's "
        "queue.",
    )
    translation_queue_size: int = Field(
        default=32,
        ge=1,
        description="Requests waiting for or holding the fast engines' threads; one more gets "
        "`503 OVERLOADED` at once.",
    )

    max_body_bytes: int = Field(
        default=512 * 1024,
        ge=1024,
        description="A REST body or a WebSocket frame (larger: 413, or close 1009).",
    )
    max_conversations: int = Field(default=50, ge=1, description="Conversations in a request.")
    max_messages: int = Field(default=2000, ge=1, description="Messages in a request.")
    max_message_chars: int = Field(default=32_000, ge=1, description="Characters in one message.")

    websocket_max_in_flight: int = Field(
        default=32,
        ge=1,
        description="Requests one socket may have in flight; one more is answered `OVERLOADED` "
        "at once.",
    )
    # Idle sockets stay open through proxies, dead ones are found.
    websocket_ping_interval_seconds: float = Field(
        default=20.0, gt=0, description="How often the server pings every socket."
    )
    websocket_ping_timeout_seconds: float = Field(
        default=20.0,
        gt=0,
        description="A socket whose pong is this late is closed (1011).",
    )
    # A client that sends without reading cannot make the server hold its replies.
    websocket_max_unsent_replies: int = Field(
        default=64,
        ge=1,
        description="Replies one socket may have waiting to be sent; past that its frames are "
        "read only as the client reads, and a client that reads none for the ping timeout is "
        "closed (1008).",
    )
    websocket_shutdown_seconds: float = Field(
        default=30.0,
        ge=0,
        description="At shutdown, how long requests in flight on sockets may take before their "
        "sockets are closed (1001) regardless.",
    )

    production: bool = Field(
        default=False,
        description="Refuse the conveniences of local use: a generated signing key and the "
        "first-run development client.",
    )

    database_url: str | None = Field(
        default=None,
        description="Clients, tenants, organizations' data and the audit log. Unset: a SQLite "
        "file in the data directory; or `postgresql://user:password@host/db` (psycopg 3 is "
        "used whatever driver the URL names). Migrated at start-up.",
    )
    database_pool_size: int = Field(
        default=16,
        ge=1,
        le=1000,
        description="PostgreSQL connections each replica keeps open (and as many more at busy "
        "moments, closed after): at least the requests and jobs it works on at once, or every "
        "one past it pays for a new connection.",
    )
    base_domain: str | None = Field(
        default=None,
        description="With it, the tenant is the first label of the Host (`acme.example.com` → "
        "`acme`); without it there is one tenant, `default`.",
    )

    jwt_algorithm: Literal["HS256", "RS256"] = Field(
        default="HS256",
        description="How tokens are signed: HS256 with `jwt_secret`, RS256 with "
        "`jwt_private_key_file`.",
    )
    jwt_secret: SecretStr | None = Field(
        default=None,
        description="HS256 secret, at least 32 bytes, the same on every replica. Unset: "
        "generated into the data directory (refused in production).",
    )
    jwt_private_key_file: Path | None = Field(default=None, description="RS256 private key, PEM.")
    jwt_key_id: str | None = Field(
        default=None, description="The signing key's id. Unset: a digest of the key."
    )
    jwt_retired_keys: list[RetiredKey] = Field(
        default=[],
        description='Replaced signing keys whose tokens stay valid until they expire: `[{"kid", '
        '"retired_at", "secret" or "public_key_file"}]`.',
    )
    jwt_issuer: str = Field(default="threadwise", description="The `iss` of issued tokens.")
    access_token_seconds: int = Field(
        default=3600, ge=60, le=86_400, description="Lifetime of an issued token."
    )
    jwt_leeway_seconds: float = Field(
        default=10.0,
        ge=0,
        le=300,
        description="Clock difference allowed when a token's times are checked.",
    )
    jwt_external_issuer: str | None = Field(
        default=None,
        description="Also accept tokens of this identity provider (claims `aud` = tenant, "
        "`sub`, `orgs`).",
    )
    jwt_jwks_url: str | None = Field(
        default=None, description="The external identity provider's JWKS URL."
    )
    store_cache_seconds: float = Field(
        default=5.0,
        ge=0,
        description="How long a replica may trust what it read from the database about a "
        "client, or an organization's policies, glossaries and usage this month (a change, "
        "such as a revocation, reaches every replica within this time; at once on the replica "
        "that made it).",
    )
    client_cache_seconds: float | None = Field(
        default=None,
        ge=0,
        description="Deprecated: the name `store_cache_seconds` had before it covered more "
        "than clients; still read when `store_cache_seconds` is not set.",
    )

    redis_url: str | None = Field(
        default=None,
        description="`redis://…`: rate limits, idempotency keys and the result cache shared by "
        "every replica. Unset: kept in the process.",
    )
    rate_limit_requests_per_minute: int = Field(
        default=600, ge=1, description="Per organization, unless its client has its own."
    )
    rate_limit_characters_per_minute: int = Field(
        default=2_000_000,
        ge=1,
        description="Message characters per organization, unless its client has its own; a "
        "translation counts them once per target language.",
    )
    token_failures_per_minute_per_client: int = Field(
        default=10,
        ge=1,
        description="Failed token requests of one client id from one address (IPv6: its /64) "
        "before 429.",
    )
    token_failures_per_minute_per_address: int = Field(
        default=30,
        ge=1,
        description="Failed token requests from one address, whatever the client id, before 429.",
    )

    metrics_token: SecretStr | None = Field(
        default=None,
        description="The bearer token `/metrics` then requires, from anywhere. Unset: "
        "`/metrics` answers loopback addresses only.",
    )

    idempotency_ttl_seconds: float = Field(
        default=86_400.0,
        gt=0,
        description="How long an answer is kept for its `Idempotency-Key`, per organization "
        "(in Redis with `redis_url`, else in the process).",
    )
    idempotency_max_entries: int = Field(
        default=10_000, ge=1, description="Idempotency keys kept in the process, at most."
    )
    result_cache_ttl_seconds: float = Field(
        default=3600.0,
        ge=0,
        description="Answers (and summarized threads) kept per organization, keyed by "
        "operation, content, languages, settings and model version; 0: no result cache.",
    )
    result_cache_entries: int = Field(
        default=1000, ge=0, description="Answers kept in the process's result cache, at most."
    )

    jobs_retention_hours: float = Field(
        default=24.0,
        gt=0,
        description="How long an asynchronous job's result (or error) is kept once it ends; "
        "then `GET /jobs/{id}` answers 404.",
    )
    jobs_worker: Literal["auto", "inline", "process", "external"] = Field(
        default="auto",
        description="Where a replica's jobs run. `process`: `threadwise serve` starts "
        "`threadwise worker` beside it at niceness `jobs_worker_nice`, so that requests go "
        "first on the CPU (and restarts it if it stops); `inline`: in the server's own "
        "process; `external`: not here (run `threadwise worker` apart). `auto`: `process` "
        "with PostgreSQL, `inline` with SQLite (whose queue is the process's own).",
    )
    jobs_worker_nice: int = Field(
        default=5,
        ge=0,
        le=19,
        description="The niceness of the worker `threadwise serve` starts (`jobs_worker` "
        "`process`): 5 lets a request take the CPU from it, and the worker's fast jobs take "
        "it from the model's threads (at `llm_nice` 10, in a model server or in-process).",
    )
    jobs_worker_metrics_file: Path | None = Field(
        default=None,
        description="Where `threadwise worker` writes its metrics (every second, in the "
        "Prometheus text format) and the server's `/metrics` reads them, adding them to its "
        "own: one scrape per replica. Set by `threadwise serve` for the worker it starts.",
    )
    jobs_concurrency: int = Field(
        default=4,
        ge=1,
        le=64,
        description="Fast-tier translation jobs and webhook deliveries one replica works on "
        "at a time; their work queues behind the synchronous requests.",
    )
    jobs_model_concurrency: int = Field(
        default=1,
        ge=1,
        le=16,
        description="Jobs for the language model (summaries, quality-tier translations) one "
        "replica works on at a time, in slots of their own: they never hold the fast jobs' "
        "slots while they wait for the model.",
    )
    jobs_model_waits_for_fast_seconds: float = Field(
        default=30.0,
        ge=0,
        description="A job's part for the language model waits, at most this long, while "
        "fast jobs run on the same replica's worker (shortest work first: on few cores the "
        "model's threads would slow every one of them); 0: no wait.",
    )
    jobs_max_queued_per_organization: int = Field(
        default=10_000,
        ge=1,
        description="An organization's jobs queued or running at most; one more is refused "
        "with 429 `RATE_LIMITED`.",
    )
    jobs_stalled_seconds: float = Field(
        default=30.0,
        gt=0,
        description="A running job whose replica has not said it is alive for this long "
        "(killed) is taken up by another.",
    )
    webhook_allowed_hosts: str = Field(
        default="",
        description="Comma-separated `host` or `host:port` that webhooks may go to although "
        "they resolve to a loopback, private or link-local address (a receiver on the "
        "operator's own network). Every other such URL is refused.",
    )
    webhook_timeout_seconds: float = Field(
        default=10.0,
        gt=0,
        le=60,
        description="How long one webhook delivery attempt may take, connection included.",
    )

    shutdown_grace_seconds: float = Field(
        default=30.0,
        ge=0,
        description="After SIGTERM, how long work in flight may take (new work gets 503).",
    )
    log_format: Literal["json", "text"] = Field(
        default="json", description="One JSON object per log line (`json`), or plain `text`."
    )
    log_level: str = Field(default="INFO", description="The lowest level logged.")
    log_content: bool = Field(
        default=False,
        description="Let request log lines carry message content (debugging only).",
    )

    @model_validator(mode="after")
    def _deprecated_client_cache_seconds(self) -> Self:
        if self.client_cache_seconds is not None and "store_cache_seconds" not in (
            self.model_fields_set
        ):
            self.store_cache_seconds = self.client_cache_seconds
        return self

    @property
    def webhook_hosts(self) -> tuple[str, ...]:
        """``webhook_allowed_hosts`` as a list."""
        return tuple(h.strip() for h in self.webhook_allowed_hosts.split(",") if h.strip())

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
