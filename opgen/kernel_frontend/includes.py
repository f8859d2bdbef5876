"""Stage 4, kernel frontend: what a kernel may include, checked before libclang reads anything.

libclang reads whatever an `#include` names: `#include "/dev/zero"` never ends (gigabytes,
then a failed parse), `#include "../../../etc/passwd"` or a symlink reads files outside the
project. So the kernel and every project file it includes are scanned first, their includes
resolved as the preprocessor resolves them (the includer's directory for "...", then the
search path), and each one found must be

- a regular file (no device, pipe or directory) of at most MAX_SOURCE_BYTES,
- inside the allowed roots, after resolving symlinks: the project, the kernel's own
  directory (its msopgen project for op_kernel/), kernel.include_dirs, the tiling header's
  directory, opgen's stub and runtime headers and the host compiler's system headers,
- UTF-8 text (the project's files; their copies go into the generated CANN tree).

An include naming a macro (`#include HEADER`) cannot be resolved without preprocessing and
is refused. The scan is conservative: it also checks includes inside `#if 0`.
"""

from __future__ import annotations

import functools
import os
import re
import stat
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from opgen.diagnostics import Diagnostic, DiagnosticError, SourceLoc
from opgen.load import bytes_loc, decode_utf8

MAX_SOURCE_BYTES = 4 << 20  # a kernel source or header

Display = Callable[[str], str]

_COMMENT_OR_LITERAL = re.compile(rb"""//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*'""",
                                 re.S)
_DIRECTIVE = re.compile(rb"^[ \t]*#[ \t]*(include_next|include|import|embed)\b[ \t]*([^\n]*)",
                        re.M)


_NOT_NEWLINE = re.compile(rb"[^\n]")


def _blank_comments(data: bytes) -> bytes:
    """Comments replaced by spaces (newlines kept, so offsets stay); literals kept."""
    def blank(m: re.Match[bytes]) -> bytes:
        text = m.group()
        if text[:1] in (b'"', b"'"):
            return text
        if b"\n" not in text:  # a // comment (or a one-line /* */)
            return b" " * len(text)
        return _NOT_NEWLINE.sub(b" ", text)

    return _COMMENT_OR_LITERAL.sub(blank, data)


def _within(path: str, roots: Iterable[str]) -> bool:
    return any(path == r or path.startswith(r.rstrip(os.sep) + os.sep) for r in roots)


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISFIFO(mode):
        return "a pipe"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


@functools.lru_cache(maxsize=64)
def _real_toolchain_dir(path: str) -> str:
    """os.path.realpath of a directory of opgen's or the compiler's headers (fixed for the
    life of the process), once per process: every kernel is checked against them."""
    return os.path.realpath(path)


