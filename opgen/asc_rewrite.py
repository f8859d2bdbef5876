"""Single-source (.asc) programs: rewrites each `kernel<<<blocks, l2ctrl, stream>>>(args)` launch
into a simulator launch (opgen_sim/asc_launch.h), and each `__ubuf__ T name[N];` array of a
function body into a reservation of the running core's Unified Buffer (opgen_sim/ub_array.h),
keeping every line where it was."""

from __future__ import annotations

import re
from dataclasses import dataclass

from opgen.diagnostics import DiagnosticError, SourceLoc

# The header every rewritten file starts with; it defines AscLaunch and the kernel keywords.
PRELUDE = '#include "opgen_sim/asc_launch.h"\n'
# ... and the one a file with __ubuf__ arrays also includes: it defines UbArray.
UB_PRELUDE = '#include "opgen_sim/ub_array.h"\n'
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


# A kernel's declared type: `__mix__(c, v)` (one AIC and v / c AIV cores a block), `__vector__`
# or `__cube__` (one core a block); its name is the identifier before the next `(` (_declared_name).
_KERNEL_TYPE = re.compile(r"__mix__\s*\(\s*(\d+)\s*,\s*(\d+)\s*\)|__vector__|__cube__")
# A __global__ kernel's declaration and name (typed or not), and the type words.
_GLOBAL = re.compile(r"\b__global__\b[^;{}()]*?\b([A-Za-z_]\w*)\s*\(")
_KIND_WORD = re.compile(r"__mix__|__vector__|__cube__")
_DIRECTIVE = re.compile(r"[ \t]*#[ \t]*(\w*)")
# AscLaunch's ratio for a kernel of no declared type: its file's (opgen_sim/core.h,
# UnitTaskRatio: 2 where the file uses the Matmul API from the vector cores, as CANN's compiler
# then makes its kernels mix kernels).
UNIT_RATIO = -1


@dataclass(frozen=True)
class KernelKind:
    """A kernel declared with a type: its name, the AIV cores per launched block (v / c for
    `__mix__(c, v)`, 1 otherwise), whether its cube cores run beside them (`__mix__`) or instead
    of vector cores (`__cube__`), where its declaration starts, and the span of a template header
    that `#if` lines part from the type (`template <...>` / `#if` / `__global__ __mix__(1, 1)` /
    `#else` / ...), which each branch's declaration then carries itself."""

    name: str
    ratio: int
    mix: bool
    cube: bool
    start: int
    header: tuple[int, int] | None = None

    def marker(self) -> str:
        """A declaration recording the kind, put in front of the kernel's own (so that under
        `#if` only the active branch's kind exists) and read back by the launch."""
        return (f"::opgen_sim::KernelKind<{self.ratio}, {str(self.mix).lower()}, "
                f"{str(self.cube).lower()}> {KIND_PREFIX}{self.name}(); ")


KIND_PREFIX = "opgen_kernel_kind_"


def _directive_line(text: str, i: int) -> tuple[str, int] | None:
    """The directive of the preprocessor line starting at index i (a line start), and the index
    after the line (with its continuation lines), or None when it is not a directive."""
    m = _DIRECTIVE.match(text, i)
    if m is None:
        return None
    j = i
    while True:
        end = text.find("\n", j)
        if end < 0:
            return m.group(1), len(text)
        if text[end - 1:end] != "\\":
            return m.group(1), end + 1
        j = end + 1


def _declared_name(text: str, mask: list[bool], pos: int) -> str | None:
    """The name a declaration gives after index pos (after its type word): the identifier before
    the next `(` in code. Preprocessor lines are skipped, and so are the other branches of a
    conditional the type word's branch ends in (`#else` ... `#endif`); None at `;`, `{`, `}`."""
    i, n = pos, len(text)
    skipping, depth = False, 0
    at_line_start = False
    while i < n:
        if at_line_start:
            at_line_start = False
            line = _directive_line(text, i)
            hash_at = text.find("#", i)
            if line is not None and mask[hash_at]:
                directive, i = line
                if directive in ("if", "ifdef", "ifndef"):
                    depth += 1
                elif directive == "endif":
                    if depth > 0:
                        depth -= 1
                    elif skipping:
                        skipping = False
                elif directive in ("else", "elif", "elifdef", "elifndef") and depth == 0:
                    skipping = True
                at_line_start = True
                continue
        c = text[i]
        if c == "\n":
            at_line_start = True
        elif not skipping and mask[i]:
            if c in ";{}":
                return None
            if c == "(":
                j = i
                while j > 0 and text[j - 1] in " \t\r\n":
                    j -= 1
                k = j
                while k > 0 and _IDENT.match(text[k - 1]):
                    k -= 1
                word = text[k:j]
                return word if word and not word[0].isdigit() else None
        i += 1
    return None


