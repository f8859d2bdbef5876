"""Stage 4, kernel frontend: parse results cached by content, so unchanged kernels parse nothing.

One SQLite database, `<cache dir>/kernel-frontend/parses.sqlite3`, a row per kernel state (one
file for all of them: a cold `opgen generate` of 1,000 kernels creates no 1,000 files). The key
hashes the kernel's path and bytes, the stub headers, the flags, the libclang version and the
frontend version; the row lists every file the parse included with its content hash, and a hit
requires all of them unchanged (ccache's "direct mode"). A parse with errors is not cached: it
is cheap to repeat and may depend on a header that does not exist yet. The pool workers of one
`opgen generate`, and concurrent runs, share the database (SQLite's own locking, in its WAL
mode); a cache it cannot open, read or write (read-only, locked past a timeout) only costs the
parses again, and a file there that is not a database (damaged) is made again.

The cache dir is opgen_runtime.build.cache_root(): `OPGEN_CACHE_DIR`, else the user cache
directory (platformdirs: `$XDG_CACHE_HOME/opgen` or `~/.cache/opgen` on Linux).
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import sqlite3
from collections.abc import Sequence
from dataclasses import fields, is_dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

from opgen.diagnostics import SourceLoc
from opgen.kernel_frontend import toolchain
from opgen.kernel_frontend.includes import MAX_SOURCE_BYTES
from opgen.kernel_frontend.model import (
    KernelEntry,
    KernelInfo,
    KernelParam,
    TemplateParam,
    TilingField,
    TilingRef,
    TilingStruct,
    TilingStyle,
)
from opgen.kernel_frontend.parse import Display, ParseResult, default_display, parse_kernel
from opgen_runtime.cachedir import cache_root

SUBDIR = "kernel-frontend"
DATABASE = "parses.sqlite3"
# connections not to use again: a parent's (after fork), or one that did not close
_INHERITED: list[sqlite3.Connection] = []
# How long a look-up or a store waits for another process's lock (SQLite's busy timeout). A
# database that stays locked past it (a run stopped while it held the lock) is not used again by
# this process: a generate of many kernels waits once, not once for each.
_BUSY_SECONDS = 5


def _damaged(exc: Exception) -> bool:
    """Whether SQLite's error says the file is damaged or not a database (SQLITE_CORRUPT,
    SQLITE_NOTADB: the DatabaseError class itself), not locked, read-only or full
    (OperationalError) nor misused (its other subclasses)."""
    return type(exc) is sqlite3.DatabaseError


def _remove_database(path: Path) -> bool:
    """The database file and SQLite's files beside it removed; whether that worked."""
    try:
        for suffix in ("", "-wal", "-shm"):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(f"{path}{suffix}")
    except OSError:
        return False
    return True


def cache_dir() -> Path:
    """opgen's cache root (shared with the runtime); parses go in its kernel-frontend/."""
    return cache_root()


@functools.cache
def _libclang_dist_version() -> str:
    try:
        return metadata.version("libclang")
    except metadata.PackageNotFoundError:  # pragma: no cover - a source checkout of clang
        return toolchain.libclang_version()


def file_digest(path: str) -> str | None:
    try:
        with open(path, "rb") as f:
            return hashlib.sha256(f.read()).hexdigest()
    except OSError:
        return None


def cache_key(main: str, shown: str, content: bytes, defines: Sequence[str] = ()) -> str:
    h = hashlib.sha256()
    for part in (toolchain.FRONTEND_VERSION, _libclang_dist_version(), toolchain.stub_digest(),
                 " ".join(toolchain.LANGUAGE_FLAGS), main, shown, " ".join(defines)):
        h.update(part.encode() + b"\0")
    h.update(content)
    return h.hexdigest()


