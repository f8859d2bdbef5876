"""Where opgen's caches live. A module of its own (build.py re-exports it) so the compiler can
find its caches without importing the kernel build machinery: a no-op `opgen generate` only
stats files."""

from __future__ import annotations

import os
from pathlib import Path

CACHE_ENV = "OPGEN_CACHE_DIR"


def cache_root() -> Path:
    """opgen's cache: $OPGEN_CACHE_DIR, else the platform's user cache directory of opgen
    (platformdirs: ~/.cache/opgen or $XDG_CACHE_HOME/opgen on Linux, ~/Library/Caches/opgen on
    macOS). Every cache of the compiler and the runtime lives in a subfolder of it."""
    env = os.environ.get(CACHE_ENV)
    if env:
        return Path(env).expanduser()
    import platformdirs

    return Path(platformdirs.user_cache_dir("opgen", appauthor=False))


PREBUILT_ENV = "OPGEN_PREBUILT_DIR"


def prebuilt_root() -> Path | None:
    """The install's read-only layer of the cache: the parts that depend on nothing a user
    writes (the simulator runtime object, the raw-pointer scan, the precompiled simulator and
    framework headers), built once when opgen is installed (`opgen prebuild`, which `make
    install` runs), as a wheel ships its compiled parts. $OPGEN_PREBUILT_DIR, else
    <sys.prefix>/share/opgen/prebuilt; OPGEN_PREBUILT_DIR=0 (or empty) turns the layer off.
    Entries are named by the same content hashes as the cache's, so a stale one is never found:
    a changed compiler, flag or header builds into the user cache as before."""
    env = os.environ.get(PREBUILT_ENV)
    if env is not None:
        return Path(env).expanduser() if env not in ("", "0") else None
    import sys

    return Path(sys.prefix) / "share" / "opgen" / "prebuilt"


def prebuilt(path: Path) -> Path | None:
    """`path` (inside cache_root()) as the prebuilt layer holds it, when it does."""
    layer = prebuilt_root()
    if layer is None:
        return None
    try:
        found = layer / path.relative_to(cache_root())
    except ValueError:
        return None
    return found if found != path and found.exists() else None