def _statement_start(text: str, mask: list[bool], i: int) -> int:
    """Where the declaration around index i starts: after the code `;`, `{` or `}` before it, or
    after a preprocessor line, at its first non-blank character."""
    j = i
    while j > 0:
        c = text[j - 1]
        if mask[j - 1] and c in ";{}":
            break
        if c == "\n":
            line_start = text.rfind("\n", 0, j - 1) + 1
            if text[line_start:j - 1].lstrip().startswith("#"):
                break
        j -= 1
    while j < i and text[j].isspace():
        j += 1
    return j


def _header_before(text: str, mask: list[bool], start: int) -> tuple[int, int] | None:
    """The span of a `template <...>` header that ends before the preprocessor lines right
    before index `start` (a line's first character): back over blank lines and directives, and
    over the earlier branches of the conditional `start` is in (from its `#else` to its `#if`).
    None without such a header."""
    i, crossed, skipping, depth = start, False, False, 0
    while i > 0:
        line_start = text.rfind("\n", 0, i - 1) + 1
        line = text[line_start:i].strip()
        code = line.startswith("#") and mask[text.index("#", line_start)]
        m = _DIRECTIVE.match(line) if code else None
        if m is not None:
            crossed = True
            directive = m.group(1)
            if directive == "endif" and skipping:
                depth += 1
            elif directive in ("if", "ifdef", "ifndef") and skipping:
                if depth == 0:
                    skipping = False
                else:
                    depth -= 1
            elif directive in ("else", "elif", "elifdef", "elifndef") and not skipping:
                skipping, depth = True, 0
        elif line and not skipping:
            break
        i = line_start
    if not crossed:
        return None
    j = i
    while j > 0 and (text[j - 1].isspace() or not mask[j - 1]):
        j -= 1
    if j == 0 or text[j - 1] != ">":
        return None
    end, depth, k = j, 0, j - 1
    while k >= 0:  # the `<` that opens the list
        if mask[k] and text[k] in ">)":
            depth += 1
        elif mask[k] and text[k] in "<(":
            depth -= 1
            if depth == 0:
                break
        k -= 1
    if k < 0 or text[k] != "<":
        return None
    while k > 0 and text[k - 1] in " \t\r\n":
        k -= 1
    if not text[:k].endswith("template") or (k > 8 and _IDENT.match(text[k - 9])):
        return None
    return k - 8, end


