"""The README's quickstart, run as written: every command of its `sh` block in a new folder,
the one edit it asks for (`$EDITOR ...  # reference: ...`) applied as its comment says, no
`backward:` written; then the tests it created and the ones `opgen generate` wrote (the kernel
against the reference, PyTorch opcheck and gradcheck, TensorFlow gradients) must pass."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]


def quickstart_block() -> list[str]:
    """The lines of the first ```sh block under `## Quickstart`, comments kept."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("\n## Quickstart\n", 1)[1]
    block = re.search(r"```sh\n(.*?)```", section, re.S)
    assert block is not None, "README.md: the Quickstart section has no ```sh block"
    return block.group(1).splitlines()


def steps(lines: list[str]) -> list[tuple[str, str]]:
    """(kind, text) per step: ("run", a command), ("edit", the spec line to write); a comment
    continuing the previous line (only `#` on it) is part of that line's comment."""
    out: list[tuple[str, str]] = []
    for line in lines:
        command, _, comment = line.partition("#")
        command = command.strip()
        if not command or command == ". .venv/bin/activate":
            continue  # a comment line, or the venv this test already runs in
        if command.startswith("$EDITOR"):
            match = re.match(r"\s*(\w+):\s*(.+?)\s*$", comment)
            assert match is not None, f"README quickstart: no `key: value` edit in {line!r}"
            out.append(("edit", f"{match.group(1)}: {match.group(2)}"))
            continue
        out.extend(("run", part.strip()) for part in command.split("&&"))
    return out


def test_the_block_is_what_this_test_expects() -> None:
    kinds = [kind for kind, _ in steps(quickstart_block())]
    assert kinds.count("edit") == 1 and kinds[0] == "run" and kinds[1] == "edit"
    commands = [text for kind, text in steps(quickstart_block()) if kind == "run"]
    assert all(c.startswith("opgen ") for c in commands), commands
    assert commands[0].startswith("opgen new "), commands


def _run(argv: list[str], cwd: Path, env: dict[str, str], timeout: float) -> str:
    proc = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=timeout, check=False)
    assert proc.returncode == 0, (f"{shlex.join(argv)} exited {proc.returncode}\n"
                                  f"{proc.stdout[-4000:]}\n{proc.stderr[-4000:]}")
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc.stdout


def test_quickstart_as_written_passes_its_tests(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    pytest.importorskip("tensorflow")
    bin_dir = Path(sys.executable).parent
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"}
    env.pop("PYTHONPATH", None)
    project = tmp_path / "project"
    project.mkdir()
    spec_path: Path | None = None
    for kind, text in steps(quickstart_block()):
        if kind == "edit":
            created = sorted((project / "specs").glob("*.yaml"))
            assert len(created) == 1, created
            spec_path = created[0]
            key = text.split(":", 1)[0]
            lines = spec_path.read_text(encoding="utf-8").splitlines(keepends=True)
            at = [i for i, line in enumerate(lines) if line.startswith(f"{key}:")]
            assert len(at) == 1, f"{spec_path}: expected one `{key}:` line to edit"
            lines[at[0]] = text + "\n"
            spec_path.write_text("".join(lines), encoding="utf-8")
            continue
        argv = shlex.split(text)
        argv[0] = str(bin_dir / argv[0])
        _run(argv, project, env, timeout=600)
    assert spec_path is not None
    assert "backward" not in yaml.safe_load(spec_path.read_text(encoding="utf-8"))
    op = spec_path.stem
    package = project / "generated" / "python" / "opgen_ops"
    tests = [project / "tests" / "ops" / f"test_{op}.py",
             package / "torch" / "tests" / f"test_{op}.py",
             package / "tf" / "tests" / f"test_{op}.py"]
    for path in tests:
        assert path.is_file(), path
    out = _run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                *map(str, tests)], project, env, timeout=1200)
    summary = out.strip().splitlines()[-1]
    assert re.search(r"\b\d+ passed\b", summary) and "failed" not in summary \
        and "skipped" not in summary, summary
    assert re.search(r"def test_\w*gradcheck", tests[1].read_text(encoding="utf-8"))
    assert re.search(r"def test_\w*gradients", tests[2].read_text(encoding="utf-8"))
