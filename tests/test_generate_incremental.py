"""The no-op `opgen generate`: what it skips (loading, parsing, rendering, the heavy imports)
and every change that makes it do the work again; the process pool gives the serial result."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from conftest import ROOT, leaky_relu_project
from opgen import gen
from opgen.cli import main

OUT = "generated"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """leaky_relu, its kernel including a header of the project, its own generate cache."""
    root = leaky_relu_project(tmp_path, monkeypatch)
    kernel = root / "specs" / "leaky_relu.cpp"
    kernel.write_text(kernel.read_text().replace(
        '#include "kernel_operator.h"\n', '#include "kernel_operator.h"\n#include "helper.h"\n', 1))
    (root / "specs" / "helper.h").write_text("#pragma once\nconstexpr int HELPER = 1;\n")
    return root


def _generate(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    capsys.readouterr()
    code = main(["generate", *args])
    return code, capsys.readouterr().out


def _tree(out: Path) -> dict[str, bytes]:
    return {p.relative_to(out).as_posix(): p.read_bytes() for p in sorted(out.rglob("*"))
            if p.is_file() and p.name != ".opgen.lock"}


NO_OP = """
import sys
from opgen.cli import main
code = main(["generate", "-q"])
heavy = sorted(m for m in ("jinja2", "clang.cindex", "jsonschema", "yaml", "sympy",
                           "opgen.pipeline", "opgen.validate", "opgen.kernel_frontend")
               if m in sys.modules)