def kernel_kinds(text: str) -> list[KernelKind]:
    """Every kernel declared with a type in code (comments and strings skipped; every `#if`
    branch: the markers keep the active one)."""
    mask = _code_mask(text)
    kinds: list[KernelKind] = []
    # from each type word in code, so that one in a comment (`// not __vector__/__cube__ ...`)
    # does not hide the declaration after it
    for word in _KIND_WORD.finditer(text):
        m = _KERNEL_TYPE.match(text, word.start()) if mask[word.start()] else None
        name = _declared_name(text, mask, m.end()) if m is not None else None
        if m is None or name is None or name.startswith("__"):
            continue
        start = _statement_start(text, mask, m.start())
        header = _header_before(text, mask, start)
        if m.group(1) is None:
            kinds.append(KernelKind(name, 1, False, m.group(0) == "__cube__", start, header))
            continue
        cube, vec = int(m.group(1)), int(m.group(2))
        if cube > 0 and vec % cube == 0:
            kinds.append(KernelKind(name, vec // cube, True, False, start, header))
    # a kernel declared with a type in one `#if` branch and without one in another: the untyped
    # declaration's marker says "the file's ratio" (UNIT_RATIO), so every branch has one
    typed = {k.name for k in kinds}
    for g in _GLOBAL.finditer(text):
        name = g.group(1)
        if not mask[g.start()] or name not in typed or name.startswith("__"):
            continue
        start = _statement_start(text, mask, g.start())
        # the type word may come before `__global__` (`__vector__ __global__ void k(`)
        if _KIND_WORD.search(text, start, g.end()):
            continue
        header = _header_before(text, mask, start)
        kinds.append(KernelKind(name, UNIT_RATIO, False, False, start, header))
    return kinds


def _marker_edits(text: str, kinds: list[KernelKind]) -> list[tuple[int, int, str]]:
    """Each kind's marker in front of its declaration. A template header parted from the type by
    `#if` lines moves into every branch, after the marker (and its own text turns to blanks, line
    breaks kept): between a template header and its declarator no other declaration fits."""
    mask = _code_mask(text)
    edits: list[tuple[int, int, str]] = []
    moved: set[tuple[int, int]] = set()
    for k in kinds:
        if k.header is None:
            edits.append((k.start, k.start, k.marker()))
            continue
        hs, he = k.header
        flat = "".join(c if mask[hs + i] and c not in "\r\n" else " "
                       for i, c in enumerate(text[hs:he]))
        edits.append((k.start, k.start, k.marker() + flat + " "))
        if k.header not in moved:
            moved.add(k.header)
            edits.append((hs, he, "".join(c if c == "\n" else " " for c in text[hs:he])))
    return edits


def _base_name(callee: str) -> str:
    """`ns::kernel<T, 4>` -> `kernel`."""
    name = callee.split("<", 1)[0]
    return name.rsplit("::", 1)[-1].strip()


def _kind_of(callee: str, typed: set[str]) -> str | None:
    """The kind marker a launch of `callee` reads (qualified as the callee is), or None for a
    kernel of no declared type."""
    base = _base_name(callee)
    if base not in typed:
        return None
    name = "".join(callee.split("<", 1)[0].split())
    qualifier = name[:len(name) - len(base)]
    return f"decltype({qualifier}{KIND_PREFIX}{base}())"


def rewrite(text: str, path: str) -> str:
    """The program with its launches and __ubuf__ arrays rewritten, after PRELUDE (and UB_PRELUDE)
    and `#line 1 "path"`: compiler messages name the user's file and lines (columns shift on a
    rewritten line)."""
    edits: list[tuple[int, int, str]] = []
    kinds = kernel_kinds(text)
    edits += _marker_edits(text, kinds)
    typed = {k.name for k in kinds}
    for launch in find_launches(text, path):
        name = " ".join(launch.callee.split())
        # the line breaks between the kernel's name and `<<<`, which the launcher drops, follow
        # it: the arguments stay on their line
        gap = text[launch.callee_start + len(launch.callee):launch.config_start - 3]
        edits.append((launch.callee_start, launch.config_end + 3,
                      launcher(name, launch.callee, text[launch.config_start:launch.config_end],
                               UNIT_RATIO, kind=_kind_of(launch.callee, typed))
                      + "\n" * gap.count("\n")))
    arrays = ub_arrays(text, path)
    edits += [(a.start, a.end, a.replacement()) for a in arrays]
    out: list[str] = [PRELUDE, UB_PRELUDE if arrays else "", f'#line 1 "{c_string(path)}"\n']
    pos = 0
    for start, end, replacement in sorted(edits):
        out.append(text[pos:start])
        out.append(replacement)
        pos = end
    out.append(text[pos:])
    return "".join(out)


def launcher(name: str, callee: str, config: str, task_ratio: int = 1,
             kind: str | None = None) -> str:
    """The simulator launcher of `callee<<<config>>>`, to be applied to the kernel's arguments:
    the one form of a launch, shared by <<<>>> rewrites and generated aclrtlaunch_ functions.
    `task_ratio`: the AIV cores of each block (a `__mix__(1, 2)` kernel's 2; UNIT_RATIO: the
    kernel file's); `kind`: the type of a kernel declared with one (a KernelKind marker, read in
    C++: the active declaration's under `#if`), which wins over `task_ratio`."""
    if kind is not None:
        ratio = f"<{kind}::kRatio, {kind}::kMix, {kind}::kCube>"
    else:
        ratio = f"<{task_ratio}>" if task_ratio != 1 else ""
    return (f'::opgen_sim::AscLaunch{ratio}("{c_string(name)}", '
            f"[&](const auto&... opgen_arg) {{ {callee}(opgen_arg...); }}, {config})")


def c_string(text: str) -> str:
    """`text` as the body of a C++ string literal."""
    return text.replace("\\", "\\\\").replace('"', '\\"')


# ---- __ubuf__ arrays ---------------------------------------------------------------------------
# The NPU compiler places a function's `__ubuf__ T name[N];` arrays in the core's Unified Buffer;
# on the CPU `__ubuf__` qualifies nothing, so each such declaration becomes a reservation of the
# running block's UB (opgen_sim/ub_array.h) and a reference `T (&name)[N]` to it. Pointers
# (`__ubuf__ T* p`) and parameters stay as they are: only the array declarations of a function
# body place data.
_UBUF = re.compile(r"\b__ubuf__\b")
_STORAGE = re.compile(r"\b(static|extern|thread_local|constexpr)\b")
# an array declarator: a name and its bounds (a bound may hold one level of brackets, a[b[0]])
_ARRAY_DECLARATOR = re.compile(r"\s*([A-Za-z_]\w*)\s*((?:\[(?:[^\[\]]|\[[^\[\]]*\])*\]\s*)+)")
# the words that may come before `__ubuf__` in a declaration
_SPECIFIERS = {"static", "extern", "thread_local", "constexpr", "const", "volatile"}
# the words that may stand between `)` and the `{` of a function body, or begin a block
_BLOCK_WORDS = {"else", "do", "try", "const", "noexcept", "mutable", "override"}


@dataclass(frozen=True)
class UbArrayDecl:
    """One `__ubuf__` declaration statement of a function body: its span ([start, end), the `;`
    included), its type (`__ubuf__` left out) and its declarators, each an array's (name, bounds)
    or any other declarator's text, kept as the program wrote it."""

    start: int
    end: int
    spec: str  # the declaration's type, without __ubuf__
    full_spec: str  # as written, for declarators that are not arrays
    declarators: tuple[tuple[str, str] | str, ...]
    line_breaks: int

    def replacement(self) -> str:
        """The statement rewritten on the same lines: a UbArray reservation and a reference for
        each array, the other declarators as they were."""
        parts: list[str] = []
        for d in self.declarators:
            if isinstance(d, str):
                parts.append(f"{self.full_spec} {d};")
                continue
            name, bounds = d
            decl = c_string(f"{self.spec} {name}{bounds}")
            holder = f"opgen_ubuf_{name}"
            parts.append(f'::opgen_sim::UbArray<{self.spec}{bounds}> {holder}("{decl}"); '
                         f"{self.spec} (&{name}){bounds} = {holder}.ref;")
        return " ".join(parts) + "\n" * self.line_breaks


def _directive_mask(text: str) -> list[bool]:
    """True for each character of a preprocessor directive line (with its continuations)."""
    mask = [False] * len(text)
    pos = 0
    in_directive = False
    for line in text.splitlines(keepends=True):
        body = line.rstrip("\r\n")
        if in_directive or body.lstrip().startswith("#"):
            for k in range(pos, pos + len(line)):
                mask[k] = True
            in_directive = body.endswith("\\")
        pos += len(line)
    return mask


def _previous(text: str, live: list[bool], i: int) -> int:
    """Index of the last code character before i that is not white space, or -1."""
    i -= 1
    while i >= 0 and (not live[i] or text[i].isspace()):
        i -= 1
    return i


def _word_before(text: str, end: int) -> str:
    """The identifier ending at `end` (inclusive), or ''."""
    j = end
    while j >= 0 and _IDENT.match(text[j]):
        j -= 1
    return text[j + 1:end + 1]


def _in_block_scope(text: str, live: list[bool], at: int) -> bool:
    """Whether `at` lies in a function body or a block of one (not at namespace or class scope):
    the innermost `{` around it follows `)`, `]`, a block, a statement or a word that may stand
    there (else, do, try, const, ...)."""
    depth = 0
    i = at - 1
    while i >= 0:
        if live[i]:
            if text[i] == "}":
                depth += 1
            elif text[i] == "{":
                if depth == 0:
                    break
                depth -= 1
        i -= 1
    if i < 0:
        return False
    j = _previous(text, live, i)
    if j < 0:
        return False
    if text[j] in ")]{};":
        return True
    return _word_before(text, j) in _BLOCK_WORDS


def _statement_end(text: str, live: list[bool], start: int) -> int:
    """Index of the `;` ending the statement from `start`, or -1 if a block or the end of one
    comes first (not a plain declaration). Braces after `=` or `]` are an initializer's."""
    depth = 0
    for i in range(start, len(text)):
        if not live[i]:
            continue
        c = text[i]
        if c == "{" and depth == 0 and text[max(_previous(text, live, i), 0)] not in "=]":
            return -1
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
            if depth < 0:
                return -1
        elif c == ";" and depth == 0:
            return i
    return -1


def _split_top(text: str) -> list[str]:
    """`text` split at the commas outside brackets."""
    parts: list[str] = []
    depth, last = 0, 0
    for i, c in enumerate(text):
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif c == "," and depth == 0:
            parts.append(text[last:i])
            last = i + 1
    parts.append(text[last:])
    return parts


def ub_arrays(text: str, path: str) -> list[UbArrayDecl]:
    """The `__ubuf__` array declarations of function bodies, in order. A static or extern one,
    or one with an initializer, is a located error: the simulator places arrays of a block."""
    if "__ubuf__" not in text:
        return []
    code = _code_mask(text)
    directive = _directive_mask(text)
    live = [c and not d for c, d in zip(code, directive, strict=True)]
    found: list[UbArrayDecl] = []
    for m in _UBUF.finditer(text):
        if not live[m.start()]:
            continue
        start = m.start()
        before = _previous(text, live, start)
        while before >= 0 and _word_before(text, before) in _SPECIFIERS:  # `static __ubuf__ ...`
            start = before + 1 - len(_word_before(text, before))
            before = _previous(text, live, start)
        if before >= 0 and text[before] not in ";{}":
            continue  # not a statement's first word (a parameter, a cast, a pointer's type)
        if not _in_block_scope(text, live, start):
            continue
        end = _statement_end(text, live, start)
        if end < 0:
            continue
        # the statement with comments blanked, one line
        stmt = "".join(c if live[start + k] else " " for k, c in enumerate(text[start:end]))
        stmt = " ".join(stmt.split())
        segments = _split_top(stmt)
        first = _ARRAY_DECLARATOR.search(segments[0])
        head = segments[0][:first.start()] if first else ""
        if first is None or "__ubuf__" not in head or any(ch in head for ch in "*&(="):
            continue  # a pointer, an array of pointers, brackets in an initializer: not placed data
        if first.end() != len(segments[0]):
            if segments[0][first.end():].lstrip().startswith(("=", "{")):
                _initializer_error(text, path, m.start())
            continue
        if _STORAGE.search(head):
            raise DiagnosticError.single(
                _loc(path, text, m.start()),
                "a static, extern or constexpr __ubuf__ array is not supported by the simulator: "
                "declare it in the kernel's body, where it is placed in the running core's "
                "Unified Buffer")
        declarators: list[tuple[str, str] | str] = [(first.group(1), first.group(2).strip())]
        for seg in segments[1:]:
            arr = _ARRAY_DECLARATOR.fullmatch(seg)
            if arr is not None:
                declarators.append((arr.group(1), arr.group(2).strip()))
            elif "=" in seg and "[" in seg.split("=", 1)[0] and "*" not in seg.split("=", 1)[0]:
                _initializer_error(text, path, m.start())
            else:
                declarators.append(seg.strip())
        spec = " ".join(_UBUF.sub(" ", head).split())
        found.append(UbArrayDecl(start, end + 1, spec, head.strip(), tuple(declarators),
                                 text.count("\n", start, end + 1)))
    return found


def _initializer_error(text: str, path: str, at: int) -> None:
    raise DiagnosticError.single(
        _loc(path, text, at),
        "the simulator does not support an initializer on a __ubuf__ array (it places the array "
        "in the Unified Buffer when the block reaches it): fill it with asc_duplicate or a copy")
