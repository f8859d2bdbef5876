"""The FileManager: write-if-changed, atomic, never twice, never over user files, pruning."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from opgen.writer import BANNER, FileManager, WriteError, atomic_write

GEN = f"// {BANNER}\n"


def test_writes_only_changed_files(tmp_path: Path) -> None:
    fm = FileManager(tmp_path)
    fm.add("a/x.h", GEN + "one\n")
    fm.add("b.h", GEN + "two\n")
    plan = fm.plan()
    assert plan.written == ["a/x.h", "b.h"]
    fm.commit(plan)
    before = (tmp_path / "a/x.h").stat().st_mtime_ns
    fm2 = FileManager(tmp_path)
    fm2.add("a/x.h", GEN + "one\n")
    fm2.add("b.h", GEN + "changed\n")
    plan2 = fm2.plan(with_diff=True)
    assert plan2.written == ["b.h"] and plan2.unchanged == ["a/x.h"]
    assert "-two\n" in plan2.diff and "+changed\n" in plan2.diff
    fm2.commit(plan2)
    assert (tmp_path / "a/x.h").stat().st_mtime_ns == before


def test_the_same_path_twice_is_refused(tmp_path: Path) -> None:
    fm = FileManager(tmp_path)
    fm.add("x.h", GEN)
    with pytest.raises(WriteError, match=r"two outputs claim x\.h"):
        fm.add("x.h", GEN)


def test_every_output_needs_the_banner(tmp_path: Path) -> None:
    with pytest.raises(WriteError, match="lacks the"):
        FileManager(tmp_path).add("x.h", "no banner\n")


def test_user_files_are_never_overwritten(tmp_path: Path) -> None:
    (tmp_path / "x.h").write_text("my own work\n")
    fm = FileManager(tmp_path)
    fm.add("x.h", GEN)
    with pytest.raises(WriteError, match="refusing to overwrite a file opgen did not generate"):
        fm.plan()
    assert (tmp_path / "x.h").read_text() == "my own work\n"


def test_stale_generated_files_are_removed_but_user_files_kept(tmp_path: Path) -> None:
    (tmp_path / "old").mkdir()
    (tmp_path / "old" / "gone.h").write_text(GEN)
    (tmp_path / "notes.txt").write_text("mine\n")
    fm = FileManager(tmp_path)
    fm.add("new.h", GEN)
    plan = fm.plan()
    assert plan.removed == ["old/gone.h"]
    fm.commit(plan)
    assert not (tmp_path / "old").exists()
    assert (tmp_path / "notes.txt").exists()
    # without pruning (explicit spec list), nothing is removed
    (tmp_path / "other.h").write_text(GEN)
    fm2 = FileManager(tmp_path, prune=False)
    fm2.add("new.h", GEN)
    assert fm2.plan().removed == []


def test_atomic_write_leaves_no_temp_files_and_keeps_mode(tmp_path: Path) -> None:
    target = tmp_path / "f.txt"
    target.write_text("old")
    os.chmod(target, 0o600)
    atomic_write(target, "new")
    assert target.read_text() == "new"
    assert (target.stat().st_mode & 0o777) == 0o600
    assert [p.name for p in tmp_path.iterdir()] == ["f.txt"]


def test_atomic_write_failure_keeps_the_old_file(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "f.txt"
    target.write_text("old")

    def boom(src: str, dst: str) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(OSError, match="disk full"):
        atomic_write(target, "new")
    assert target.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["f.txt"]
