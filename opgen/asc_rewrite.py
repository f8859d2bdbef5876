"""Single-source (.asc) programs: rewrites each `kernel<<<blocks, l2ctrl, stream>>>(args)` launch
into a simulator launch (opgen_sim/asc_launch.h), keeping every line where it was."""

from __future__ import annotations

import re
from dataclasses import dataclass

from opgen.diagnostics import DiagnosticError, SourceLoc

# The header every rewritten file starts with; it defines AscLaunch and the kernel keywords.
PRELUDE = '#include "opgen_sim/asc_launch.h"\n'
_IDENT = re.compile(r"[A-Za-z_0-9]")
_CLOSERS = {")": "(", "]": "[", "}": "{"}


@dataclass(frozen=True)
class Launch:
    """One launch: the callee's span, the configuration's span (between <<< and >>>)."""

    callee_start: int
    callee: str
    config_start: int
    config_end: int  # index of the closing >>>


def _code_mask(text: str) -> list[bool]:
    """True for each character that is code: not in a comment, string or character literal."""
    mask = [True] * len(text)
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
        elif c == "R" and text.startswith('R"', i) and (i == 0 or not _IDENT.match(text[i - 1])):
            m = re.match(r'R"([^()\\\s]{0,16})\(', text[i:])
            if m is None:
                i += 1
                continue
            end = text.find(")" + m.group(1) + '"', i + m.end())
            j = n if end < 0 else end + len(m.group(1)) + 2
        elif c in "\"'":
            if c == "'" and i > 0 and text[i - 1].isalnum():  # a digit separator: 1'000
                i += 1
                continue
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
        else:
            i += 1
            continue
        for k in range(i, j):
            mask[k] = False
        i = j
    return mask


def _loc(path: str, text: str, index: int) -> SourceLoc:
    line = text.count("\n", 0, index) + 1
    return SourceLoc(path, line, index - (text.rfind("\n", 0, index) + 1) + 1)


def _callee_start(text: str, end: int) -> int:
    """Start of the kernel expression ending at `end`: names, `::` and template argument lists,
    with white space, line breaks included, before `<<<` and between them (CANN's samples break
    `kernel<T>` and `<<<...>>>` over two lines)."""
    i = end
    while True:
        while i > 0 and text[i - 1] in " \t\r\n":
            i -= 1
        if i > 0 and text[i - 1] == ">":  # a template argument list: find its `<`
            depth, j = 0, i - 1
            while j >= 0:
                if text[j] in ">)]":
                    depth += 1
                elif text[j] in "<([":
                    depth -= 1
                    if depth == 0:
                        break
                j -= 1
            if j < 0:
                return i
            i = j
            continue
        j = i
        while j > 0 and _IDENT.match(text[j - 1]):
            j -= 1
        if j == i:
            return i
        i = j
        if text[max(0, i - 2):i] == "::":
            i -= 2
            continue
        return i


def find_launches(text: str, path: str) -> list[Launch]:
    """Every <<<...>>> launch in code (not comments or strings), in order."""
    mask = _code_mask(text)
    launches: list[Launch] = []
    pos = 0
    while (start := text.find("<<<", pos)) >= 0:
        pos = start + 3
        if not mask[start]:
            continue
        depth, j = 0, pos
        while j < len(text):
            if mask[j]:
                if text.startswith(">>>", j) and depth == 0:
                    break
                if text[j] in "([{":
                    depth += 1
                elif text[j] in ")]}":
                    depth -= 1
            j += 1
        if j >= len(text):
            raise DiagnosticError.single(_loc(path, text, start),
                                         "kernel launch: '<<<' without a closing '>>>'")
        after = j + 3
        while after < len(text) and text[after].isspace():
            after += 1
        if not text.startswith("(", after):
            raise DiagnosticError.single(_loc(path, text, after),
                                         "kernel launch: expected '(' and the kernel's arguments "
                                         "after '>>>'")
        callee_start = _callee_start(text, start)
        callee = text[callee_start:start].strip()
        if not callee:
            raise DiagnosticError.single(_loc(path, text, start),
                                         "kernel launch: expected a kernel name before '<<<'")
        launches.append(Launch(callee_start, callee, pos, j))
        pos = j + 3
    return launches


def rewrite(text: str, path: str) -> str:
    """The program with its launches rewritten, after PRELUDE and `#line 1 "path"`: compiler
    messages name the user's file and lines (columns shift on a launch's own line)."""
    out: list[str] = [PRELUDE, f'#line 1 "{c_string(path)}"\n']
    pos = 0
    for launch in find_launches(text, path):
        name = " ".join(launch.callee.split())
        out.append(text[pos:launch.callee_start])
        out.append(launcher(name, launch.callee, text[launch.config_start:launch.config_end]))
        # the line breaks between the kernel's name and `<<<`, which the launcher drops, follow
        # it: the arguments stay on their line
        gap = text[launch.callee_start + len(launch.callee):launch.config_start - 3]
        out.append("\n" * gap.count("\n"))
        pos = launch.config_end + 3
    out.append(text[pos:])
    return "".join(out)


def launcher(name: str, callee: str, config: str) -> str:
    """The simulator launcher of `callee<<<config>>>`, to be applied to the kernel's arguments:
    the one form of a launch, shared by <<<>>> rewrites and generated aclrtlaunch_ functions."""
    return (f'::opgen_sim::AscLaunch("{c_string(name)}", '
            f"[&](const auto&... opgen_arg) {{ {callee}(opgen_arg...); }}, {config})")


def c_string(text: str) -> str:
    """`text` as the body of a C++ string literal."""
    return text.replace("\\", "\\\\").replace('"', '\\"')
