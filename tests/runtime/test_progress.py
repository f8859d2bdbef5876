"""Progress of slow builds on stderr (opgen_runtime.progress), OPGEN_QUIET, and the cache
location (platformdirs, overridden by OPGEN_CACHE_DIR)."""

from __future__ import annotations

import logging
import os
import re
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import platformdirs
import pytest

from opgen_runtime import build, oppkg, progress

ROOT = Path(__file__).resolve().parents[2]

# a first use: the operator library of leaky_relu (two kernel builds, one per dtype column);
# every step announced (a variant may now build in less than the one-second threshold)
BUILD = textwrap.dedent(f"""
    from opgen_runtime import progress
    progress.THRESHOLD = 0.0
    from opgen_runtime.metadef import load
    from opgen_runtime.oplib import build_operator_library
    build_operator_library(load({str(ROOT / "generated" / "metadef" / "leaky_relu.json")!r}))
    """)
START = re.compile(r"^opgen: compiling leaky_relu\.cpp \((DTYPE_X=\w+, DTYPE_Y=\w+)\) \.\.\.$")
END = re.compile(r"^opgen: compiling leaky_relu\.cpp \((DTYPE_X=\w+, DTYPE_Y=\w+)\): done in "
                 r"\d+\.\d s$")


def _build_in_a_fresh_process(cache: Path, **env: str) -> int:
    """The build in a process of its own (no logging configured, as a user's script), with its
    stderr going where the test's goes (capfd)."""
    return subprocess.run([sys.executable, "-c", BUILD], check=False, timeout=600,
                          env={**os.environ, "OPGEN_CACHE_DIR": str(cache), **env}).returncode


def test_a_first_build_logs_its_start_and_end_on_stderr(
        tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    assert _build_in_a_fresh_process(tmp_path / "cache", OPGEN_QUIET="") == 0
    lines = capfd.readouterr().err.splitlines()
    starts = [m[1] for m in map(START.match, lines) if m]
    ends = [m[1] for m in map(END.match, lines) if m]
    assert sorted(starts) == sorted(ends) == ["DTYPE_X=float, DTYPE_Y=float",
                                              "DTYPE_X=half, DTYPE_Y=half"], lines
    for variant in starts:  # its start line comes before its end line
        first = next(i for i, ln in enumerate(lines) if variant in ln)
        assert lines[first].endswith(" ..."), lines
    # a second use finds the cache: nothing to say
    assert _build_in_a_fresh_process(tmp_path / "cache", OPGEN_QUIET="") == 0
    assert "opgen: " not in capfd.readouterr().err


def test_opgen_quiet_silences_them(tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    assert _build_in_a_fresh_process(tmp_path / "cache", OPGEN_QUIET="1") == 0
    assert capfd.readouterr().err == ""


@contextmanager
def no_app_logging() -> Iterator[None]:
    """This process as an application that configured no logging: pytest's handlers (added to
    the root logger around each test's call) are off meanwhile."""
    root = logging.getLogger()
    saved = root.handlers[:]
    for h in saved:
        root.removeHandler(h)
    try:
        yield
    finally:
        for h in saved:
            root.addHandler(h)


@pytest.fixture
def unconfigured(monkeypatch: pytest.MonkeyPatch) -> None:
    """Steps announced at once, the command line's forcing off, OPGEN_QUIET unset."""
    monkeypatch.setattr(progress, "_FORCED", False)
    monkeypatch.setattr(progress, "THRESHOLD", 0.0)
    monkeypatch.delenv(progress.QUIET_ENV, raising=False)


@pytest.mark.usefixtures("unconfigured")
def test_steps_and_where_their_lines_go(capsys: pytest.CaptureFixture[str],
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    with no_app_logging(), progress.step("linking libx.so"):
        pass
    err = capsys.readouterr().err
    assert re.fullmatch(r"opgen: linking libx\.so \.\.\.\nopgen: linking libx\.so: done in "
                        r"\d+\.\d s\n", err), err
    with no_app_logging(), pytest.raises(RuntimeError), progress.step("compiling y"):
        raise RuntimeError("g++ failed")
    assert re.search(r"^opgen: compiling y: failed after \d+\.\d s$", capsys.readouterr().err,
                     re.M)
    monkeypatch.setenv(progress.QUIET_ENV, "1")
    with no_app_logging(), progress.step("compiling z"):
        pass
    assert capsys.readouterr().err == ""


@pytest.mark.usefixtures("unconfigured")
def test_quick_steps_say_nothing(capsys: pytest.CaptureFixture[str],
                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(progress, "THRESHOLD", 0.5)
    with no_app_logging(), progress.step("a cache hit"):
        pass
    assert capsys.readouterr().err == ""
    with no_app_logging(), progress.step("a slow one"):
        time.sleep(0.8)
    err = capsys.readouterr().err
    assert err.startswith("opgen: a slow one ...\nopgen: a slow one: done in "), err


@pytest.mark.usefixtures("unconfigured")
def test_the_applications_logging_config_decides(capsys: pytest.CaptureFixture[str]) -> None:
    root = logging.getLogger()
    mine = logging.StreamHandler(sys.stderr)  # as logging.basicConfig(...) adds
    mine.setFormatter(logging.Formatter("APP %(name)s %(message)s"))
    level = root.level
    with no_app_logging():
        root.addHandler(mine)
        try:
            root.setLevel(logging.WARNING)
            with progress.step("compiling w"):
                pass
            assert capsys.readouterr().err == ""  # INFO is below the application's level
            root.setLevel(logging.INFO)
            with progress.step("compiling i"):
                pass
            # the application's handler and format, not opgen's
            assert capsys.readouterr().err.splitlines()[0] == "APP opgen_runtime compiling i ..."
        finally:
            root.removeHandler(mine)
            root.setLevel(level)


def test_the_cache_comes_from_platformdirs(monkeypatch: pytest.MonkeyPatch,
                                           tmp_path: Path) -> None:
    asked: list[tuple[object, ...]] = []

    def user_cache_dir(*args: object, **kwargs: object) -> str:
        asked.append((*args, *kwargs.items()))
        return str(tmp_path / "platform-cache" / "opgen")

    monkeypatch.setattr(platformdirs, "user_cache_dir", user_cache_dir)
    monkeypatch.delenv("OPGEN_CACHE_DIR", raising=False)
    monkeypatch.delenv("OPGEN_OPP_PATH", raising=False)
    assert build.cache_root() == tmp_path / "platform-cache" / "opgen"
    assert build.cache_dir() == tmp_path / "platform-cache" / "opgen" / "kernels"
    assert oppkg.opp_dir() == (tmp_path / "platform-cache" / "opgen" / "opp").resolve()
    assert asked and asked[0][0] == "opgen"
    monkeypatch.setenv("OPGEN_CACHE_DIR", str(tmp_path / "mine"))  # the override
    assert build.cache_root() == tmp_path / "mine"
    assert build.cache_dir() == tmp_path / "mine" / "kernels"


def test_the_platform_default_on_linux(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    if not sys.platform.startswith("linux"):
        pytest.skip("XDG_CACHE_HOME is Linux's")
    monkeypatch.delenv("OPGEN_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert build.cache_root() == tmp_path / "xdg" / "opgen"
    monkeypatch.delenv("XDG_CACHE_HOME")
    assert build.cache_root() == Path.home() / ".cache" / "opgen"
