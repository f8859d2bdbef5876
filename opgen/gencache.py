"""Incremental generation: what each spec file produced last time, and what it read.

A spec file whose content, kernel and included headers (by size and mtime), opgen version
and configuration are unchanged, and whose outputs on disk still match what was written, is
not loaded, parsed or rendered again. The package-level outputs (and the manifest) of the
last full run are recorded with the spec files' keys they came from: when every spec file is
current, and those outputs too, a no-op `opgen generate` only stats files (one pass over the
output dir, writer.scan_tree) and imports neither the validator, libclang nor Jinja. The
cache is a speed-up only: deleting it (or a stale or unreadable one) costs a full run.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
from collections.abc import Iterable
from dataclasses import dataclass, field, fields
from importlib import resources
from pathlib import Path
from typing import Any

from opgen import __version__
from opgen.diagnostics import Diagnostic, Severity, SourceLoc
from opgen.writer import Tree, atomic_write
from opgen_runtime.cachedir import cache_root

CACHE_FORMAT = 3
# Files outside the opgen package that emitters copy into their outputs (package resource,
# path): part of the fingerprint.
EXTRA_INPUTS = (("opgen_runtime.include", "opgen_host/tiling_policy.h"),)


@functools.cache
def fingerprint() -> str:
    """Hash of every file of the compiler (code, templates, schema, stub headers)."""
    h = hashlib.sha256(f"{CACHE_FORMAT}:{__version__}".encode())
    roots = [Path(str(resources.files("opgen"))), Path(str(resources.files("opgen.templates")))]
    for root in roots:
        for dirpath, dirs, names in os.walk(root):
            dirs[:] = sorted(d for d in dirs if d != "__pycache__")
            for name in sorted(names):
                if name.endswith((".py", ".j2", ".json", ".h")):
                    p = Path(dirpath) / name
                    h.update(p.relative_to(root).as_posix().encode())
                    h.update(p.read_bytes())
    for package, name in EXTRA_INPUTS:
        h.update(f"{package}:{name}".encode())
        with contextlib.suppress(OSError, ModuleNotFoundError):
            h.update(resources.files(package).joinpath(name).read_bytes())
    return h.hexdigest()


def sha(content: str | bytes) -> str:
    data = content.encode("utf-8") if isinstance(content, str) else content
    return hashlib.sha256(data).hexdigest()


def stat_of(path: str | Path, *, follow_symlinks: bool = True) -> tuple[int, int] | None:
    try:
        st = os.stat(path, follow_symlinks=follow_symlinks)
    except OSError:
        return None
    return st.st_size, st.st_mtime_ns


@dataclass
class OpRecord:
    """One op of a spec file: enough for cross-spec checks and package-level outputs."""

    op_name: str
    op_type: str
    spec_path: str
    loc: tuple[str, int, int]
    grad_op: str | None
    grad_loc: tuple[str, int, int] | None
    socs: tuple[str, ...] = ()
    outputs: dict[str, tuple[str, int, int]] = field(default_factory=dict)  # rel -> sha,size,mtime
    type_loc: tuple[str, int, int] | None = None  # where op_type is given

    @property
    def source_loc(self) -> SourceLoc:
        return SourceLoc(*self.loc)


@dataclass
class Entry:
    key: str
    deps: dict[str, tuple[int, int]]
    ops: list[OpRecord]
    diagnostics: list[tuple[str, int, int, str, str]]

    def replay(self) -> list[Diagnostic]:
        return [Diagnostic(SourceLoc(p, line, col), msg, Severity(sev))
                for p, line, col, sev, msg in self.diagnostics]


class GenerateCache:
    def __init__(self, root: Path, output_dir: Path, settings: str) -> None:
        ident = sha(f"{root}\0{output_dir}")[:24]
        self.path = cache_root() / "generate" / f"{ident}.json"
        self.settings = settings
        self.entries: dict[str, Entry] = {}
        self._raw: dict[str, Any] = {}  # entries as read, turned into Entry on first use
        # the last full run's package-level outputs: {"key", "outputs": rel -> sha,size,mtime}
        self.package: dict[str, Any] | None = None
        self.dirty = False
        with contextlib.suppress(OSError, ValueError, KeyError, TypeError):
            data = json.loads(self.path.read_text("utf-8"))
            if data["fingerprint"] == fingerprint() and data["settings"] == settings:
                self._raw = dict(data["entries"])
                package = data.get("package")
                if isinstance(package, dict) and isinstance(package.get("outputs"), dict):
                    self.package = package

    def entry(self, spec: str) -> Entry | None:
        entry = self.entries.get(spec)
        if entry is None and spec in self._raw:
            raw = self._raw.pop(spec)
            with contextlib.suppress(KeyError, TypeError, ValueError):
                ops = [OpRecord(**{**o, "loc": tuple(o["loc"]), "socs": tuple(o["socs"]),
                                   "grad_loc": tuple(o["grad_loc"]) if o["grad_loc"] else None,
                                   "type_loc": tuple(o["type_loc"]) if o["type_loc"] else None,
                                   # [digest, size, mtime] lists as read: unpacked alike
                                   "outputs": o["outputs"]})
                       for o in raw["ops"]]
                entry = self.entries[spec] = Entry(
                    raw["key"], {k: tuple(v) for k, v in raw["deps"].items()}, ops,
                    [tuple(d) for d in raw["diagnostics"]])
        return entry

    def key(self, content: bytes) -> str:
        return sha(content + b"\0" + self.settings.encode())

    def lookup(self, spec: str, content: bytes, tree: Tree, *,
               verify: bool = False) -> Entry | None:
        """The entry of spec if it is current and its outputs on disk are as written: by size
        and mtime, or with `verify` (--check) by their content's digest. `tree` is the output
        dir as scanned (a file reached through a link is not current)."""
        entry = self.entry(spec)
        if entry is None or entry.key != self.key(content):
            return None
        for dep, recorded in entry.deps.items():
            if stat_of(dep) != tuple(recorded):
                return None
        for op in entry.ops:
            if not self._current(op.outputs, tree, verify):
                return None
        return entry

    def _current(self, outputs: dict[str, tuple[str, int, int]], tree: Tree,
                 verify: bool) -> bool:
        files = tree.files
        for rel, (digest, size, mtime) in outputs.items():
            entry = files.get(rel)
            if entry is None:  # absent, or not a regular file reached without a link
                return False
            try:
                st = entry.stat(follow_symlinks=False)
                if st.st_size == size and st.st_mtime_ns == mtime and not verify:
                    continue
                with open(entry.path, "rb") as f:
                    if sha(f.read()) != digest:
                        return False
            except OSError:
                return False
            if (st.st_size, st.st_mtime_ns) != (size, mtime):
                outputs[rel] = (digest, st.st_size, st.st_mtime_ns)
                self.dirty = True
        return True

    def store(self, spec: str, entry: Entry) -> None:
        self.entries[spec] = entry
        self._raw.pop(spec, None)
        self.dirty = True

    @staticmethod
    def package_key(spec_dir: Path, keys: Iterable[tuple[str, str]]) -> str:
        """What the package-level outputs are made of: every spec file of a full run and its
        key (its ops' records follow from it), and the spec dir."""
        h = hashlib.sha256(f"{spec_dir}\0".encode())
        for spec, key in sorted(keys):
            h.update(f"{spec}\0{key}\0".encode())
        return h.hexdigest()

    def package_lookup(self, key: str, tree: Tree, *, verify: bool = False) -> list[str] | None:
        """The package-level outputs (manifest included) of the last full run, if it had `key`
        and they are on disk as written; else None."""
        package = self.package
        if package is None or package.get("key") != key:
            return None
        with contextlib.suppress(KeyError, TypeError, ValueError):
            outputs = {k: tuple(v) for k, v in package["outputs"].items()}
            if self._current(outputs, tree, verify):
                if self.dirty:
                    package["outputs"] = outputs
                return sorted(outputs)
        return None

    def store_package(self, key: str, outputs: dict[str, tuple[str, int, int]]) -> None:
        self.package = {"key": key, "outputs": outputs}
        self.dirty = True

    def save(self) -> None:
        if not self.dirty:
            return
        entries = {**self._raw}
        for k, e in self.entries.items():
            entries[k] = {"key": e.key, "deps": e.deps, "ops": [_record_dict(o) for o in e.ops],
                          "diagnostics": e.diagnostics}
        data = {"fingerprint": fingerprint(), "settings": self.settings,
                "entries": dict(sorted(entries.items())), "package": self.package}
        with contextlib.suppress(OSError):  # a read-only cache dir only costs speed
            atomic_write(self.path, json.dumps(data))
        self.dirty = False


def _record_dict(o: OpRecord) -> dict[str, Any]:
    """asdict(o) for JSON, without asdict's deep copy of every tuple in `outputs`: the same
    document (json writes tuples and lists alike)."""
    return {f.name: getattr(o, f.name) for f in fields(o)}


def record_outputs(outputs: dict[str, tuple[str, int, int]], files: dict[str, str],
                   output_dir: Path) -> None:
    """Fill outputs with each file's digest and its current size/mtime on disk."""
    out = str(output_dir)
    for rel, content in files.items():
        now = stat_of(os.path.join(out, rel), follow_symlinks=False)
        if now is not None:
            outputs[rel] = (sha(content), now[0], now[1])

