"""Kernel and framework libraries are linked with gold when it is installed (build.linker_flags);
a link that fails with it runs once more without it, and gold is not asked for again."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from opgen_runtime import build


def test_a_failed_gold_link_is_run_again_without_gold(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(build._GOLD, "usable", True)
    monkeypatch.setattr(shutil, "which", lambda name, *a, **k: "/usr/bin/ld.gold"
                        if name == "ld.gold" else None)
    assert build.linker_flags("g++") == ("-fuse-ld=gold",)
    src = tmp_path / "f.cc"
    src.write_text("extern \"C\" int f() { return 7; }\n")
    obj = tmp_path / "f.o"
    subprocess.run(["g++", "-fPIC", "-c", str(src), "-o", str(obj)], check=True)
    # a compiler driver that cannot use gold (as where binutils ships without it)
    cxx = tmp_path / "cxx"
    cxx.write_text('#!/bin/sh\nfor a in "$@"; do [ "$a" = -fuse-ld=gold ] && '
                   '{ echo "no gold here" >&2; exit 1; }; done\nexec g++ "$@"\n')
    cxx.chmod(0o755)
    out = tmp_path / "libf.so"
    proc = build.link([str(cxx), "-shared", *build.linker_flags(str(cxx)), "-o", str(out),
                       str(obj)])
    assert proc.returncode == 0, proc.stderr
    assert out.is_file()
    assert build._GOLD["usable"] is False
    assert build.linker_flags(str(cxx)) == ()


def test_a_link_that_fails_for_another_reason_reports_its_own_error(tmp_path: Path) -> None:
    proc = build.link(["g++", "-shared", *build.linker_flags("g++"), "-o",
                       str(tmp_path / "x.so"), str(tmp_path / "missing.o")])
    assert proc.returncode != 0
    assert "missing.o" in proc.stderr
