from __future__ import annotations

import hashlib
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from threadwise.engines.model_files import ModelFileError, PackagedModel, prepare_model

CHUNKS = [b"first part ", b"second part ", b"third part"]


@pytest.fixture
def parts(tmp_path: Path) -> Iterator[list[str]]:
    """Three importable part packages, each with get_part_path() as the real ones have."""
    names = []
    for number, chunk in enumerate(CHUNKS, start=1):
        name = f"twtest_part{number}"
        package = tmp_path / "site" / name
        (package / "data").mkdir(parents=True)
        (package / "data" / f"part{number:02d}.bin").write_bytes(chunk)
        (package / "__init__.py").write_text(
            "from pathlib import Path\n"
            "def get_part_path():\n"
            f"    return str(Path(__file__).parent / 'data' / 'part{number:02d}.bin')\n"
        )
        names.append(name)
    sys.path.insert(0, str(tmp_path / "site"))
    yield names
    sys.path.remove(str(tmp_path / "site"))
    for name in names:
        sys.modules.pop(name, None)


def model(names: list[str], sha: str | None = None) -> PackagedModel:
    joined = b"".join(CHUNKS)
    return PackagedModel(
        filename="m.gguf",
        size=len(joined),
        sha256=sha or hashlib.sha256(joined).hexdigest(),
        part_modules=tuple(names),
        install_hint="pip install the parts",
    )


def test_parts_are_joined_in_order_and_verified(parts: list[str], tmp_path: Path) -> None:
    path = prepare_model(model(parts), tmp_path / "cache")
    assert path.read_bytes() == b"".join(CHUNKS)
    # A second call verifies the existing file instead of joining again.
    log: list[str] = []
    assert prepare_model(model(parts), tmp_path / "cache", log.append) == path
    assert log == [f"verifying {path} (SHA-256)"]


def test_hash_mismatch_is_an_error_and_leaves_no_file(parts: list[str], tmp_path: Path) -> None:
    with pytest.raises(ModelFileError, match="expected"):
        prepare_model(model(parts, sha="0" * 64), tmp_path / "cache")
    assert list((tmp_path / "cache").iterdir()) == []


def test_corrupted_cache_file_is_joined_again(parts: list[str], tmp_path: Path) -> None:
    path = prepare_model(model(parts), tmp_path / "cache")
    path.write_bytes(b"corrupted")
    assert prepare_model(model(parts), tmp_path / "cache").read_bytes() == b"".join(CHUNKS)


def test_missing_part_is_an_error_naming_it(parts: list[str], tmp_path: Path) -> None:
    with pytest.raises(ModelFileError, match="twtest_missing"):
        prepare_model(model([*parts, "twtest_missing"]), tmp_path / "cache")
