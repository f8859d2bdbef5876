"""The driver: specs -> model -> kernel frontend -> emitters -> FileManager.

`opgen generate` calls `run`. Each spec file goes through the pipeline (pipeline.py) on its
own, so its diagnostics and outputs can be cached (see gencache); checks across specs and the
package-level outputs then use what every file produced. When the generate cache answers for
every spec file and for the package-level outputs, nothing is loaded, parsed or rendered: this
module and what `run` imports on that path stay clear of the validator, libclang and Jinja.
"""

from __future__ import annotations

import contextlib
import functools
import gc
import json
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from opgen.diagnostics import DiagnosticSink, SourceLoc
from opgen.gencache import Entry, GenerateCache, OpRecord, record_outputs, stat_of
from opgen.project import Config, OpIdentity, cross_check, discover
from opgen.writer import (
    LOCK,
    MANIFEST,
    FileManager,
    Plan,
    Staged,
    Stager,
    Tree,
    output_lock,
    scan_tree,
)

if TYPE_CHECKING:
    from opgen.kernel_frontend import ParseCache
    from opgen.pipeline import Processed

# The pipeline's target tables, for callers that use them (imported on first use).
_PIPELINE_NAMES = ("PER_OP_TARGETS", "PY_OP_TARGETS", "SOURCE_OP_TARGETS", "PACKAGE_TARGETS")


