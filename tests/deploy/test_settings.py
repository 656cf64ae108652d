"""Every THREADWISE_* variable that deploy/ names is one the service reads."""

from __future__ import annotations

import re

from tests.deploy.conftest import DEPLOY
from threadwise.config import CONFIG_FILE_VARIABLE, ENV_PREFIX, Settings
from threadwise.engines.cpu_levels import LEVEL_VARIABLE

_NAME = re.compile(rf"\b{ENV_PREFIX}[A-Z0-9_]*[A-Z0-9]")


def test_every_setting_named_in_deploy_exists() -> None:
    known = {ENV_PREFIX + field.upper() for field in Settings.model_fields}
    # ... and the two read before any setting: the settings file's, and the build's CPU level.
    known |= {CONFIG_FILE_VARIABLE, LEVEL_VARIABLE}
    used: dict[str, set[str]] = {}
    for path in sorted(p for p in DEPLOY.rglob("*") if p.is_file()):
        for name in _NAME.findall(path.read_text()):
            used.setdefault(name, set()).add(str(path.relative_to(DEPLOY)))
    assert used, "deploy/ names no setting: is the pattern right?"
    unknown = {name: sorted(paths) for name, paths in used.items() if name not in known}
    assert unknown == {}, "not settings of threadwise/config.py"
