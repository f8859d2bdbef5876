"""CANN's built-in operator types, so that a custom op never takes the type of one.

A custom-op package whose op type equals a built-in one replaces CANN's operator for every
model on the machine (vendor packages come first when CANN looks an op type up), which is
never what a new op means to do. The list is data (opgen/data/cann_builtin_ops.txt), built from
the public sources of CANN's operator library; its header says which ones. Regenerate it from a
checkout or bare mirror of hicann/ops-math:

    python -m opgen.cann_builtins --write /path/to/ops-math

tests/cann/test_cann_builtins.py checks the file against the mirror when one is present.
"""

from __future__ import annotations

import argparse
import functools
import re
import subprocess
import sys
from collections.abc import Iterable, Sequence
from importlib import resources
from pathlib import Path

DATA_FILE = "cann_builtin_ops.txt"
SOURCE_REPO = "hicann/ops-math"
# Registrations of op types: OP_ADD(Type) after an OpDef (op_host/*_def.cpp) and REG_OP(Type)
# in the graph prototypes (op_graph/*_proto.h).
_REGISTRATION = re.compile(r"\b(?:OP_ADD|REG_OP)\(\s*([A-Z][A-Za-z0-9_]*)\s*[,)]")
# Top-level folders of the repository that are not the shipped library (samples, docs, tests).
_NOT_SHIPPED = ("docs", "examples", "scripts", "tests")


@functools.cache
def builtin_op_types() -> frozenset[str]:
    text = resources.files("opgen.data").joinpath(DATA_FILE).read_text(encoding="utf-8")
    return frozenset(_names(text.splitlines()))


def _names(lines: Iterable[str]) -> list[str]:
    return [s for s in (line.strip() for line in lines) if s and not s.startswith("#")]


def custom_name(op_type: str) -> str:
    """The op type to use instead of a built-in one: Add -> AddCustom."""
    return f"{op_type}Custom"


def clash(op_type: str) -> str | None:
    """The suggested op type when `op_type` is one of CANN's built-in operators, else None."""
    return custom_name(op_type) if op_type in builtin_op_types() else None


# -- regenerating the list from the sources --------------------------------------------------------
def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True,
                          text=True).stdout


def collect(repo: Path) -> tuple[str, list[str]]:
    """(commit, sorted op types) registered in an ops-math checkout or bare mirror (its HEAD)."""
    commit = _git(repo, "rev-parse", "HEAD").strip()
    excluded = [f":(exclude){d}" for d in _NOT_SHIPPED]
    out = subprocess.run(["git", "-C", str(repo), "grep", "-h", "-E", r"(OP_ADD|REG_OP)\(",
                          "HEAD", "--", ".", *excluded],
                         capture_output=True, text=True, check=False).stdout
    found = {m.group(1) for m in _REGISTRATION.finditer(out)}
    return commit, sorted(found)


def render_file(commit: str, names: Sequence[str]) -> str:
    head = [
        "# CANN's built-in operator types: opgen refuses them as a custom op's op_type.",
        f"# Source: the public repository {SOURCE_REPO} (CANN's math, conversion and random",
        "# operators, experimental ones included) at commit " + commit + ": every op type",
        "# registered with OP_ADD (op_host OpDef) or REG_OP (graph prototype), outside its",
        "# docs/, examples/, scripts/ and tests/. metadef (hicann/metadef) registers no op type.",
        "# Regenerate: python -m opgen.cann_builtins --write /path/to/ops-math",
        f"# {len(names)} op types, one per line.",
    ]
    return "\n".join([*head, *names]) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m opgen.cann_builtins",
                                 description="Regenerate or check opgen's list of CANN's "
                                             "built-in op types from an ops-math repository.")
    ap.add_argument("repo", type=Path, help="ops-math checkout or bare git mirror")
    ap.add_argument("--write", action="store_true", help="rewrite the list (default: check)")
    args = ap.parse_args(argv)
    commit, names = collect(args.repo)
    text = render_file(commit, names)
    target = Path(__file__).parent / "data" / DATA_FILE
    if args.write:
        target.write_text(text, encoding="utf-8")
        print(f"{target}: {len(names)} op types from {SOURCE_REPO} {commit}")
        return 0
    current = _names(target.read_text(encoding="utf-8").splitlines())
    if current == names:
        return 0
    added = sorted(set(names) - set(current))
    removed = sorted(set(current) - set(names))
    print(f"{target} is out of date with {args.repo} ({commit}): added {added}, "
          f"removed {removed}; run with --write", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
