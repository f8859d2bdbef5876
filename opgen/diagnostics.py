"""Diagnostics: source locations and the one-line `path:line:col: error: message` reports."""

from __future__ import annotations

import enum
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

# Characters that must not reach a terminal raw: C0/C1 controls (a newline would split a
# one-line report, ESC starts a terminal escape) and Unicode line and bidi controls.
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u200e\u200f\u202a-\u202e"
                      "\u2066-\u2069]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
# A note the kernel frontend appends to its message on a line of its own.
_NOTE_BREAK = re.compile(r"\n(?=[^\n]*:\d+:\d+: note: )")


def _escape_char(m: re.Match[str]) -> str:
    c = m.group()
    return _NAMED.get(c) or (f"\\x{ord(c):02x}" if ord(c) < 0x100 else f"\\u{ord(c):04x}")


def escape_text(text: str) -> str:
    """`text` with control characters written as escapes (\\n, \\x1b, \\u202e): what every
    report echoes of a user's names, keys and paths."""
    return _CONTROL.sub(_escape_char, text)


@dataclass(frozen=True, order=True)
class SourceLoc:
    """A position in a user's file; line and col are 1-based, as editors count them."""

    path: str
    line: int = 0
    col: int = 0

    def __str__(self) -> str:
        if self.line <= 0:
            return escape_text(self.path)
        return f"{escape_text(self.path)}:{self.line}:{self.col}"

    def shifted(self, columns: int) -> SourceLoc:
        return SourceLoc(self.path, self.line, self.col + columns)


class Severity(enum.Enum):
    ERROR = "error"
    WARNING = "warning"
    NOTE = "note"


@dataclass(frozen=True)
class Diagnostic:
    loc: SourceLoc
    message: str
    severity: Severity = Severity.ERROR

    def __str__(self) -> str:
        message = "\n".join(escape_text(part) for part in _NOTE_BREAK.split(self.message))
        return f"{self.loc}: {self.severity.value}: {message}"


class OpgenError(Exception):
    """Base of every error opgen reports to a user; str() is the full report."""


@dataclass
class DiagnosticError(OpgenError):
    """One or more located errors; raised once a stage has collected all it can find."""

    diagnostics: tuple[Diagnostic, ...]

    def __post_init__(self) -> None:
        super().__init__(str(self))

    def __str__(self) -> str:
        return "\n".join(str(d) for d in self.diagnostics)

    @classmethod
    def single(cls, loc: SourceLoc, message: str) -> DiagnosticError:
        return cls((Diagnostic(loc, message),))


@dataclass
class DiagnosticSink:
    """Collects diagnostics so a stage reports every error of a file, not only the first."""

    items: list[Diagnostic] = field(default_factory=list)

    def error(self, loc: SourceLoc, message: str) -> None:
        self.items.append(Diagnostic(loc, message, Severity.ERROR))

    def warning(self, loc: SourceLoc, message: str) -> None:
        self.items.append(Diagnostic(loc, message, Severity.WARNING))

    def note(self, loc: SourceLoc, message: str) -> None:
        self.items.append(Diagnostic(loc, message, Severity.NOTE))

    def extend(self, diagnostics: Iterable[Diagnostic]) -> None:
        self.items.extend(diagnostics)

    @property
    def has_errors(self) -> bool:
        return any(d.severity is Severity.ERROR for d in self.items)

    def errors(self) -> tuple[Diagnostic, ...]:
        return tuple(d for d in self.items if d.severity is Severity.ERROR)

    def warnings(self) -> tuple[Diagnostic, ...]:
        return tuple(d for d in self.items if d.severity is not Severity.ERROR)

    def raise_if_errors(self) -> None:
        if self.has_errors:
            raise DiagnosticError(tuple(sorted_diagnostics(self.items)))

    def __iter__(self) -> Iterator[Diagnostic]:
        return iter(self.items)


def sorted_diagnostics(items: Iterable[Diagnostic]) -> list[Diagnostic]:
    """File order: by location, then insertion order (sort is stable)."""
    return sorted(items, key=lambda d: (d.loc.path, d.loc.line, d.loc.col))


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    """' (did you mean 'x'?)' or '' — the suffix every unknown-name error uses."""
    import difflib

    pool = sorted(set(choices))
    match = difflib.get_close_matches(word, pool, n=1, cutoff=0.6)
    if not match:
        lowered = {c.lower(): c for c in pool}
        if word.lower() in lowered:
            match = [lowered[word.lower()]]
    return f"; did you mean '{match[0]}'?" if match else ""