class _Scan:
    def __init__(self, display: Display, search: Sequence[str], user_roots: Sequence[str] | None,
                 system_roots: Sequence[str]) -> None:
        self.display = display
        self.search = [os.path.abspath(d) for d in search]
        self.system = [_real_toolchain_dir(d) for d in system_roots]
        self.user = None if user_roots is None else [os.path.realpath(r) for r in user_roots]
        self.errors: list[Diagnostic] = []
        self.seen: set[str] = set()
        self.queue: list[str] = []

    def error(self, loc: SourceLoc, message: str) -> None:
        self.errors.append(Diagnostic(loc, message))

    def admit(self, name: str, found: str, loc: SourceLoc, directive: str) -> None:
        """Check one file an include (or the build) reads; queue the project's for scanning."""
        real = os.path.realpath(found)
        try:
            st = os.stat(real)
        except OSError:
            return  # vanished or unreadable: clang reports it
        shown = f"#{directive} '{name}'" if directive else f"'{name}'"
        if not stat.S_ISREG(st.st_mode):
            self.error(loc, f"{shown} names {_kind(st.st_mode)} ({real}), not a source file; "
                       "kernels include headers only")
            return
        through = " through a symlink" if real != os.path.normpath(os.path.abspath(found)) else ""
        if _within(real, self.system):
            return  # opgen's and the compiler's own headers: not scanned further
        if self.user is not None and not _within(real, self.user):
            self.error(loc, f"{shown} reaches {real}{through}, outside the project; a "
                       "kernel may include the files of its project (the pyproject.toml "
                       "directory), of its own directory and kernel.include_dirs, and opgen's "
                       "and the compiler's headers")
            return
        if st.st_size > MAX_SOURCE_BYTES:
            self.error(loc, f"{shown} is {st.st_size} bytes; a kernel source or header may "
                       f"have at most {MAX_SOURCE_BYTES}")
            return
        if directive != "embed" and real not in self.seen:
            self.seen.add(real)
            self.queue.append(real)

    def resolve(self, name: str, includer: str, quoted: bool, every: bool) -> list[str]:
        if os.path.isabs(name):
            return [name] if os.path.exists(name) else []
        dirs = ([os.path.dirname(includer)] if quoted else []) + self.search
        found = []
        for d in dirs:
            candidate = os.path.join(d, name)
            if os.path.exists(candidate):
                found.append(candidate)
                if not every:
                    break
        return found

    def scan_file(self, path: str, known: bytes | None = None) -> None:
        """`known`: the file's bytes, read already by the caller."""
        shown = self.display(path)
        try:
            if known is not None:
                data = known[:MAX_SOURCE_BYTES + 1]
            else:
                with open(path, "rb") as f:
                    data = f.read(MAX_SOURCE_BYTES + 1)
        except OSError:
            return  # clang reports a file it cannot read
        if len(data) > MAX_SOURCE_BYTES:
            self.error(bytes_loc(shown, data, MAX_SOURCE_BYTES), f"the file is larger than "
                       f"{MAX_SOURCE_BYTES} bytes, the limit for a kernel source or header")
            return
        try:
            decode_utf8(data, shown, "text (kernel sources are UTF-8)")
        except DiagnosticError as exc:
            self.errors.extend(exc.diagnostics)
            return
        for m in _DIRECTIVE.finditer(_blank_comments(data)):
            directive = m.group(1).decode()
            operand = m.group(2).strip()
            loc = bytes_loc(shown, data, m.start(2))
            close = {b'"': b'"', b"<": b">"}.get(operand[:1])
            end = operand.find(close, 1) if close else -1
            if close is None or end < 0:
                self.error(loc, f"#{directive} of a macro or an unterminated name is not "
                           "supported; write the header's name in quotes or <>: opgen checks "
                           "every file a kernel includes before reading it")
                continue
            name = operand[1:end].decode("utf-8", "replace")
            for found in self.resolve(name, path, close == b'"', directive == "include_next"):
                self.admit(name, found, loc, directive)

    def run(self, main: str, forced: Sequence[str],
            main_data: bytes | None = None) -> list[Diagnostic]:
        real = os.path.realpath(main)
        self.seen.add(real)
        self.queue.append(real)
        for header in forced:
            self.admit(header, header, SourceLoc(self.display(main), 1, 1), "")
        while self.queue:
            path = self.queue.pop(0)
            self.scan_file(path, main_data if path == real else None)
        return self.errors


def check_includes(main: Path | str, display: Display, search: Sequence[str],
                   forced: Sequence[str] = (), roots: Sequence[Path | str] | None = None,
                   system_roots: Sequence[Path | str] = (),
                   main_data: bytes | None = None) -> list[Diagnostic]:
    """Located errors for the includes of `main` (see the module doc). `search`: the include
    directories in the order the compiler searches them; `forced`: force-included headers;
    `roots`: the directories user files must stay in (None: anywhere, only devices and size
    are refused); `system_roots`: directories of headers that are trusted and not scanned;
    `main_data`: the bytes of `main` when the caller has read them."""
    scan = _Scan(display, [str(s) for s in search],
                 None if roots is None else [str(r) for r in roots],
                 [str(s) for s in system_roots])
    return scan.run(os.path.abspath(main), [os.path.abspath(f) for f in forced], main_data)


def default_roots(kernel: Path, project: Path) -> tuple[Path, ...]:
    """The project and the kernel's directory; for msopgen's op_kernel/<op>.cpp, the msopgen
    project around it (its op_host headers)."""
    here = Path(os.path.realpath(kernel)).parent
    roots = [project, here]
    if here.name == "op_kernel":
        roots.append(here.parent)
    return tuple(roots)


__all__ = ["MAX_SOURCE_BYTES", "check_includes", "default_roots"]
