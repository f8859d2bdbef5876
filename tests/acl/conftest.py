"""Programs of the acl tests: built with `opgen config` flags or run with `opgen run`, in a
private opgen cache."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

PROGRAMS = Path(__file__).resolve().parent / "programs"


@dataclass
class Result:
    returncode: int
    stdout: str
    stderr: str


def opgen(*args: str, cwd: Path | None = None, env: dict[str, str] | None = None,
          timeout: int = 300) -> Result:
    """`opgen ARGS` in a subprocess, as a user's shell runs it."""
    proc = subprocess.run([sys.executable, "-m", "opgen", *args], cwd=cwd, capture_output=True,
                          text=True, check=False, env={**os.environ, **(env or {})},
                          timeout=timeout)
    return Result(proc.returncode, proc.stdout, proc.stderr)


def config(*options: str) -> list[str]:
    out = opgen("config", *options)
    assert out.returncode == 0, out.stderr
    return shlex.split(out.stdout)


@pytest.fixture(scope="session", autouse=True)
def _private_cache(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Programs and the toolkit go to a cache of this session (the tests see a fresh build)."""
    os.environ["OPGEN_CACHE_DIR"] = str(tmp_path_factory.mktemp("opgen-cache"))
