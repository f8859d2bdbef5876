"""Installed op packages: where a registered op is kept so other processes can find it.

Like CANN's custom op package path (ASCEND_CUSTOM_OPP_PATH), `OPGEN_OPP_PATH` names the
directory; the default is <user cache dir>/opgen/opp. Each op is a folder <op_name>/ holding
its operator library, its metadef and (when registered) its gradient metadef, plus
package.json. Installs are atomic (a complete folder is renamed into place) and serialised by
a file lock, so any number of workers may register the same op at once.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

from filelock import FileLock

from .build import cache_root

PACKAGE_FILE = "package.json"


def opp_dir() -> Path:
    env = os.environ.get("OPGEN_OPP_PATH")
    if env:
        return Path(env).expanduser().resolve()
    return cache_root() / "opp"


def _digest(*parts: bytes) -> str:
    h = hashlib.sha256()
    for p in parts:
        h.update(hashlib.sha256(p).digest())
    return h.hexdigest()


def install(op_name: str, library: Path, metadef: Path, kernel_name: str,
            gradient: Path | None = None) -> Path:
    """Install (or refresh) op `op_name`; identical content is left untouched."""
    root = opp_dir()
    root.mkdir(parents=True, exist_ok=True)
    lib_bytes = library.read_bytes()
    meta_bytes = metadef.read_bytes()
    grad_bytes = gradient.read_bytes() if gradient is not None else b""
    digest = _digest(lib_bytes, meta_bytes, grad_bytes, kernel_name.encode())
    target = root / op_name
    with FileLock(str(root / f".{op_name}.lock")):
        current = read_package(target)
        if current is not None and current.get("digest") == digest:
            return target
        staging = Path(tempfile.mkdtemp(prefix=f".{op_name}.", dir=root))
        try:
            (staging / library.name).write_bytes(lib_bytes)
            (staging / f"{op_name}.json").write_bytes(meta_bytes)
            package: dict[str, Any] = {
                "op_name": op_name, "library": library.name, "metadef": f"{op_name}.json",
                "kernel_name": kernel_name, "digest": digest,
            }
            if gradient is not None:
                (staging / f"{op_name}_grad.json").write_bytes(grad_bytes)
                package["gradient"] = f"{op_name}_grad.json"
            (staging / PACKAGE_FILE).write_text(json.dumps(package, indent=2, sort_keys=True))
            if target.exists():
                trash = Path(tempfile.mkdtemp(prefix=f".{op_name}.old.", dir=root))
                os.replace(target, trash / op_name)
                os.replace(staging, target)
                shutil.rmtree(trash, ignore_errors=True)
            else:
                os.replace(staging, target)
        finally:
            if staging.exists():
                shutil.rmtree(staging, ignore_errors=True)
    return target


def read_package(folder: Path) -> dict[str, Any] | None:
    try:
        data: dict[str, Any] = json.loads((folder / PACKAGE_FILE).read_text("utf-8"))
    except (OSError, json.JSONDecodeError):
        return None
    return data


def find(op_name: str) -> dict[str, Any] | None:
    """The installed package of `op_name` with absolute paths, or None."""
    folder = opp_dir() / op_name
    package = read_package(folder)
    if package is None:
        return None
    out = dict(package)
    for key in ("library", "metadef", "gradient"):
        if key in out:
            out[key] = str(folder / out[key])
    return out
