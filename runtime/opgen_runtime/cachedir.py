"""Where opgen's caches live. A module of its own (build.py re-exports it) so the compiler can
find its caches without importing the kernel build machinery: a no-op `opgen generate` only
stats files."""

from __future__ import annotations

import os
from pathlib import Path


def cache_root() -> Path:
    """opgen's cache: $OPGEN_CACHE_DIR, else the platform's user cache directory of opgen
    (platformdirs: ~/.cache/opgen or $XDG_CACHE_HOME/opgen on Linux, ~/Library/Caches/opgen on
    macOS). Every cache of the compiler and the runtime lives in a subfolder of it."""
    env = os.environ.get("OPGEN_CACHE_DIR")
    if env:
        return Path(env).expanduser()
    import platformdirs

    return Path(platformdirs.user_cache_dir("opgen", appauthor=False))
