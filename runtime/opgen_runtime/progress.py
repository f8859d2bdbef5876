"""Progress of slow steps (kernel and library builds) on the `opgen_runtime` logger, shown on
stderr unless the application configured logging or OPGEN_QUIET=1 is set.

A step (`with step("compiling leaky_relu.cpp"):`) that is still running after THRESHOLD
seconds logs one line, `compiling leaky_relu.cpp ...`, and when it ends one more with the time it
took, `compiling leaky_relu.cpp: done in 4.2 s` (or `failed after ...`). Quick steps (a
cache hit, a link) log nothing.

Where the lines go (README, "Using the generated ops"):

- the application configured no logging (no handler on the root logger): a handler on the
  `opgen_runtime` and `opgen` loggers writes `opgen: <message>` to sys.stderr; the loggers'
  level is set to INFO when it was unset;
- the application configured logging (`logging.basicConfig(...)`, dictConfig, pytest): the
  records propagate to its handlers, at INFO only when its root logger lets INFO through (or
  when it set the `opgen_runtime` logger's level itself);
- OPGEN_QUIET=1 (or true/yes): no progress lines at all (warnings still pass).

The `opgen` command line shows them whatever the logging configuration (OPGEN_QUIET still
silences them): `show_on_stderr()`.
"""

from __future__ import annotations

import logging
import os
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

QUIET_ENV = "OPGEN_QUIET"
LOGGERS = ("opgen_runtime", "opgen")
THRESHOLD = 1.0  # seconds a step runs before it is announced

_log = logging.getLogger("opgen_runtime")
_INSTALL_LOCK = threading.Lock()
_AUTO_LEVEL: set[str] = set()  # loggers whose INFO level this module set
_FORCED = False  # show_on_stderr(): the command line shows progress whatever the config


def quiet() -> bool:
    """OPGEN_QUIET=1 (true, yes, on): no progress lines."""
    return os.environ.get(QUIET_ENV, "").strip().lower() in ("1", "true", "yes", "on")


def _app_configured(logger: logging.Logger) -> bool:
    """The application chose where log records go: a handler on the root logger, or one of
    its own on this logger."""
    if logging.getLogger().handlers:
        return True
    return any(not isinstance(h, _StderrHandler) for h in logger.handlers)


class _Gate(logging.Filter):
    """On each of the loggers: drops progress (below WARNING) under OPGEN_QUIET, and when the
    application configured logging without letting INFO through."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno >= logging.WARNING:
            return True
        if quiet():
            return False
        logger = logging.getLogger(record.name)
        if _FORCED or not _app_configured(logger):
            return True
        if record.name in _AUTO_LEVEL and logger.level == logging.INFO:
            # the INFO level is ours, not the application's: follow its root logger
            return logging.getLogger().isEnabledFor(record.levelno)
        return True


class _StderrHandler(logging.Handler):
    """`opgen: <message>` on whatever sys.stderr is at the time, while the application has
    configured no logging of its own (or on the command line)."""

    def emit(self, record: logging.LogRecord) -> None:
        if not _FORCED and _app_configured(logging.getLogger(record.name)):
            return  # the record reaches the application's handlers
        try:
            sys.stderr.write(f"opgen: {record.getMessage()}\n")
            sys.stderr.flush()
        except Exception:  # logging must never fail the build
            self.handleError(record)


def install() -> None:
    """The default handler and gate on the `opgen_runtime` and `opgen` loggers (once)."""
    with _INSTALL_LOCK:
        for name in LOGGERS:
            logger = logging.getLogger(name)
            if not any(isinstance(h, _StderrHandler) for h in logger.handlers):
                logger.addHandler(_StderrHandler())
            if not any(isinstance(f, _Gate) for f in logger.filters):
                logger.addFilter(_Gate())
            if logger.level == logging.NOTSET:
                logger.setLevel(logging.INFO)
                _AUTO_LEVEL.add(name)


def show_on_stderr() -> None:
    """The command line: progress on stderr whatever the logging configuration (OPGEN_QUIET
    still silences it)."""
    global _FORCED
    install()
    _FORCED = True


@contextmanager
def step(what: str, logger: logging.Logger | None = None) -> Iterator[None]:
    """Log `what ...` once the step has run THRESHOLD seconds, and then its end with the
    elapsed time. Quick steps log nothing."""
    log = logger or _log
    start = time.monotonic()
    lock = threading.Lock()
    state = {"announced": False, "done": False}

    def announce() -> None:
        with lock:
            if state["done"]:
                return
            state["announced"] = True
            log.info("%s ...", what)  # under the lock: before the end line

    timer = threading.Timer(THRESHOLD, announce) if THRESHOLD > 0 else None
    if timer is None:
        announce()
    else:
        timer.daemon = True
        timer.start()
    ok = False
    try:
        yield
        ok = True
    finally:
        if timer is not None:
            timer.cancel()
        with lock:
            state["done"] = True
            announced = state["announced"]
        if announced:
            elapsed = time.monotonic() - start
            if ok:
                log.info("%s: done in %.1f s", what, elapsed)
            else:
                log.info("%s: failed after %.1f s", what, elapsed)


install()
