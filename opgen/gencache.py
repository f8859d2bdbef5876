"""Incremental generation: what each spec file produced last time, and what it read.

A spec file whose content, kernel and included headers (by size and mtime), opgen version
and configuration are unchanged, and whose outputs on disk still match what was written, is
not loaded, parsed or rendered again — so a no-op `opgen generate` only stats files. The
cache is a speed-up only: deleting it (or a stale or unreadable one) costs a full run.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
from dataclasses import asdict, dataclass, field
from importlib import resources
from pathlib import Path

from opgen import __version__
from opgen.diagnostics import Diagnostic, Severity, SourceLoc
from opgen.writer import atomic_write
from opgen_runtime.build import cache_root

CACHE_FORMAT = 2


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
    return h.hexdigest()


def sha(content: str | bytes) -> str:
    data = content.encode("utf-8") if isinstance(content, str) else content
    return hashlib.sha256(data).hexdigest()


def stat_of(path: str | Path) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
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
        self.dirty = False
        with contextlib.suppress(OSError, ValueError, KeyError, TypeError):
            data = json.loads(self.path.read_text("utf-8"))
            if data["fingerprint"] == fingerprint() and data["settings"] == settings:
                for spec, raw in data["entries"].items():
                    ops = [OpRecord(**{**o, "loc": tuple(o["loc"]), "socs": tuple(o["socs"]),
                                       "grad_loc": tuple(o["grad_loc"]) if o["grad_loc"] else None,
                                       "outputs": {k: tuple(v) for k, v in o["outputs"].items()}})
                           for o in raw["ops"]]
                    self.entries[spec] = Entry(raw["key"], {k: tuple(v) for k, v in
                                                            raw["deps"].items()},
                                               ops, [tuple(d) for d in raw["diagnostics"]])

    def key(self, content: bytes) -> str:
        return sha(content + b"\0" + self.settings.encode())

    def lookup(self, spec: Path, content: bytes, output_dir: Path, *,
               verify: bool = False) -> Entry | None:
        """The entry of spec if it is current and its outputs on disk are as written: by size
        and mtime, or with `verify` (--check) by their content's digest."""
        entry = self.entries.get(str(spec))
        if entry is None or entry.key != self.key(content):
            return None
        for dep, recorded in entry.deps.items():
            if stat_of(dep) != tuple(recorded):
                return None
        out = str(output_dir)
        for op in entry.ops:
            for rel, (digest, size, mtime) in op.outputs.items():
                path = os.path.join(out, rel)
                now = stat_of(path)
                if now == (size, mtime) and not verify:
                    continue
                try:
                    with open(path, "rb") as f:
                        if now is None or sha(f.read()) != digest:
                            return None
                except OSError:
                    return None
                if now != (size, mtime):
                    op.outputs[rel] = (digest, now[0], now[1])
                    self.dirty = True
        return entry

    def store(self, spec: Path, entry: Entry) -> None:
        self.entries[str(spec)] = entry
        self.dirty = True

    def save(self) -> None:
        if not self.dirty:
            return
        data = {
            "fingerprint": fingerprint(), "settings": self.settings,
            "entries": {k: {"key": e.key, "deps": e.deps, "ops": [asdict(o) for o in e.ops],
                            "diagnostics": e.diagnostics}
                        for k, e in sorted(self.entries.items())},
        }
        with contextlib.suppress(OSError):  # a read-only cache dir only costs speed
            atomic_write(self.path, json.dumps(data))
        self.dirty = False


def record_outputs(op: OpRecord, files: dict[str, str], output_dir: Path) -> None:
    """Fill op.outputs with each file's digest and its current size/mtime on disk."""
    out = str(output_dir)
    for rel, content in files.items():
        now = stat_of(os.path.join(out, rel))
        if now is not None:
            op.outputs[rel] = (sha(content), now[0], now[1])

