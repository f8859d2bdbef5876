"""The project: `[tool.opgen]` configuration and discovery/loading of every spec in it.

The loader and the validator are imported when a spec is loaded, not with this module: a
no-op `opgen generate` reads the configuration and discovers the specs, and loads none.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from opgen.diagnostics import DiagnosticError, DiagnosticSink, SourceLoc
from opgen.naming import C_IDENT_RE, reserved_in

if TYPE_CHECKING:
    from opgen.load import Document
    from opgen.model import OpSpec

SPEC_SUFFIXES = (".yaml", ".yml", ".json")


@dataclass(frozen=True)
class Config:
    root: Path  # the directory holding pyproject.toml (or the cwd without one)
    spec_dir: Path
    output_dir: Path
    package: str
    namespace: str

    def display(self, path: Path) -> str:
        """Paths in messages and generated files: relative to the project root."""
        try:
            return Path(os.path.relpath(path, self.root)).as_posix()
        except ValueError:  # pragma: no cover - another drive on Windows
            return path.as_posix()


def find_root(start: Path) -> Path | None:
    for d in (start, *start.parents):
        if (d / "pyproject.toml").is_file():
            return d
    return None


def load_config(cwd: Path | None = None, *, spec_dir: str | None = None,
                output_dir: str | None = None, package: str | None = None) -> Config:
    """`[tool.opgen]` from the nearest pyproject.toml; flags override it."""
    here = (cwd or Path.cwd()).resolve()
    root = find_root(here) or here
    table: dict[str, object] = {}
    pyproject = root / "pyproject.toml"
    if pyproject.is_file():
        try:
            data = tomllib.loads(pyproject.read_text("utf-8"))
        except tomllib.TOMLDecodeError as exc:
            loc = SourceLoc(str(pyproject))
            raise DiagnosticError.single(loc, f"invalid TOML: {exc}") from None
        raw = data.get("tool", {}).get("opgen", {})
        table = raw if isinstance(raw, dict) else {}
        known = {"spec_dir", "output_dir", "package", "namespace"}
        for key in sorted(set(table) - known):
            raise DiagnosticError.single(
                SourceLoc(str(pyproject)),
                f"unknown key '{key}' in [tool.opgen] (known: {', '.join(sorted(known))})")

    def pick(flag: str | None, key: str, default: str) -> str:
        return flag if flag is not None else str(table.get(key, default))

    # the torch namespace and TensorFlow op prefix default to the package name, so two
    # generated packages load side by side in one process (docs/pytorch.md, "Namespaces")
    pkg = pick(package, "package", "opgen_ops")
    names = {"package": pkg, "namespace": str(table.get("namespace", pkg))}
    for key, value in names.items():
        # both reach generated code as identifiers (Python package, torch/C++ namespace)
        if not C_IDENT_RE.match(value) or reserved_in(value) in ("C++", "Python"):
            where = "--package" if key == "package" and package is not None else \
                f"[tool.opgen] {key}"
            raise DiagnosticError.single(
                SourceLoc(str(pyproject)),
                f"{where} {value!r} must be an identifier (letters, digits and _, not "
                "starting with a digit, not a C++ or Python keyword)")
    return Config(
        root=root,
        spec_dir=(root / pick(spec_dir, "spec_dir", "specs")),
        output_dir=(root / pick(output_dir, "output_dir", "generated")),
        package=names["package"],
        namespace=names["namespace"],
    )


def discover(spec_dir: Path) -> list[Path]:
    """The spec files of the spec dir (not its subfolders), by name."""
    try:
        with os.scandir(spec_dir) as it:
            names = sorted(e.name for e in it
                           if os.path.splitext(e.name)[1] in SPEC_SUFFIXES and _is_file(e))
    except (FileNotFoundError, NotADirectoryError):
        return []
    return [spec_dir / name for name in names]


def _is_file(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_file()  # follows a link, as Path.is_file
    except OSError:
        return False


def documents(path: Path, display: str, sink: DiagnosticSink) -> list[Document]:
    """The op documents of one file: one for an opgen spec, one per op for msopgen JSON."""
    from opgen.load import load_file
    from opgen.msopgen import convert, is_msopgen

    if path.suffix not in SPEC_SUFFIXES:
        sink.error(SourceLoc(display), f"not a spec file: expected one of "
                   f"{', '.join(SPEC_SUFFIXES)}")
        return []
    try:
        doc = load_file(path, display)
    except DiagnosticError as exc:
        sink.extend(exc.diagnostics)
        return []
    if is_msopgen(doc.data):
        return convert(doc, sink)
    return [doc]


@dataclass(frozen=True)
class OpIdentity:
    """What cross-spec checks need of an op (also restored from the generate cache)."""

    op_name: str
    loc: SourceLoc
    grad_op: str | None = None
    grad_loc: SourceLoc | None = None
    op_type: str | None = None
    type_loc: SourceLoc | None = None

    @classmethod
    def of(cls, spec: OpSpec) -> OpIdentity:
        bw = spec.backward
        if bw is None or bw.grad_op is None:
            return cls(spec.op_name, spec.loc, op_type=spec.op_type, type_loc=spec.type_loc)
        return cls(spec.op_name, spec.loc, bw.grad_op, bw.loc or spec.loc, spec.op_type,
                   spec.type_loc)


def cross_check(ops: Sequence[OpIdentity], sink: DiagnosticSink) -> set[str]:
    """Checks across specs: unique op names and op types, gradient ops that exist. Returns
    the names of ops defined more than once or whose op type another op has (their later
    definitions are errors)."""
    from opgen.emit.cann_naming import file_stem

    first: dict[str, OpIdentity] = {}
    types: dict[str, OpIdentity] = {}  # CANN file stem of the op type -> its first op
    duplicated: set[str] = set()
    for op in ops:
        if op.op_name in first:
            sink.error(op.loc, f"op_name '{op.op_name}' is already defined in "
                               f"{first[op.op_name].loc}; every op needs its own name")
            duplicated.add(op.op_name)
            continue
        first[op.op_name] = op
        if op.op_type is None:
            continue
        other = types.setdefault(file_stem(op.op_type), op)
        if other is not op:
            same = (f"is already the op_type of '{other.op_name}'" if other.op_type == op.op_type
                    else f"names the same CANN files ({file_stem(op.op_type)}.*) as op_type "
                         f"'{other.op_type}' of '{other.op_name}'")
            sink.error(op.type_loc or op.loc, f"op_type '{op.op_type}' of '{op.op_name}' {same} "
                       f"({other.type_loc or other.loc}); every op needs its own op_type")
            duplicated.add(op.op_name)
    for op in ops:
        if op.grad_op is not None and op.grad_op not in first:
            sink.error(op.grad_loc or op.loc, f"backward op '{op.grad_op}' of '{op.op_name}' has "
                       "no spec in this project; add specs for it or give per-input gradient "
                       "expressions")
    return duplicated


def load_spec_file(path: Path, config: Config, sink: DiagnosticSink, *,
                   as_typed: bool = False) -> list[OpSpec]:
    """Validate one file (all its errors go to `sink`); its valid ops. Messages name the file
    project-relative, or `as_typed` (the path exactly as the user gave it)."""
    from opgen.validate import build_spec

    if as_typed or not (path.is_absolute() or path.exists()):
        shown = str(path)
    else:
        shown = config.display(path.resolve())
    specs: list[OpSpec] = []
    for doc in documents(path, shown, sink):
        spec = build_spec(doc, sink, spec_dir=str(path.parent))
        if spec is not None:
            specs.append(spec)
    return specs


def load_specs(paths: Sequence[Path], config: Config, sink: DiagnosticSink, *,
               as_typed: bool = False) -> list[OpSpec]:
    """Validate every file (all errors of all files go to `sink`), then cross-spec checks."""
    specs = [spec for path in paths
             for spec in load_spec_file(path, config, sink, as_typed=as_typed)]
    seen: set[str] = set()
    cross_check([OpIdentity.of(s) for s in specs], sink)
    unique = []
    for s in specs:
        if s.op_name not in seen:
            seen.add(s.op_name)
            unique.append(s)
    return unique
