"""The parse cache's database (kernel_frontend/cache.py): one SQLite file for every kernel
state, shared by processes (a generate's forked pool workers, concurrent runs), and a cache it
cannot use costs parses, never a failure."""

from __future__ import annotations

import os
import shutil
import sqlite3
from pathlib import Path

import pytest

from opgen.kernel_frontend import ParseCache, default_display
from opgen.kernel_frontend.cache import DATABASE, SUBDIR

HERE = Path(__file__).parent
KERNELS = HERE / "kernels"


@pytest.fixture()
def kernel(tmp_path: Path) -> Path:
    shutil.copytree(KERNELS, tmp_path / "k")
    return tmp_path / "k" / "mixed.cpp"


def _files(root: Path) -> list[str]:
    return sorted(p.name for p in root.rglob("*") if p.is_file())


def test_parses_go_in_one_database_file(kernel: Path, tmp_path: Path) -> None:
    show = default_display(kernel.parent)
    cache = ParseCache(tmp_path / "cache")
    first = cache.parse(kernel, show)
    other = kernel.with_name("other.cpp")
    other.write_text(kernel.read_text() + "\n// another kernel state\n")
    assert cache.parse(other, show).ok
    assert cache.misses == 2
    # two kernel states, one database (and SQLite's write-ahead log beside it)
    assert {name for name in _files(tmp_path / "cache") if not name.startswith(DATABASE)} == set()
    again = ParseCache(tmp_path / "cache")
    assert again.parse(kernel, show) == first
    assert (again.hits, again.misses) == (1, 0)


def test_a_forked_process_shares_the_database(kernel: Path, tmp_path: Path) -> None:
    """A pool worker forked from a process that had the database open stores through its own
    connection; the parent then reads what it stored, through the connection it had."""
    show = default_display(kernel.parent)
    cache = ParseCache(tmp_path / "cache")
    other = kernel.with_name("other.cpp")
    other.write_text(kernel.read_text() + "\n// another kernel state\n")
    assert cache.parse(other, show).ok  # the parent's connection is open
    pid = os.fork()
    if pid == 0:  # the child: parse, store, leave without running the parent's atexit work
        try:
            cache.parse(kernel, show)
            os._exit(0 if cache.misses == 2 else 3)
        except BaseException:
            os._exit(4)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert cache.parse(kernel, show).ok
    assert (cache.hits, cache.misses) == (1, 1)
    assert cache.parse(other, show).ok and cache.hits == 2


def test_a_damaged_database_is_made_again(kernel: Path, tmp_path: Path) -> None:
    """A file that is not a database where the cache's is: it costs one parse, the database is
    made again, and the next run hits."""
    show = default_display(kernel.parent)
    db = tmp_path / "cache" / SUBDIR / DATABASE
    db.parent.mkdir(parents=True)
    db.write_bytes(b"not a database" * 100)
    first = ParseCache(tmp_path / "cache")
    info = first.parse(kernel, show)
    assert info.ok and info.struct("MixTilingData") is not None
    assert first.misses == 1
    again = ParseCache(tmp_path / "cache")
    assert again.parse(kernel, show) == info and again.hits == 1
    assert not db.read_bytes().startswith(b"not a database")


def test_a_cache_dir_that_cannot_be_made_costs_parses_not_a_failure(kernel: Path,
                                                                   tmp_path: Path) -> None:
    """A cache root that is a file (as a read-only or full disk would be): no database, every
    parse done, no error."""
    show = default_display(kernel.parent)
    root = tmp_path / "cache"
    root.write_text("a file where the cache dir would be")
    for _ in range(2):
        cache = ParseCache(root)
        assert cache.parse(kernel, show).ok and cache.misses == 1
    assert root.read_text() == "a file where the cache dir would be"


def test_a_database_locked_past_the_timeout_is_left_alone(kernel: Path, tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """Another process holding the write lock (a run stopped mid-store): the store waits for
    the timeout once, then this cache stops using the database, so a run of many kernels does
    not wait once for each. Parses are still done and correct."""
    from opgen.kernel_frontend import cache as cache_module

    monkeypatch.setattr(cache_module, "_BUSY_SECONDS", 0.2)
    show = default_display(kernel.parent)
    ParseCache(tmp_path / "cache").parse(kernel, show)  # makes the database
    other = kernel.with_name("other.cpp")
    other.write_text(kernel.read_text() + "\n// another kernel state\n")
    third = kernel.with_name("third.cpp")
    third.write_text(kernel.read_text() + "\n// a third kernel state\n")
    holder = sqlite3.connect(tmp_path / "cache" / SUBDIR / DATABASE, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")  # the write lock
    cache = ParseCache(tmp_path / "cache")
    assert cache.parse(kernel, show).ok and cache.hits == 1  # readers are not blocked (WAL)
    assert cache.parse(other, show).ok  # its store times out: the cache gives up
    holder.execute("COMMIT")
    assert cache.parse(third, show).ok and cache.misses == 2
    again = ParseCache(tmp_path / "cache")
    assert again.parse(kernel, show).ok and again.hits == 1
    assert again.parse(other, show).ok and again.parse(third, show).ok
    assert again.misses == 2  # neither was stored by the cache that gave up
    holder.close()


def test_a_database_damaged_past_its_header_is_made_again_by_the_next_run(
        kernel: Path, tmp_path: Path) -> None:
    """A database whose pages are damaged opens, then fails on the look-up: this run parses and
    removes it, the next one makes it again and stores."""
    show = default_display(kernel.parent)
    ParseCache(tmp_path / "cache").parse(kernel, show)
    db = tmp_path / "cache" / SUBDIR / DATABASE
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # every page in the main file
    conn.close()
    data = bytearray(db.read_bytes())
    page = int.from_bytes(data[16:18], "big") or 65536
    data[page:] = b"\xff" * (len(data) - page)  # every page but the header's
    db.write_bytes(bytes(data))
    for name in (f"{db}-wal", f"{db}-shm"):
        Path(name).unlink(missing_ok=True)
    damaged = ParseCache(tmp_path / "cache")
    assert damaged.parse(kernel, show).ok and damaged.misses == 1
    second = ParseCache(tmp_path / "cache")
    assert second.parse(kernel, show).ok and second.misses == 1  # made again, and stored
    third = ParseCache(tmp_path / "cache")
    assert third.parse(kernel, show).ok and third.hits == 1
