"""threadwise: summarize and translate conversation histories."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

INTERFACE_VERSION = "3.6.0"

try:
    __version__ = version("threadwise")
except PackageNotFoundError:  # running from a source tree that is not installed
    __version__ = "0.0.0"
