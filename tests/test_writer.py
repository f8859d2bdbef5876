"""The FileManager: write-if-changed, atomic, never twice, never over user files or hand
edits, pruning only what its manifest lists, no writes through links, stale temp files removed."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from opgen.writer import (
    BANNER,
    MANIFEST,
    Banner,
    FileManager,
    WriteError,
    atomic_write,
    banner_state,
    content_hash,
    stamp,
)

GEN = f"// {BANNER}\n"


def test_writes_only_changed_files(tmp_path: Path) -> None:
    fm = FileManager(tmp_path)
    fm.add("a/x.h", GEN + "one\n")
    fm.add("b.h", GEN + "two\n")
    plan = fm.plan()
    assert plan.written == ["a/x.h", "b.h", MANIFEST]
    fm.commit(plan)
    before = (tmp_path / "a/x.h").stat().st_mtime_ns
    fm2 = FileManager(tmp_path)
    fm2.add("a/x.h", GEN + "one\n")
    fm2.add("b.h", GEN + "changed\n")
    plan2 = fm2.plan(with_diff=True)
    assert plan2.written == ["b.h"] and plan2.unchanged == ["a/x.h", MANIFEST]
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


def _generate(out: Path, files: dict[str, str], **kw: bool) -> None:
    fm = FileManager(out, **kw)
    for rel, text in files.items():
        fm.add(rel, text)
    fm.commit(fm.plan())


def test_stale_generated_files_are_removed_but_user_files_kept(tmp_path: Path) -> None:
    _generate(tmp_path, {"old/gone.h": GEN, "new.h": GEN})
    (tmp_path / "notes.txt").write_text("mine\n")
    # a file with the banner (and a valid hash) that opgen's manifest does not list: not opgen's
    (tmp_path / "copied.h").write_text(stamp(GEN + "copied\n"))
    fm = FileManager(tmp_path)
    fm.add("new.h", GEN)
    plan = fm.plan()
    assert plan.removed == ["old/gone.h"]
    fm.commit(plan)
    assert not (tmp_path / "old").exists()
    assert (tmp_path / "notes.txt").exists() and (tmp_path / "copied.h").exists()
    assert json.loads((tmp_path / MANIFEST).read_text())["files"] == ["new.h"]
    # without pruning (explicit spec list), nothing is removed, and the manifest keeps listing
    _generate(tmp_path, {"other.h": GEN, "new.h": GEN})
    fm2 = FileManager(tmp_path, prune=False)
    fm2.add("new.h", GEN)
    assert fm2.plan().removed == []
    fm2.commit(fm2.plan())
    assert json.loads((tmp_path / MANIFEST).read_text())["files"] == ["new.h", "other.h"]


def test_without_a_manifest_nothing_is_removed(tmp_path: Path) -> None:
    (tmp_path / "old.h").write_text(stamp(GEN))  # generated, but listed nowhere
    fm = FileManager(tmp_path)
    fm.add("new.h", GEN)
    plan = fm.plan()
    assert plan.removed == [] and MANIFEST in plan.written
    fm.commit(plan)
    assert (tmp_path / "old.h").exists()


def test_manifest_entries_outside_the_tree_are_ignored(tmp_path: Path) -> None:
    out = tmp_path / "out"
    _generate(out, {"a.h": GEN})
    victim = tmp_path / "victim.h"
    victim.write_text(stamp(GEN))
    data = json.loads((out / MANIFEST).read_text())
    data["files"] += ["../victim.h", str(victim), "./a.h", "x//y.h"]
    data["@generated"] = BANNER  # without its hash: as an opgen without hashes wrote it
    (out / MANIFEST).write_text(json.dumps(data))
    fm = FileManager(out)
    fm.add("b.h", GEN)
    plan = fm.plan()
    assert plan.removed == ["a.h"]
    fm.commit(plan)
    assert victim.exists()
    assert json.loads((out / MANIFEST).read_text())["files"] == ["b.h"]


def test_banner_hash(tmp_path: Path) -> None:
    text = stamp(GEN + "body\n")
    assert text.startswith(f"// {BANNER} [sha256:{content_hash(GEN + 'body' + chr(10))}]\n")
    assert banner_state(text.encode()) is Banner.INTACT
    assert banner_state(text.replace("\n", "\r\n").encode()) is Banner.INTACT  # CRLF checkout
    assert banner_state(text.replace("body", "bodY").encode()) is Banner.EDITED
    assert banner_state(GEN.encode()) is Banner.UNSIGNED  # an opgen without hashes wrote it
    assert banner_state(b"mine\n") is Banner.NONE
    # JSON: inside the banner's string, which stays valid JSON
    js = stamp('{\n  "@generated": "' + BANNER + ' from \\"q\\".",\n  "a": 1\n}\n')
    assert json.loads(js)["@generated"].endswith('from "q". [sha256:' + content_hash(
        '{\n  "@generated": "' + BANNER + ' from \\"q\\".",\n  "a": 1\n}\n') + "]")
    assert banner_state(js.encode()) is Banner.INTACT


def test_hand_edited_files_are_kept_unless_forced(tmp_path: Path) -> None:
    _generate(tmp_path, {"x.h": GEN + "one\n", "gone.h": GEN})
    x = tmp_path / "x.h"
    x.write_text(x.read_text().replace("one", "mine"))
    (tmp_path / "gone.h").write_text((tmp_path / "gone.h").read_text() + "more\n")
    fm = FileManager(tmp_path, shown="out")
    fm.add("x.h", GEN + "two\n")
    plan = fm.plan(with_diff=True)  # check mode reports them
    assert plan.edited == ["x.h", "gone.h"] and plan.removed == ["gone.h"]
    with pytest.raises(WriteError) as exc:
        fm.commit(plan)
    assert str(exc.value).splitlines() == [
        f"out/{rel}:1:1: error: out/{rel} was edited by hand (its content no longer matches "
        "the hash in its @generated banner); move the change into the spec or the kernel, or "
        "rerun with --force to overwrite it" for rel in ("x.h", "gone.h")]
    assert "mine" in x.read_text() and (tmp_path / "gone.h").exists()
    fm = FileManager(tmp_path, force=True)
    fm.add("x.h", GEN + "two\n")
    fm.commit(fm.plan())
    assert x.read_text() == stamp(GEN + "two\n") and not (tmp_path / "gone.h").exists()


def test_links_in_the_output_tree_are_refused(tmp_path: Path) -> None:
    out, outside = tmp_path / "out", tmp_path / "outside"
    outside.mkdir()
    _generate(out, {"sub/x.h": GEN, "y.h": GEN})
    shutil.rmtree(out / "sub")
    (out / "sub").symlink_to(outside)
    fm = FileManager(out, shown="out")
    fm.add("sub/x.h", GEN)
    fm.add("y.h", GEN)
    with pytest.raises(WriteError, match=r"^out/sub:1:1: error: out/sub is a symbolic link "
                                         r"\(to .*outside\); opgen does not write through"):
        fm.plan()
    assert list(outside.iterdir()) == []
    (out / "sub").unlink()
    (out / "y.h").unlink()
    (out / "y.h").symlink_to(outside / "y.h")
    fm = FileManager(out, shown="out")
    fm.add("y.h", GEN)
    with pytest.raises(WriteError, match=r"^out/y\.h:1:1: error: .*a real file$"):
        fm.plan()
    # the output dir itself may be a link (the user chose where it points)
    (out / "y.h").unlink()
    (tmp_path / "link").symlink_to(out)
    _generate(tmp_path / "link", {"y.h": GEN})
    assert (out / "y.h").read_text() == stamp(GEN)


def test_stale_temp_files_are_removed(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    stale = [tmp_path / ".x.h.opgen-99999-1.tmp", tmp_path / "sub" / ".y.h.opgen-2-3.tmp"]
    for p in stale:
        p.write_text("half a fi")
    others = [tmp_path / ".x.h.tmp", tmp_path / "notes.opgen-1-2.tmp", tmp_path / ".x.1.2.tmp"]
    for p in others:
        p.write_text("mine")
    fm = FileManager(tmp_path)
    fm.add("x.h", GEN)
    plan = fm.plan(with_diff=True)
    assert plan.temp_files == [".x.h.opgen-99999-1.tmp", "sub/.y.h.opgen-2-3.tmp"]
    assert not plan.diff[0].startswith("--- a/.")  # not outputs: no diff, no staleness
    fm.commit(plan)
    assert not any(p.exists() for p in stale) and all(p.exists() for p in others)


def test_atomic_write_leaves_no_temp_files_and_keeps_mode(tmp_path: Path) -> None:
    target = tmp_path / "f.txt"
    target.write_text("old")
    os.chmod(target, 0o600)
    atomic_write(target, "new")
    assert target.read_text() == "new"
    assert (target.stat().st_mode & 0o777) == 0o600
    assert [p.name for p in tmp_path.iterdir()] == ["f.txt"]


def test_a_commit_creates_new_files_and_keeps_the_modes_of_changed_ones(tmp_path: Path) -> None:
    # files the plan found absent are written without a look at the path (fresh); a changed
    # one keeps its mode
    fm = FileManager(tmp_path)
    fm.add("a/b/new.h", GEN)
    fm.add("old.h", GEN)
    (tmp_path / "old.h").write_text(GEN + "\n")
    os.chmod(tmp_path / "old.h", 0o600)
    plan = fm.plan()
    assert plan.created == {"a/b/new.h", MANIFEST}
    assert sorted(plan.written) == sorted(["a/b/new.h", "old.h", MANIFEST])
    fm.commit(plan)
    assert ((tmp_path / "a/b/new.h").stat().st_mode & 0o777) == 0o644
    assert ((tmp_path / "old.h").stat().st_mode & 0o777) == 0o600


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
