"""The manual: its reference pages say what the code says, it builds offline, and the README
stays a landing page."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from scripts import reference

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"


@pytest.mark.parametrize("name", sorted(reference.PAGES))
def test_reference_page_matches_the_code(name: str) -> None:
    committed = (reference.REFERENCE / name).read_text(encoding="utf-8")
    assert committed == reference.PAGES[name](), (
        f"docs/reference/{name} is out of date: run `{reference.REGENERATE}`"
    )


def test_reference_pages_are_deterministic() -> None:
    assert reference.settings_page() == reference.settings_page()
    assert reference.cli_page() == reference.cli_page()


def test_the_site_builds_offline_and_strictly(tmp_path: Path) -> None:
    environment = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    # No proxy reaches anything: a build that needs the network fails here.
    environment.update(http_proxy="http://127.0.0.1:9", https_proxy="http://127.0.0.1:9")
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path)],
        cwd=ROOT,
        env=environment,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, f"mkdocs build --strict failed:\n{result.stderr}"
    assert (tmp_path / "index.html").is_file()


def test_readme_is_a_landing_page() -> None:
    text = README.read_text(encoding="utf-8")
    lines = text.count("\n")
    assert lines <= 200, f"README.md has {lines} lines; keep it ≤ 200 and move detail to docs/"
    assert "../shared" not in text, "README.md links outside the repository (../shared)"


def test_no_page_links_outside_the_repository() -> None:
    for page in [README, *sorted((ROOT / "docs").rglob("*.md"))]:
        links = re.findall(r"\]\(([^)\s]+)", page.read_text(encoding="utf-8"))
        outside = [link for link in links if "shared/" in link]
        assert not outside, f"{page.relative_to(ROOT)} links outside the repository: {outside}"
