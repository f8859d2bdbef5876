"""`opgen generate`'s file handling end to end: hand-edited files, the manifest, links, temp
files of killed runs, concurrent runs and their lock, pool workers dying with their parent."""

from __future__ import annotations

import json
import os
import select
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from conftest import ROOT, leaky_relu_project
from opgen.cli import main
from opgen.writer import MANIFEST, Banner, banner_state

HOST = "generated/cann/op_host/leaky_relu.cpp"
EDITED = (f"{HOST}:1:1: error: {HOST} was edited by hand (its content no longer matches the "
          "hash in its @generated banner); move the change into the spec or the kernel, or rerun "
          "with --force to overwrite it")


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project with one example op (two with `softmax`), its own generate cache."""
    return leaky_relu_project(tmp_path, monkeypatch)


def _tree(out: Path) -> dict[str, bytes]:
    return {p.relative_to(out).as_posix(): p.read_bytes() for p in sorted(out.rglob("*"))
            if p.is_file() and p.name != ".opgen.lock"}


def _cli(project: Path, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "opgen", *args], cwd=project,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_a_hand_edited_file_is_refused_until_forced(project: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["generate"]) == 0
    host = project / HOST
    host.write_text(host.read_text() + "// my fix\n")
    assert main(["generate"]) == 2
    assert EDITED in capsys.readouterr().err.splitlines()
    assert host.read_text().endswith("// my fix\n")
    assert main(["generate", "--check"]) == 1
    captured = capsys.readouterr()
    assert EDITED in captured.err.splitlines() and "-// my fix\n" in captured.out
    assert main(["generate", "--force"]) == 0
    assert f"opgen: overwrote {HOST}, which was edited by hand" in capsys.readouterr().err
    assert "my fix" not in host.read_text() and banner_state(host.read_bytes()) is Banner.INTACT
    assert main(["generate", "--check"]) == 0


def test_check_finds_an_edit_that_kept_size_and_mtime(project: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["generate"]) == 0
    assert main(["generate"]) == 0  # the incremental cache now knows every output's stat
    host = project / HOST
    st = host.stat()
    text = host.read_text()
    edited = text.replace("LeakyRelu", "LeakyRelU", 1)
    assert edited != text and len(edited) == len(text)
    host.write_text(edited)
    os.utime(host, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert host.stat().st_mtime_ns == st.st_mtime_ns and host.stat().st_size == st.st_size
    capsys.readouterr()
    assert main(["generate", "--check"]) == 1
    captured = capsys.readouterr()
    assert EDITED in captured.err.splitlines()
    assert "+++ b/cann/op_host/leaky_relu.cpp" in captured.out


def test_only_files_the_manifest_lists_are_removed(project: Path) -> None:
    for name in ("softmax.yaml", "softmax.cpp"):
        shutil.copy(ROOT / "specs" / name, project / "specs" / name)
    assert main(["generate"]) == 0
    out = project / "generated"
    listed = set(json.loads((out / MANIFEST).read_text())["files"])
    assert set(_tree(out)) == listed | {MANIFEST}
    # the user's files in the output dir: their own, a copy of a generated file (banner, valid
    # hash, but not listed), and a listed file the user replaced with their own content
    (out / "notes.txt").write_text("mine\n")
    (out / "metadef" / "copy.json").write_bytes((out / "metadef" / "softmax.json").read_bytes())
    (out / "cann" / "softmax_custom.json").write_text("[]\n")
    for name in ("softmax.yaml", "softmax.cpp"):
        (project / "specs" / name).unlink()
    assert main(["generate"]) == 0
    assert not (out / "metadef" / "softmax.json").exists()
    assert not (out / "python" / "my_ops" / "torch" / "softmax.py").exists()
    assert (out / "notes.txt").read_text() == "mine\n"
    assert (out / "metadef" / "copy.json").exists()
    assert (out / "cann" / "softmax_custom.json").read_text() == "[]\n"
    assert not any("softmax" in f for f in
                   json.loads((out / MANIFEST).read_text())["files"])
    assert main(["generate", "--check"]) == 0


def test_a_link_in_the_output_tree_is_refused(project: Path, tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["generate"]) == 0
    (project / "specs" / "leaky_relu.yaml").write_text(
        (project / "specs" / "leaky_relu.yaml").read_text().replace("0.01", "0.02"))
    outside = tmp_path / "outside"
    shutil.move(project / "generated" / "metadef", outside)
    (project / "generated" / "metadef").symlink_to(outside)
    before = _tree(outside)
    capsys.readouterr()
    assert main(["generate"]) == 2
    err = capsys.readouterr().err
    assert (f"generated/metadef:1:1: error: generated/metadef is a symbolic link (to {outside}); "
            "opgen does not write through links in its output directory: replace it with a "
            "real directory") in err.splitlines()
    assert _tree(outside) == before
    assert main(["generate", "--check"]) == 2  # CI reports it too


def test_temp_files_of_a_killed_run_are_removed(project: Path) -> None:
    assert main(["generate"]) == 0
    stale = project / "generated" / "cann" / ".leaky_relu.json.opgen-4242-1.tmp"
    stale.write_text("half a fi")
    mine = project / "generated" / ".draft.tmp"
    mine.write_text("mine")
    assert main(["generate", "--check"]) == 0  # not an output: check ignores it
    assert main(["generate"]) == 0
    assert not stale.exists() and mine.exists()


def test_concurrent_runs_take_turns(project: Path, tmp_path: Path) -> None:
    runs = [_cli(project, "generate"), _cli(project, "generate")]
    results = [(p.wait(timeout=300), *p.communicate()) for p in runs]
    for rc, _out, err in results:
        assert rc == 0, err
    # the same tree as one run alone writes
    alone = tmp_path / "alone"
    shutil.copytree(project, alone, ignore=shutil.ignore_patterns("generated"))
    assert subprocess.run([sys.executable, "-m", "opgen", "generate", "-q"], cwd=alone,
                          check=False).returncode == 0
    assert _tree(project / "generated") == _tree(alone / "generated")
    assert main(["generate", "--check"]) == 0


KILLED_RUN = textwrap.dedent("""
    import os, sys, time
    real, count, out = os.replace, [0], os.path.abspath("generated") + os.sep
    def replace(src, dst):
        count[0] += os.path.abspath(dst).startswith(out)
        if count[0] == 6:  # in the middle of the run: this file exists only as its temp file
            print(src, flush=True)
            time.sleep(600)
        real(src, dst)
    os.replace = replace
    from opgen.cli import main
    sys.exit(main(["generate"]))
