"""The composition root: builds engines, queues, stores and superpowers once, from the settings.

The CLI builds them and hands the transports what they need (``Services.serving_context``).
"""

from threadwise.services.auth import (
    AuthServices,
    build_auth_services,
    build_client_registry,
    open_database,
)
from threadwise.services.build import build_services
from threadwise.services.container import LanguageModel, Services

__all__ = [
    "AuthServices",
    "LanguageModel",
    "Services",
    "build_auth_services",
    "build_client_registry",
    "build_services",
    "open_database",
]