print(code, heavy)
"""


def test_a_no_op_run_loads_parses_and_renders_nothing(
        project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _generate(capsys)[0] == 0
    env = {**os.environ, "OPGEN_CACHE_DIR": os.environ["OPGEN_CACHE_DIR"]}
    run = subprocess.run([sys.executable, "-c", NO_OP], cwd=project, env=env,
                         capture_output=True, text=True, check=False)
    assert run.stdout.strip() == "0 []", run.stderr
    code, out = _generate(capsys)
    assert code == 0 and " 0 file(s) written, 0 removed," in out
    assert main(["generate", "--check"]) == 0


def _edit(path: str, old: str, new: str) -> Callable[[Path], None]:
    def change(root: Path) -> None:
        p = root / path
        p.write_text(p.read_text().replace(old, new, 1))
    return change


def _delete(path: str) -> Callable[[Path], None]:
    return lambda root: (root / path).unlink()


CHANGES = {  # change -> an output it must rewrite
    "spec": (_edit("specs/leaky_relu.yaml", "0.01", "0.02"), "metadef/leaky_relu.json"),
    "kernel": (_edit("specs/leaky_relu.cpp", '#include "helper.h"\n',
                     '#include "helper.h"\n// changed\n'), None),
    "included header": (_edit("specs/helper.h", "HELPER = 1", "HELPER = 2"), None),
    "a per-op output deleted": (_delete(f"{OUT}/metadef/leaky_relu.json"),
                                "metadef/leaky_relu.json"),
    "a package-level output deleted": (_delete(f"{OUT}/index.json"), "index.json"),
    "the manifest deleted": (_delete(f"{OUT}/opgen-manifest.json"), "opgen-manifest.json"),
}


@pytest.mark.parametrize("change", sorted(CHANGES))
def test_the_no_op_path_notices_a_change(project: Path, capsys: pytest.CaptureFixture[str],
                                         change: str) -> None:
    assert _generate(capsys)[0] == 0
    out = project / OUT
    before = _tree(out)
    assert _generate(capsys, "-q")[0] == 0  # a no-op run
    assert _tree(out) == before
    apply, rewritten = CHANGES[change]
    apply(project)
    assert main(["generate", "--check"]) == 1
    code, text = _generate(capsys)
    assert code == 0
    assert " 0 file(s) written," not in text, text
    after = _tree(out)
    assert after != before or rewritten is not None
    if rewritten is not None:
        assert rewritten in after
    assert main(["generate", "--check"]) == 0
    assert _generate(capsys)[1].count(" 0 file(s) written, 0 removed,") == 1


def test_a_kernel_or_header_change_reaches_the_copied_sources(
        project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _generate(capsys)[0] == 0
    copies = [p for p in (project / OUT).rglob("helper.h")]
    assert copies, "the kernel's header is copied with it"
    CHANGES["included header"][0](project)
    assert _generate(capsys)[0] == 0
    assert all("HELPER = 2" in p.read_text() for p in copies)


def test_the_no_op_path_notices_an_edited_output(project: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    assert _generate(capsys)[0] == 0
    host = project / OUT / "cann" / "op_host" / "leaky_relu.cpp"
    host.write_text(host.read_text() + "// my fix\n")
    assert main(["generate"]) == 2  # refused: edited by hand
    assert host.read_text().endswith("// my fix\n")


def test_the_no_op_path_notices_a_removed_spec(project: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    shutil.copy(ROOT / "specs" / "softmax.yaml", project / "specs")
    shutil.copy(ROOT / "specs" / "softmax.cpp", project / "specs")
    assert _generate(capsys)[0] == 0
    assert (project / OUT / "metadef" / "softmax.json").exists()
    (project / "specs" / "softmax.yaml").unlink()
    code, text = _generate(capsys)
    assert code == 0 and " 0 removed," not in text
    assert not (project / OUT / "metadef" / "softmax.json").exists()


def test_the_no_op_path_refuses_a_link_in_the_output_tree(
        project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _generate(capsys)[0] == 0
    outside = tmp_path / "outside"
    shutil.copytree(project / OUT / "metadef", outside, copy_function=shutil.copy2)
    shutil.rmtree(project / OUT / "metadef")
    (project / OUT / "metadef").symlink_to(outside)  # the same files, through a link
    assert main(["generate"]) == 2


def test_the_no_op_path_removes_a_killed_runs_temp_file(
        project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _generate(capsys)[0] == 0
    stale = project / OUT / "metadef" / ".leaky_relu.json.opgen-4242-1.tmp"
    stale.write_text("half a fi")
    assert _generate(capsys)[0] == 0
    assert not stale.exists()


@pytest.mark.skipif((os.cpu_count() or 1) < 2, reason="a pool needs two cores")
def test_the_pool_gives_the_serial_result(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    trees = []
    for threshold in (10_000, 1):  # serial, then every spec file through the pool
        root = _pool_project(tmp_path / f"proj{threshold}")
        monkeypatch.setenv("OPGEN_CACHE_DIR", str(tmp_path / f"cache{threshold}"))
        monkeypatch.setattr(gen, "PARALLEL_THRESHOLD", threshold)
        monkeypatch.chdir(root)
        assert _generate(capsys)[0] == 0
        trees.append(_tree(root / OUT))
    assert trees[0] == trees[1]


def _pool_project(root: Path) -> Path:
    (root / "specs").mkdir(parents=True)
    (root / "pyproject.toml").write_text(
        '[tool.opgen]\nspec_dir = "specs"\noutput_dir = "generated"\npackage = "my_ops"\n')
    for name in ("leaky_relu", "softmax"):
        for suffix in (".yaml", ".cpp"):
            shutil.copy(ROOT / "specs" / f"{name}{suffix}", root / "specs")
    return root


@pytest.mark.skipif(not sys.platform.startswith("linux") or (os.cpu_count() or 1) < 2,
                    reason="the pool's workers stage outputs on Linux, with two cores")
def test_a_pooled_run_that_fails_leaves_nothing_behind(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """The workers write their outputs to temp files as they go: a run that then fails (an
    error in another spec file) removes them, and the folders it made for them."""
    root = _pool_project(tmp_path / "proj")
    spec = root / "specs" / "softmax.yaml"
    spec.write_text(spec.read_text().replace("op_name: softmax", "op_name: leaky_relu"))
    monkeypatch.setenv("OPGEN_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(gen, "PARALLEL_THRESHOLD", 1)
    monkeypatch.chdir(root)
    assert _generate(capsys)[0] == 2
    assert not (root / OUT).exists()
    (root / OUT / "metadef").mkdir(parents=True)
    assert _generate(capsys)[0] == 2
    assert sorted(p.relative_to(root / OUT).as_posix() for p in (root / OUT).rglob("*")) == [
        ".opgen.lock", "metadef"]


@pytest.mark.skipif(not sys.platform.startswith("linux") or (os.cpu_count() or 1) < 2,
                    reason="the pool's workers stage outputs on Linux, with two cores")
def test_a_pooled_run_never_overwrites_a_users_file(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    root = _pool_project(tmp_path / "proj")
    monkeypatch.setenv("OPGEN_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(gen, "PARALLEL_THRESHOLD", 1)
    monkeypatch.chdir(root)
    assert _generate(capsys)[0] == 0
    before = _tree(root / OUT)
    mine = root / OUT / "metadef" / "softmax.json"
    mine.write_text("mine\n")
    edited = root / OUT / "metadef" / "leaky_relu.json"
    edited.write_text(edited.read_text() + " ")
    (root / "specs" / "softmax.yaml").write_text(
        (root / "specs" / "softmax.yaml").read_text() + "\n# changed\n")
    (root / "specs" / "leaky_relu.yaml").write_text(
        (root / "specs" / "leaky_relu.yaml").read_text() + "\n# changed\n")
    code = main(["generate"])
    err = capsys.readouterr().err
    assert code == 2
    assert "generated/metadef/softmax.json:1:1: error: refusing to overwrite a file" in err
    assert mine.read_text() == "mine\n"
    assert not list((root / OUT).rglob("*.tmp"))
    mine.unlink()
    assert main(["generate"]) == 2  # the hand-edited one: only with --force
    assert "was edited by hand" in capsys.readouterr().err
    assert not list((root / OUT).rglob("*.tmp"))
    assert main(["generate", "--force"]) == 0
    after = _tree(root / OUT)
    assert after.keys() == before.keys()
    assert main(["generate", "--check"]) == 0


@pytest.mark.parametrize("enabled", [True, False], ids=["collector-on", "collector-off"])
def test_a_run_pauses_the_garbage_collector_and_gives_it_back(
        project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
        enabled: bool) -> None:
    import gc

    seen: list[bool] = []
    real = gen._finish

    def spy(*args: object, **kwargs: object) -> object:
        seen.append(gc.isenabled())
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(gen, "_finish", spy)
    was = gc.isenabled()
    (gc.enable if enabled else gc.disable)()
    try:
        code, _ = _generate(capsys)
        assert code == 0
        assert seen == [False]  # off while the run holds every op's outputs
        assert gc.isenabled() is enabled  # and as it was after
    finally:
        (gc.enable if was else gc.disable)()
