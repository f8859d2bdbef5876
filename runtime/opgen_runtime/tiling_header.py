"""The kernel's view of an op_host tiling header.

CANN builds an op's kernel with the tiling struct its op_host registers: the
BEGIN_TILING_DATA_DEF ... END_TILING_DATA_DEF blocks and their REGISTER_TILING_DATA_CLASS, not the
rest of the header. Operator libraries' headers (hicann/ops-math) also include host-only headers
(opbase's op_host/tiling_base_class.h, platform/platform_ascendc.h, log/log.h) and declare host
classes, which a kernel cannot compile; and they register the struct once per tiling key
(`REGISTER_TILING_DATA_CLASS(Op_101, S)`, the Ascend 950's dispatch). For such a header the kernel
gets a derived one: the blocks, the default registrations and the namespace-scope integer
constants, in their namespaces, from the header and the headers of its own folder it includes.
A header that includes nothing else and registers no tiling key is used as it is.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path

# Includes a kernel compiles as the op_host's tiling header has them.
_KERNEL_SAFE = {"register/tilingdata_base.h", "kernel_tiling/kernel_tiling.h", "cstdint",
                "stdint.h", "cstddef", "stddef.h", "cstring", "string.h", "type_traits"}
_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*([<"])([^>"]+)[>"]', re.M)
_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/|\"(?:\\.|[^\"\\\n])*\"", re.S)
_NAMESPACE = re.compile(r"\bnamespace\s+([A-Za-z_][\w:]*)?\s*\{")
_BLOCK = re.compile(r"\bBEGIN_TILING_DATA_DEF\s*\(.*?\bEND_TILING_DATA_DEF\b\s*;?", re.S)
_REGISTER = re.compile(r"\bREGISTER_TILING_DATA_CLASS\s*\(\s*(\w+)\s*,\s*([\w:]+)\s*\)\s*;?")
_CONSTANT = re.compile(r"^[ \t]*(?:static[ \t]+)?(?:constexpr|const)[ \t]+(?:static[ \t]+)?"
                       r"(?:unsigned[ \t]+)?[\w:]+[ \t]+\w+[ \t]*=[^;{}]*;", re.M)
# a registration per tiling key: <OpType>_<key>
_KEYED = re.compile(r"\w+_\d+")
FORMAT = "opgen-kernel-tiling-header-v2"


@dataclass(frozen=True)
class _Item:
    namespaces: tuple[str, ...]
    text: str


def _code(text: str) -> str:
    """`text` with comments blanked (line breaks kept) and string literals kept."""
    def blank(m: re.Match[str]) -> str:
        s = m.group(0)
        return s if s.startswith('"') else re.sub(r"[^\n]", " ", s)
    return _COMMENT.sub(blank, text)


def _local_includes(path: Path, code: str) -> list[Path]:
    return [path.parent / name for quote, name in _INCLUDE.findall(code)
            if quote == '"' and (path.parent / name).is_file()]


def needs_derived(header: Path) -> bool:
    """Whether the kernel needs a derived header: `header` (or a header of its folder it
    includes) includes something a kernel does not compile, or registers a tiling key."""
    seen: set[Path] = set()
    todo = [header]
    while todo:
        path = todo.pop().resolve()
        if path in seen:
            continue
        seen.add(path)
        code = _code(path.read_text(errors="replace"))
        for quote, name in _INCLUDE.findall(code):
            if quote == '"' and (path.parent / name).is_file():
                todo.append(path.parent / name)
            elif name not in _KERNEL_SAFE:
                return True
        if any(_KEYED.fullmatch(m.group(1)) for m in _REGISTER.finditer(code)):
            return True
        # a header shared by several ops (ops-nn's foreach_tiling_def.h registers
        # ForeachCommonTilingData for ForeachExp, ForeachSoloTilingDataRegbase for
        # ForeachMulScalarInplace...): each op's kernel gets its own registration
        if len({m.group(1) for m in _REGISTER.finditer(code)}) > 1:
            return True
    return False


def _items(path: Path, seen: set[Path]) -> list[_Item]:
    """The blocks, default registrations and integer constants of `path` after those of the
    headers of its folder it includes (each file once), with their namespaces."""
    path = path.resolve()
    if path in seen:
        return []
    seen.add(path)
    code = _code(path.read_text(errors="replace"))
    items: list[_Item] = []
    for inc in _local_includes(path, code):
        items += _items(inc, seen)
    found: list[tuple[int, int, str]] = []
    for rx in (_BLOCK, _CONSTANT):
        found += [(m.start(), m.end(), m.group(0).strip()) for m in rx.finditer(code)]
    for m in _REGISTER.finditer(code):
        if not _KEYED.fullmatch(m.group(1)):
            found.append((m.start(), m.end(), m.group(0).strip()))
    found.sort()
    # the namespace of each position: `namespace X {` pushes X ("" when anonymous), any other `{`
    # pushes None, `}` pops
    stack: list[str | None] = []
    events = sorted([(m.end() - 1, "ns", m.group(1) or "") for m in _NAMESPACE.finditer(code)]
                    + [(i, c, "") for i, c in enumerate(code) if c in "{}"])
    e = 0
    last_end = -1
    for start, end, text in found:
        if start < last_end:  # inside a block found already (a constant in a block's macro)
            continue
        while e < len(events) and events[e][0] < start:
            pos, kind, name = events[e]
            if kind == "ns":
                stack.append(name)
                # the `{` of this namespace is the same position: skip its generic event
                if e + 1 < len(events) and events[e + 1][0] == pos and events[e + 1][1] == "{":
                    e += 1
            elif kind == "{":
                stack.append(None)
            elif stack:
                stack.pop()
            e += 1
        if any(s is None for s in stack):
            continue  # inside a class or function: not namespace scope
        items.append(_Item(tuple(s for s in stack if s is not None), text))
        last_end = end
    return items


def derived_text(header: Path, op_type: str | None = None) -> str:
    """The derived header's text for `header`: as the struct header CANN generates for the
    kernel, the blocks and registrations, and of the constants only those a block names (an
    array's length): the kernel may declare the header's other constants itself."""
    out = ["// The kernel's view of an op_host tiling header (opgen_runtime/tiling_header.py):",
           f"// the tiling blocks of {header.name} and its own headers.",
           "#pragma once", '#include "register/tilingdata_base.h"',
           # the advanced APIs' tiling structs a block nests (TILING_DATA_FIELD_DEF_STRUCT of
           # TCubeTiling, SoftMaxTiling...): their kernel-side forms, as CANN's kernel sees them
           '#include "kernel_tiling/kernel_tiling.h"', ""]
    items = _items(header, set())
    # CANN's kernel of `op_type` sees the struct registered for `op_type`: when the header
    # registers structs for several op types, only this op's registrations are kept
    regs = [(i, _REGISTER.search(i.text)) for i in items]
    own = {id(i) for i, m in regs if m is not None and m.group(1) == op_type}
    if own:
        items = [i for i, m in regs if m is None or id(i) in own]
    blocks = " ".join(i.text for i in items if not _CONSTANT.match(i.text))
    named = set(re.findall(r"\w+", blocks))
    for item in items:
        if _CONSTANT.match(item.text):
            m = re.search(r"(\w+)\s*=", item.text)
            if m is None or m.group(1) not in named:
                continue
        opened = [f"namespace {n} {{" if n else "namespace {" for n in item.namespaces]
        closed = ["}" for _ in item.namespaces]
        out.append(" ".join([*opened, item.text, *closed]) if opened else item.text)
    return "\n".join(out) + "\n"


def kernel_tiling_header(header: Path, cache: Path, op_type: str | None = None) -> Path:
    """The header a kernel is built with for the op_host tiling header `header`: the header
    itself, or its derived header (written, content-addressed, under `cache`)."""
    if not needs_derived(header):
        return header
    text = derived_text(header, op_type)
    digest = hashlib.sha256((FORMAT + "\0" + text).encode()).hexdigest()[:24]
    out = cache / f"{header.stem}-{digest}.h"
    if not out.is_file():
        cache.mkdir(parents=True, exist_ok=True)
        tmp = out.with_suffix(f".{digest}.tmp")
        tmp.write_text(text)
        tmp.replace(out)
    return out