class ParseCache:
    """Look-ups and stores for one process; `hits` and `misses` feed tests and benchmarks."""

    def __init__(self, root: Path | None = None) -> None:
        self.root = (root or cache_dir()) / SUBDIR
        self.hits = 0
        self.misses = 0
        # absolute kernel path -> every file it includes (for callers that cache further)
        self.dependencies: dict[str, tuple[str, ...]] = {}
        self._displays: dict[Path, Display] = {}
        self._db: sqlite3.Connection | None = None  # opened on first use in this process
        self._db_pid = 0
        self._db_failed = False

    def display(self, root: Path) -> Display:
        """default_display(root), made once for the run this cache serves (the root resolved
        once, not for every spec file)."""
        show = self._displays.get(root)
        if show is None:
            show = self._displays[root] = default_display(root)
        return show

    def _connection(self) -> sqlite3.Connection | None:
        """The database, opened (and made) on first use in this process, or None when it cannot
        be (then nothing is cached). A pool worker forked from a process that had it open opens
        its own: a connection is not shared across fork."""
        if self._db is not None:
            if self._db_pid == os.getpid():
                return self._db
            _INHERITED.append(self._db)  # the parent's: never closed (nor used) here
            self._db = None
            self._db_failed = False
        if self._db_failed:
            return None
        path = self.root / DATABASE
        for attempt in range(2):
            try:
                self.root.mkdir(parents=True, exist_ok=True)
                db = sqlite3.connect(path, timeout=_BUSY_SECONDS, isolation_level=None,
                                     check_same_thread=False)
                db.execute("PRAGMA journal_mode=WAL")
                db.execute("PRAGMA synchronous=NORMAL")
                db.execute("CREATE TABLE IF NOT EXISTS parse "
                           "(key TEXT PRIMARY KEY, data TEXT NOT NULL)")
            except sqlite3.OperationalError:  # locked, read-only, unopenable: not ours to fix
                break
            except sqlite3.DatabaseError as exc:  # not a database (a damaged file): it is
                # only a cache, so it is made again, once
                if attempt == 0 and _damaged(exc) and _remove_database(path):
                    continue
                break
            except OSError:
                break
            self._db, self._db_pid = db, os.getpid()
            return db
        self._db_failed = True
        return None

    def parse(self, path: Path, display: Display, defines: Sequence[str] = (),
              roots: Sequence[Path | str] | None = None) -> KernelInfo:
        main = os.path.abspath(path)
        if os.path.getsize(main) > MAX_SOURCE_BYTES:  # reported by the parse, not read here
            return parse_kernel(path, display, defines, roots).info
        content = Path(main).read_bytes()
        confined = () if roots is None else tuple(f"@root={r}" for r in roots)
        key = cache_key(main, display(main), content, (*defines, *confined))
        cached = self._load(key)
        if cached is not None:
            self.hits += 1
            self.dependencies[main] = cached[1]
            return cached[0]
        self.misses += 1
        result = parse_kernel(path, display, defines, roots, content)
        self.dependencies[main] = result.dependencies
        if result.info.ok:
            self._store(key, result)
        return result.info

    def _load(self, key: str) -> tuple[KernelInfo, tuple[str, ...]] | None:
        db = self._connection()
        if db is None:
            return None
        try:
            row = db.execute("SELECT data FROM parse WHERE key = ?", (key,)).fetchone()
            if row is None:
                return None
            data = json.loads(row[0])
            for dep, digest in data["dependencies"].items():
                if file_digest(dep) != digest:
                    return None
            return info_from_json(data["info"]), tuple(data["dependencies"])
        except sqlite3.Error as exc:
            self._give_up(exc)
            return None  # locked past the timeout or damaged: parse, and leave it alone
        except (OSError, ValueError, KeyError, TypeError):
            return None  # missing, stale or from another layout: parse again

    def _store(self, key: str, result: ParseResult) -> None:
        deps = {d: file_digest(d) for d in result.dependencies}
        if any(v is None for v in deps.values()):
            return
        data = {"dependencies": deps, "info": _plain(result.info)}
        db = self._connection()
        if db is None:
            return
        text = json.dumps(data, sort_keys=True, default=_enum_value)
        try:
            db.execute("INSERT OR REPLACE INTO parse (key, data) VALUES (?, ?)", (key, text))
        except sqlite3.Error as exc:  # read-only, full or locked past the timeout: it costs
            self._give_up(exc)  # speed only

    def _give_up(self, exc: Exception) -> None:
        """No more look-ups or stores through this cache in this process; a database found
        damaged (not merely locked or read-only) is removed, for the next run to make again."""
        self._db_failed = True
        db, self._db = self._db, None
        if db is not None:
            try:
                db.close()
            except sqlite3.Error:
                _INHERITED.append(db)  # (kept, unused, rather than left half closed)
        if _damaged(exc):
            _remove_database(self.root / DATABASE)


_LEAVES = (str, int, float, bool, type(None))
_FIELDS: dict[type, tuple[str, ...] | None] = {}  # a dataclass's field names, None: not one


def _plain(value: Any) -> Any:
    """dataclasses.asdict without its deep copies (JSON needs none): the same JSON."""
    kind = type(value)
    if kind in _LEAVES:
        return value
    try:
        names = _FIELDS[kind]
    except KeyError:
        names = None
        if is_dataclass(value) and not isinstance(value, type):
            names = tuple(f.name for f in fields(value))
        _FIELDS[kind] = names
    if names is not None:
        return {name: _plain(getattr(value, name)) for name in names}
    if isinstance(value, (tuple, list)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


def _loc(d: dict[str, Any]) -> SourceLoc:
    return SourceLoc(d["path"], d["line"], d["col"])


def info_from_json(d: dict[str, Any]) -> KernelInfo:
    """The inverse of dataclasses.asdict(KernelInfo) for an error-free parse."""
    entries = tuple(
        KernelEntry(
            e["name"],
            tuple(KernelParam(p["name"], p["type"], p["is_gm_addr"], _loc(p["loc"]))
                  for p in e["params"]),
            _loc(e["loc"]), e["c_linkage"], e["is_global"],
            tuple(TilingRef(r["macro"], r["struct"], _loc(r["loc"])) for r in e["tiling_refs"]),
            tuple(TemplateParam(t["name"], t["kind"], t["type"]) for t in e["template_params"]))
        for e in d["entries"])
    structs = tuple(
        TilingStruct(
            s["name"], s["qualified_name"],
            tuple(TilingField(f["name"], f["ctype"], f["spelling"], f["offset"], f["array_len"],
                              _loc(f["loc"]), f["problem"]) for f in s["fields"]),
            s["size"], s["align"], TilingStyle(s["style"]), _loc(s["loc"]))
        for s in d["structs"])
    return KernelInfo(
        d["path"], entries, tuple((n, _loc(loc)) for n, loc in d["functions"]), structs,
        tuple((a, b) for a, b in d["registered"]))


def _enum_value(value: object) -> object:
    if isinstance(value, TilingStyle):
        return value.value
    raise TypeError(f"cannot store {type(value).__name__} in the parse cache")
