"""What the transports (REST routes, the WebSocket endpoint) are given by the composition
root: the few objects they use, not everything it builds."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from threadwise.auth.gate import Gatekeeper
from threadwise.auth.grant import ClientCredentialsGrant
from threadwise.config import Settings
from threadwise.metrics import Metrics
from threadwise.organizations.glossaries import GlossaryStore
from threadwise.organizations.policies import OrganizationPolicies
from threadwise.organizations.usage import UsageStore
from threadwise.serving.admission import Admission
from threadwise.serving.jobs import Jobs
from threadwise.serving.lifecycle import Lifecycle
from threadwise.serving.operations import Operations


class Readiness(Protocol):
    """Whether the replica can take traffic, and if not why (``GET /readyz``)."""

    @property
    def ready(self) -> bool: ...

    @property
    def loaded(self) -> bool: ...

    @property
    def load_error(self) -> BaseException | None: ...

    @property
    def engine_name(self) -> str: ...

    def saturated_queues(self) -> list[str]: ...

    def unavailable_engines(self) -> dict[str, str]: ...


@dataclass(frozen=True)
class ServingContext:
    """Everything a transport uses, built once by ``Services`` and kept in ``app.state``."""

    settings: Settings
    gate: Gatekeeper
    grant: ClientCredentialsGrant
    admission: Admission
    operations: Operations
    lifecycle: Lifecycle
    metrics: Metrics
    readiness: Readiness
    # Organizations' data, managed through their own routes.
    policies: OrganizationPolicies
    glossaries: GlossaryStore
    usage: UsageStore
    # Asynchronous jobs (``/jobs``); started and stopped with the app.
    jobs: Jobs
    # The document GET /languages answers (serving/languages.py).
    languages: Callable[[], dict[str, Any]]
    # The language of a text and how sure that is (0 to 1); None for a text without words.
    identify: Callable[[str], tuple[str | None, float]]