""")


def test_kill_9_leaves_no_partial_file_and_the_next_run_is_clean(project: Path) -> None:
    assert main(["generate"]) == 0
    spec = project / "specs" / "leaky_relu.yaml"
    spec.write_text(spec.read_text().replace("0.01", "0.02"))  # most outputs change
    out = project / "generated"
    before = _tree(out)
    proc = subprocess.Popen([sys.executable, "-c", KILLED_RUN], cwd=project,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stderr is not None
    line = proc.stdout.readline().strip()
    proc.send_signal(signal.SIGKILL)
    _out, err = proc.communicate(timeout=60)
    assert line, f"the run ended before writing: {err}"
    temp = Path(line)
    assert temp.is_file() and temp.parent.is_relative_to(out)
    after = _tree(out)
    assert after != before  # some files were written
    for rel, data in after.items():
        if rel != temp.relative_to(out).as_posix():  # every file whole: old or new
            assert banner_state(data) is Banner.INTACT, rel
    assert main(["generate"]) == 0
    assert not temp.exists()
    assert not [p for p in out.rglob("*.tmp")]
    assert main(["generate", "--check"]) == 0


POOL_RUN = textwrap.dedent("""
    import os, time
    from pathlib import Path
    from opgen import gen
    gen.PARALLEL_THRESHOLD = 1
    def work(path, config, out_rel, parses=None):
        print(os.getpid(), flush=True)
        time.sleep(600)
    gen._work = work
    gen._process_many([Path("a"), Path("b")], None, None, "generated")
""")


def _children(pid: int) -> list[int]:
    try:
        return [int(c) for c in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state not in ("Z", "X")


@pytest.mark.skipif(not sys.platform.startswith("linux") or (os.cpu_count() or 1) < 2,
                    reason="prctl(PR_SET_PDEATHSIG); a pool needs two cores")
def test_pool_workers_die_with_the_generate_process() -> None:
    proc = subprocess.Popen([sys.executable, "-c", POOL_RUN], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stderr is not None
    try:
        # each worker prints its pid once it runs a task; read with a deadline (never block on
        # the pipe), and take the process's children if the prints do not both arrive
        workers: list[int] = []
        out = b""
        deadline = time.monotonic() + 60
        while len(workers) < 2 and time.monotonic() < deadline and proc.poll() is None:
            ready, _, _ = select.select([proc.stdout], [], [], 0.2)
            if ready:
                out += os.read(proc.stdout.fileno(), 4096)
                workers = [int(w) for w in out.split() if w.isdigit()]
        if len(workers) < 2 and proc.poll() is None:
            workers = _children(proc.pid)
        if not workers:
            proc.kill()
            pytest.fail(f"no pool started: {proc.communicate()[1].decode(errors='replace')}")
        assert all(_alive(pid) for pid in workers)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=60)
        proc.stdout.close()
        proc.stderr.close()
    deadline = time.monotonic() + 20
    while any(_alive(pid) for pid in workers) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not any(_alive(pid) for pid in workers)