def __getattr__(name: str) -> Any:
    if name in _PIPELINE_NAMES:
        from opgen import pipeline

        return getattr(pipeline, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


Outcome = tuple[DiagnosticSink, "Processed | None"]  # of one spec file


@dataclass
class Result:
    ops: list[OpRecord]
    plan: Plan
    manager: FileManager


def _settings(config: Config) -> str:
    return json.dumps({"out": config.display(config.output_dir), "package": config.package,
                       "namespace": config.namespace})


def _work(path: Path, config: Config, out_rel: str,
          parses: ParseCache | None = None) -> Outcome:
    from opgen.pipeline import process

    sub = DiagnosticSink()
    return sub, process(path, config, sub, parses or _worker_cache(), out_rel)


_WORK = _work

# Set in the parent before it forks the pool of a run that writes: each worker writes what it
# rendered to temp files itself (see _work_staged).
_STAGER: Stager | None = None


def _work_staged(path: Path, config: Config, out_rel: str) -> Outcome:
    """_work, then each output compared with the output dir and, where it is to be written,
    written to its temp file (writer.Stager): the parent gets the states and digests, not the
    contents, and only renames."""
    sub, processed = _work(path, config, out_rel)
    if processed is None or _STAGER is None:
        return sub, processed
    records, outputs, deps = processed
    staged: dict[str, dict[str, Any]] = {
        op: {rel: _STAGER.stage(rel, text) for rel, text in files.items()}
        for op, files in outputs.items()}
    return sub, (records, staged, deps)


@functools.cache
def _worker_cache() -> ParseCache:
    from opgen.kernel_frontend import ParseCache

    return ParseCache()


def _die_with_parent(parent: int) -> None:
    """A pool worker's initializer. Linux: the kernel kills the worker when the process that
    started it ends, so a killed `opgen generate` leaves no worker behind."""
    if sys.platform.startswith("linux"):
        import ctypes
        import signal

        pr_set_pdeathsig = 1
        ctypes.CDLL(None, use_errno=True).prctl(pr_set_pdeathsig, int(signal.SIGKILL), 0, 0, 0)
    if os.getppid() != parent:  # the parent ended before prctl took effect
        os._exit(1)


def _init_worker(parent: int) -> None:
    """A pool worker's initializer: it dies with its parent (_die_with_parent), and libclang
    parses on the worker's own thread (LIBCLANG_NOTHREADS): not on a thread of its own per
    kernel, whose 8 MB stack and malloc arena are set up and given back each time (the main
    thread's stack is as large). The worker is opgen's own process: no one else's environment
    changes."""
    _die_with_parent(parent)
    os.environ.setdefault("LIBCLANG_NOTHREADS", "1")


PARALLEL_THRESHOLD = 64  # below this, starting worker processes costs more than it saves
CHUNK = 4  # spec files a worker takes at a time, at most (a few ms each)


def _workers() -> int:
    return min(os.cpu_count() or 1, 8)


def _pooled(count: int) -> bool:
    """Whether `count` spec files are processed by a pool of worker processes."""
    return count >= PARALLEL_THRESHOLD and _workers() >= 2


def _process_many(paths: Sequence[Path], config: Config, parses: ParseCache,
                  out_rel: str, stager: Stager | None = None,
                  keep: list[Any] | None = None) -> list[Outcome]:
    """Process spec files, over all cores when there are many (a cold run of a big project).
    Processes, not threads: validation and template rendering hold the GIL. With `stager`
    (a pool on Linux only), the workers also stage the outputs (their contents become
    writer.Staged). With `keep`, the pool is not shut down but appended to it (the caller
    shuts it down; its workers rename the staged files on commit, see _renamer)."""
    global _STAGER
    workers = _workers()
    if not _pooled(len(paths)):
        return [_work(p, config, out_rel, parses) for p in paths]
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    if _work is _WORK:  # (not when a test stands in for it)
        from opgen.pipeline import warm

        warm()
    # small chunks: the workers end together (one big last chunk leaves a core idle)
    chunk = max(1, min(CHUNK, len(paths) // (workers * 4)))
    ctx = multiprocessing.get_context("fork" if sys.platform == "linux" else "spawn")
    work: Any = functools.partial(_work, config=config, out_rel=out_rel)
    if stager is not None:  # the workers are forked: they inherit it
        work = functools.partial(_work_staged, config=config, out_rel=out_rel)
    _STAGER = stager
    try:
        pool = ProcessPoolExecutor(max_workers=workers, mp_context=ctx,
                                   initializer=_init_worker, initargs=(os.getpid(),))
        if keep is not None:
            keep.append(pool)
            return list(pool.map(work, paths, chunksize=chunk))
        with pool:
            return list(pool.map(work, paths, chunksize=chunk))
    finally:
        _STAGER = None


def _rename_batch(moves: Sequence[tuple[str, str]]) -> None:
    for src, dst in moves:
        os.replace(src, dst)


def _renamer(pool: Any) -> Callable[[Sequence[tuple[str, str]]], None]:
    """Staged temp files renamed into place by the pool's workers: a folder's files by one
    worker (renames in one folder take turns on it), the folders dealt out evenly."""
    def rename(moves: Sequence[tuple[str, str]]) -> None:
        folders: dict[str, list[tuple[str, str]]] = {}
        for move in moves:
            folders.setdefault(os.path.dirname(move[1]), []).append(move)
        batches: list[list[tuple[str, str]]] = [[] for _ in range(_workers())]
        for group in sorted(folders.values(), key=len, reverse=True):
            min(batches, key=len).extend(group)
        list(pool.map(_rename_batch, [b for b in batches if b]))

    return rename


def _resolved(paths: Sequence[Path]) -> list[str]:
    """Each path made absolute with its links resolved (Path.resolve()), resolving each
    folder once: a project has one spec dir and many specs."""
    folders: dict[str, str] = {}
    found: list[str] = []
    for path in paths:
        name = path.name
        if name in ("", ".", "..") or os.path.islink(path):
            found.append(os.path.realpath(path))
            continue
        parent = str(path.parent)
        real = folders.get(parent)
        if real is None:
            real = folders[parent] = os.path.realpath(parent)
        found.append(os.path.join(real, name))
    return found


def _identities(ops: Sequence[OpRecord]) -> list[OpIdentity]:
    return [OpIdentity(o.op_name, o.source_loc, o.grad_op,
                       SourceLoc(*o.grad_loc) if o.grad_loc else None, o.op_type,
                       SourceLoc(*o.type_loc) if o.type_loc else None) for o in ops]


@contextlib.contextmanager
def _collector_paused() -> Iterator[None]:
    """Python's cyclic garbage collector off for the block, as it was after. A run holds every
    op's records and outputs until it writes them, so each full collection walks all of them
    again: serially (one core, or under PARALLEL_THRESHOLD specs), 1,000 ops took 15-24 s with
    it and 9.8-10.6 s without, the files' writes alone 0.32-0.72 ms each against 0.07 ms. A run
    makes few cycles, and they are freed when the collector is back on."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def run(config: Config, spec_paths: Sequence[Path], sink: DiagnosticSink, *,
        check: bool = False, cache: ParseCache | None = None,
        incremental: bool = True, force: bool = False) -> Result | None:
    """Validate and emit. Explicit spec paths regenerate only those ops (no package-level
    outputs, no pruning). `force` overwrites (and removes) generated files edited by hand.
    Writing holds the output dir's lock; check mode verifies outputs by their hashes."""
    with _collector_paused():
        return _run(config, spec_paths, sink, check=check, cache=cache,
                    incremental=incremental, force=force)


def _run(config: Config, spec_paths: Sequence[Path], sink: DiagnosticSink, *,
         check: bool, cache: ParseCache | None, incremental: bool,
         force: bool) -> Result | None:
    full = not spec_paths
    paths = list(spec_paths) if spec_paths else discover(config.spec_dir)
    out_rel = config.display(config.output_dir)
    gcache = (GenerateCache(config.root, config.output_dir, _settings(config))
              if incremental else None)
    fm = FileManager(config.output_dir, prune=full, force=force, shown=out_rel)
    ops: list[OpRecord] = []
    hits: dict[int, Entry] = {}
    contents: dict[int, bytes | None] = {}
    resolved = _resolved(paths)
    tree = scan_tree(config.output_dir) if gcache is not None else None
    for i, real in enumerate(resolved):
        try:
            with open(real, "rb") as f:
                contents[i] = f.read()
        except OSError:
            contents[i] = None
        content = contents[i]
        if gcache is not None and tree is not None and content is not None:
            entry = gcache.lookup(real, content, tree, verify=check)
            if entry is not None:
                hits[i] = entry
    misses = [i for i in range(len(paths)) if i not in hits]
    package_key = (GenerateCache.package_key(config.spec_dir, (
        (resolved[i], gcache.key(c)) for i, c in contents.items() if c is not None))
        if gcache is not None and full else None)
    if not misses and gcache is not None and tree is not None and package_key is not None \
            and not tree.temp_files:
        current = gcache.package_lookup(package_key, tree, verify=check)
        if current is not None:
            # Nothing changed since the last full run: its cross-spec checks passed on these
            # very records, every output is on disk as written, none is stale (the manifest
            # is as written) and no temp file is left. Nothing to render, write or remove.
            for i in range(len(paths)):
                sink.extend(hits[i].replay())
                ops.extend(hits[i].ops)
            if sink.has_errors:  # --strict: the replayed warnings count
                return None
            per_op = [rel for op in ops for rel in op.outputs]
            fm.keep_all([*per_op, *(rel for rel in current if rel != MANIFEST)])
            plan = Plan(unchanged=[*sorted(per_op), *current])
            if gcache.dirty and not check:
                gcache.save()
            return Result(ops, plan, fm)

    parses = cache
    if misses and parses is None:
        from opgen.kernel_frontend import ParseCache

        parses = ParseCache()
    # A run that writes and has a pool (Linux's fork) takes the output dir's lock before it
    # processes anything: its workers write the outputs to temp files beside them as they go
    # (writer.Stager), which nothing else may remove meanwhile, and the commit only renames.
    staging = (not check and parses is not None and sys.platform.startswith("linux")
               and _pooled(len(misses)))
    made_out = staging and not os.path.isdir(config.output_dir)
    written_ok = False
    stager: Stager | None = None
    processed_many: list[Outcome] = []
    pools: list[Any] = []
    with contextlib.ExitStack() as stack:
        if staging:
            stack.enter_context(output_lock(config.output_dir, create=True, shown=out_rel))
            stage_tree = scan_tree(config.output_dir)
            if not stage_tree.links:  # (a link in the way is refused by the plan, as ever)
                stager = Stager(config.output_dir, stage_tree)
        try:
            if misses and parses is not None:
                stack.callback(lambda: [pool.shutdown() for pool in pools])
                processed_many = _process_many([paths[i] for i in misses], config, parses,
                                               out_rel, stager, pools if stager else None)
            result = _finish(config, paths, sink, fm, gcache, hits, misses, processed_many,
                             contents, resolved, package_key, full, check, out_rel,
                             None if stager is None else stager.tree, locked=staging,
                             rename=_renamer(pools[0]) if pools else None)
            written_ok = result is not None
            return result
        finally:
            if stager is not None and not written_ok:
                _discard(processed_many, stager.tree, config.output_dir,
                         config.output_dir / LOCK if made_out else None)
            if made_out and not written_ok:
                stack.close()
                with contextlib.suppress(OSError):
                    os.rmdir(config.output_dir)


def _discard(outcomes: Sequence[Outcome], tree: Tree, output_dir: Path,
             lock: Path | None) -> None:
    """A run that staged outputs writes nothing after all: their temp files go, and the
    folders (and the output dir's lock file, `lock`) that staging made where nothing was."""
    folders: set[str] = set()
    for _sub, processed in outcomes:
        if processed is None:
            continue
        for files in processed[1].values():
            for rel, item in files.items():
                if isinstance(item, Staged) and item.temp is not None:
                    with contextlib.suppress(OSError):
                        os.unlink(item.temp)
                    folder = os.path.dirname(rel)
                    while folder and folder not in tree.dirs and folder not in folders:
                        folders.add(folder)
                        folder = os.path.dirname(folder)
    for folder in sorted(folders, key=lambda f: f.count("/"), reverse=True):
        with contextlib.suppress(OSError):
            os.rmdir(output_dir / folder)
    if lock is not None:
        with contextlib.suppress(OSError):
            os.unlink(lock)


def _finish(config: Config, paths: Sequence[Path], sink: DiagnosticSink, fm: FileManager,
            gcache: GenerateCache | None, hits: dict[int, Entry], misses: Sequence[int],
            processed_many: Sequence[Outcome], contents: dict[int, bytes | None],
            resolved: Sequence[str], package_key: str | None, full: bool, check: bool,
            out_rel: str, tree: Tree | None, *, locked: bool,
            rename: Callable[[Sequence[tuple[str, str]]], None] | None = None) -> Result | None:
    """What run does once the spec files that missed the cache are processed: cross-spec
    checks, the package-level outputs, the plan and the commit (under the output dir's lock;
    `locked`: the caller holds it already, and `tree` is the output dir as scanned under it;
    `rename` moves staged files into place)."""
    ops: list[OpRecord] = []
    fresh: list[tuple[OpRecord, dict[str, Any]]] = []
    failed = False
    done = dict(zip(misses, processed_many, strict=True))
    for i in range(len(paths)):
        if i in hits:
            entry = hits[i]
            sink.extend(entry.replay())
            ops.extend(entry.ops)
            continue
        sub, processed = done[i]
        sink.extend(sub.items)
        if processed is None:
            failed = True
            continue
        records, outputs, deps = processed
        fresh.extend((record, outputs[record.op_name]) for record in records)
        ops.extend(records)
        content = contents[i]
        if gcache is not None and content is not None:
            dep_stats = {d: st for d in sorted({resolved[i], *deps})
                         if (st := stat_of(d)) is not None}
            gcache.store(resolved[i], Entry(
                gcache.key(content), dep_stats, records,
                [(d.loc.path, d.loc.line, d.loc.col, d.severity.value, d.message)
                 for d in sub.items]))
    duplicated = cross_check(_identities(ops), sink)
    if failed or sink.has_errors or duplicated:
        return None
    for entry in hits.values():
        for op in entry.ops:
            for rel in op.outputs:
                fm.keep(rel)
    for _record, files in fresh:
        for rel, item in files.items():
            if isinstance(item, Staged):
                fm.add_staged(rel, item)
            else:
                fm.add(rel, item)
    package_files: set[str] = set()
    if full:
        from opgen.pipeline import PACKAGE_TARGETS

        ordered = sorted(ops, key=lambda o: o.op_name)
        for target in PACKAGE_TARGETS:
            for rel, text in target(ordered, config).items():
                fm.add(rel, text)
                package_files.add(rel)
    with (contextlib.nullcontext() if locked
          else output_lock(config.output_dir, create=not check, shown=out_rel)):
        plan = fm.plan(with_diff=check, tree=tree)
        if not check:
            fm.commit(plan, rename=rename)
            for record, files in fresh:  # digests of the files as written (with their hash)
                staged = {rel: item for rel, item in files.items() if isinstance(item, Staged)}
                for rel, item in staged.items():
                    if item.size >= 0:
                        record.outputs[rel] = (item.digest, item.size, item.mtime)
                record_outputs(record.outputs, {rel: fm.files[rel] for rel in files
                                                if rel not in staged}, config.output_dir)
            if gcache is not None:
                if package_key is not None:  # what the no-op path checks
                    written: dict[str, tuple[str, int, int]] = {}
                    record_outputs(written, {rel: fm.files[rel]
                                             for rel in (*package_files, MANIFEST)},
                                   config.output_dir)
                    gcache.store_package(package_key, written)
                gcache.save()
    return Result(ops, plan, fm)
