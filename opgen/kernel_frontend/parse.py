"""Stage 4, kernel frontend: parse one kernel file with libclang into a `KernelInfo`.

Function bodies are skipped (CXTranslationUnit_SkipFunctionBodies): a body is checked by
the compiler that builds the kernel (bisheng on hardware, g++ in the simulator), while opgen
only needs declarations — entries, parameters, records. Skipping bodies is what makes a
parse take milliseconds and makes it independent of the huge Ascend C API surface, which
the stub headers declare only loosely. The tiling macros used inside an entry's body are
read from its tokens instead of its AST.

Any clang error makes the result untrustworthy (clang recovers and returns a partial AST),
so diagnostics come back in `KernelInfo.diagnostics` and callers stop there.
"""

from __future__ import annotations

import contextlib
import functools
import os
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from opgen.diagnostics import Diagnostic, Severity, SourceLoc
from opgen.kernel_frontend import toolchain
from opgen.kernel_frontend.includes import check_includes
from opgen.kernel_frontend.model import (
    SCALAR_TYPES,
    KernelEntry,
    KernelInfo,
    KernelParam,
    TemplateParam,
    TilingField,
    TilingRef,
    TilingStruct,
    TilingStyle,
)

if TYPE_CHECKING:
    import clang.cindex as ci

Display = Callable[[str], str]

TILING_MACROS = ("GET_TILING_DATA", "GET_TILING_DATA_WITH_STRUCT",
                 "GET_TILING_DATA_PTR_WITH_STRUCT", "REGISTER_TILING_DEFAULT")
_DEFAULT_ALIAS = "opgen_tiling_default"
_CLASS_ALIAS = "opgen_tiling_class_"
_FLOAT16_KIND = 32  # CXType_Float16


@dataclass(frozen=True)
class ParseResult:
    info: KernelInfo
    dependencies: tuple[str, ...]  # absolute paths of every included user/system file


@functools.cache
def _index() -> ci.Index:
    import clang.cindex as ci

    # Declarations read from the precompiled stub headers are not visited: only the stubs'
    # (which the extractor skips anyway).
    return ci.Index.create(excludeDecls=True)


# A kernel whose first directive (after blanks and comments, no line splice) includes the
# stubs' kernel_operator.h is parsed against them precompiled (_stub_pch): the same
# declarations, in the same order, read from one file instead of parsed again.
_STUB_HEADER = "kernel_operator.h"
_LEADS_WITH_STUB = re.compile(
    rb'(?:[ \t\r\n\f\v]+|//[^\n\\]*\n|/\*.*?\*/)*#[ \t]*include[ \t]*'
    rb'(?:"kernel_operator\.h"|<kernel_operator\.h>)[ \t]*(?://[^\n\\]*)?\r?\n', re.S)


def _uses_stub_pch(main: str, forced: Sequence[str], content: bytes | None = None) -> bool:
    """The precompiled stubs give `main` what parsing them in place would: nothing comes
    before the stubs' include (no forced header, no directive, no code) and the include
    finds the stubs' header (not one of the kernel's own folder)."""
    if forced or os.path.exists(os.path.join(os.path.dirname(main), _STUB_HEADER)):
        return False
    if content is not None:
        head = content[:16384]
    else:
        try:
            with open(main, "rb") as f:
                head = f.read(16384)
        except OSError:
            return False
    return _LEADS_WITH_STUB.match(head) is not None


@functools.cache
def _stub_pch_key() -> str | None:
    """What the precompiled stubs depend on: the stubs (clang checks their mtimes too), the
    flags, libclang and the frontend."""
    import hashlib

    h = hashlib.sha256()
    for part in (toolchain.FRONTEND_VERSION, toolchain.libclang_version(),
                 toolchain.stub_digest(), "\0".join(toolchain.parse_flags())):
        h.update(part.encode() + b"\0")
    try:
        for stub in sorted(toolchain.stub_dir().rglob("*.h")):
            st = stub.stat()
            h.update(f"{stub}\0{st.st_size}\0{st.st_mtime_ns}\0".encode())
    except OSError:
        return None
    return h.hexdigest()[:32]


def _stub_pch() -> str | None:
    """The stub headers precompiled with the kernels' flags, in opgen's cache (built on first
    use); None if they cannot be built or saved."""
    import clang.cindex as ci

    from opgen_runtime.cachedir import cache_root

    key = _stub_pch_key()
    if key is None:
        return None
    path = cache_root() / "kernel-frontend" / "pch" / f"{key}.pch"
    if path.is_file():
        return str(path)
    # the source is virtual, beside the stubs: its quoted include finds theirs
    source = str(toolchain.stub_dir() / "opgen_stub_pch.h")
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        tu = _index().parse(source, args=[*toolchain.parse_flags(), "-x", "c++-header"],
                            unsaved_files=[(source, f'#include "{_STUB_HEADER}"\n')],
                            options=ci.TranslationUnit.PARSE_INCOMPLETE
                            | ci.TranslationUnit.PARSE_SKIP_FUNCTION_BODIES)
        if any(d.severity >= ci.Diagnostic.Error for d in tu.diagnostics):
            return None
        path.parent.mkdir(parents=True, exist_ok=True)
        tu.save(str(tmp))
        os.replace(tmp, path)
    except (OSError, ci.TranslationUnitLoadError, ci.TranslationUnitSaveError):
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        return None
    return str(path)


def default_display(root: Path) -> Display:
    """Project-relative paths for files under `root`, absolute ones elsewhere."""
    root_s = str(root.resolve())
    shown: dict[str, str] = {}  # a kernel's locations name few files, each many times

    def show(path: str) -> str:
        text = shown.get(path)
        if text is None:
            p = os.path.normpath(os.path.abspath(path))
            if p == root_s or p.startswith(root_s + os.sep):
                text = Path(os.path.relpath(p, root_s)).as_posix()
            else:
                text = Path(p).as_posix()
            if len(shown) < 4096:
                shown[path] = text
        return text

    return show


def parse_kernel(path: Path, display: Display, defines: Sequence[str] = (),
                 roots: Sequence[Path | str] | None = None,
                 content: bytes | None = None) -> ParseResult:
    """Parse `path` (which must exist) and extract what the cross-check needs. `defines`
    (NAME=VALUE) are the macros the build gives the kernel, e.g. DTYPE_X=float,
    `@include=<path>` a header it force-includes (the op_host tiling header) and
    `@include_dir=<dir>` a directory on its include path (the spec's kernel.include_dirs).
    Its includes are checked first (includes.check_includes): devices, oversized and
    non-UTF-8 files and, with `roots`, files outside those directories are located errors.
    `content`: the file's bytes when the caller has read them (read here otherwise)."""
    import clang.cindex as ci

    main = os.path.abspath(path)
    shown = display(main)
    args = list(toolchain.parse_flags())
    forced: list[str] = []
    search = [str(toolchain.stub_dir())]
    for d in defines:  # NAME=VALUE, @include=<path> (forced include), @include_dir=<dir>
        if d.startswith("@include="):
            args += ["-include", d.removeprefix("@include=")]
            forced.append(d.removeprefix("@include="))
        elif d.startswith("@include_dir="):
            args.append(f"-I{d.removeprefix('@include_dir=')}")
            search.append(d.removeprefix("@include_dir="))
        else:
            args.append(f"-D{d}")
    system = toolchain.system_include_dirs()
    refused = check_includes(main, display, [*search, *system], forced, roots,
                             [toolchain.stub_dir(), *toolchain.runtime_include_dirs(), *system],
                             content)
    if refused:
        return ParseResult(KernelInfo(shown, (), (), (), (), tuple(refused)), ())
    # Bodies are skipped (their errors are the build's), and so is the end of the translation
    # unit's instantiation of function templates, whose bodies would be skipped anyway: the
    # same declarations and diagnostics, a quarter of a scaffolded kernel's parse saved.
    options = (ci.TranslationUnit.PARSE_SKIP_FUNCTION_BODIES
               | ci.TranslationUnit.PARSE_INCOMPLETE)
    pch = _stub_pch() if _uses_stub_pch(main, forced, content) else None
    tu = _index().parse(main, args=[*args, "-include-pch", pch] if pch else args,
                        options=options)
    errors = tuple(_diagnostics(tu, shown, display))
    if errors and pch:  # a kernel with errors is reported as parsed in place, exactly
        tu = _index().parse(main, args=args, options=options)
        errors = tuple(_diagnostics(tu, shown, display))
    library: tuple[str, ...] = ()
    if errors:
        # The stubs declare the API surface kernels commonly use outside function bodies; a
        # kernel that uses more (EVENT_ID0 in a member initialiser, a constant of the API, a
        # header CANN has and the stubs do not) is parsed again against the simulator's own
        # headers, which the build uses: it is an error only if it is one there too.
        real = _parse_with_runtime_headers(main, args, options)
        # (the host compiler's intrinsic headers, which those include, are GCC's: libclang
        # refuses their definitions of its own builtins, in them and nowhere else)
        system = tuple(d.rstrip(os.sep) + os.sep for d in toolchain.system_include_dirs())
        if real is not None:  # its errors, if any, are the build's: those are reported
            tu, errors = real, tuple(_diagnostics(real, shown, display, skip=system))
            library = tuple(str(d) + os.sep for d in toolchain.runtime_include_dirs())
    deps = _dependencies(tu)
    if errors:
        return ParseResult(KernelInfo(shown, (), (), (), (), errors), deps)
    return ParseResult(_Extractor(tu, main, shown, display, content, library).run(), deps)


def _parse_with_runtime_headers(main: str, args: Sequence[str], options: int
                                ) -> ci.TranslationUnit | None:
    """`main` parsed with the simulator's headers in place of the stubs (the kernel keywords
    still marked for the extractor), or None without them."""
    runtime = toolchain.runtime_include_dirs()
    if not runtime:
        return None
    stub = f"-I{toolchain.stub_dir()}"
    real_args = [f"-I{runtime[0]}" if a == stub else a for a in args]
    real_args += [f"-D{k}={v}" for k, v in toolchain.KERNEL_MARKERS]
    if "-include" in real_args:  # a forced op_host tiling header: its classes at global
        # scope, as the build sees them (opgen_runtime/oplib.py; the stubs do the same)
        last = len(real_args) - 1 - real_args[::-1].index("-include")
        real_args[last + 2:last + 2] = ["-include", "opgen_sim/optiling_visible.h"]
    return _index().parse(main, args=real_args, options=options)


def _diagnostics(tu: ci.TranslationUnit, shown: str, display: Display,
                 skip: tuple[str, ...] = ()) -> Iterator[Diagnostic]:
    """The errors of `tu`, located; none from files under the `skip` directories."""
    import clang.cindex as ci

    last = SourceLoc(shown, 1, 1)  # an unlocated one (too many errors) goes where clang was
    for d in tu.diagnostics:
        if d.severity < ci.Diagnostic.Error:
            continue
        f = d.location.file
        if skip and f is not None and os.path.abspath(f.name).startswith(skip):
            continue
        if f is not None and d.location.line > 0:
            last = SourceLoc(display(f.name), d.location.line, d.location.column)
        yield Diagnostic(last, d.spelling, Severity.ERROR)


def _dependencies(tu: ci.TranslationUnit) -> tuple[str, ...]:
    stubs = str(toolchain.stub_dir()) + os.sep
    found = {os.path.abspath(inc.include.name) for inc in tu.get_includes()}
    return tuple(sorted(p for p in found if not p.startswith(stubs)))


class _Extractor:
    def __init__(self, tu: ci.TranslationUnit, main: str, shown: str, display: Display,
                 source: bytes | None = None, library: tuple[str, ...] = ()) -> None:
        self.tu = tu
        self.main = main
        self.shown = shown
        self.display = display
        self.source = source if source is not None else Path(main).read_bytes()
        self.stubs = str(toolchain.stub_dir()) + os.sep
        self.system = tuple(d.rstrip(os.sep) + os.sep for d in toolchain.system_include_dirs())
        self.library = library  # the simulator's headers, when the kernel was parsed with them
        self.entries: dict[str, KernelEntry] = {}
        self.functions: list[tuple[str, SourceLoc]] = []
        self.structs: dict[str, TilingStruct] = {}
        self.registered: list[tuple[str, str]] = []
        self._file_kind: dict[str, str] = {}

    def run(self) -> KernelInfo:
        self.walk(self.tu.cursor, ())
        return KernelInfo(self.shown, tuple(self.entries.values()), tuple(self.functions),
                          tuple(self.structs.values()), tuple(self.registered))

    def kind_of_file(self, name: str) -> str:
        """'main', 'user' (a header of the project), or 'other' (stubs, system headers)."""
        kind = self._file_kind.get(name)
        if kind is None:
            full = os.path.abspath(name)
            if full == self.main:
                kind = "main"
            elif full.startswith((self.stubs, *self.system, *self.library)):
                kind = "other"
            else:
                kind = "user"
            self._file_kind[name] = kind
        return kind

    def loc(self, cursor: ci.Cursor) -> SourceLoc:
        where = cursor.location
        name = where.file.name if where.file is not None else self.main
        return SourceLoc(self.display(name), where.line, where.column)

    def walk(self, parent: ci.Cursor, scope: tuple[str, ...]) -> None:
        import clang.cindex as ci

        K = ci.CursorKind
        for c in parent.get_children():
            f = c.location.file
            if f is None:
                continue
            kind = self.kind_of_file(f.name)
            if kind == "other":
                continue
            ck = c.kind
            if ck == K.LINKAGE_SPEC:
                self.walk(c, scope)
            elif ck == K.NAMESPACE:
                self.walk(c, (*scope, c.spelling))
            elif ck in (K.FUNCTION_DECL, K.FUNCTION_TEMPLATE) and kind == "main":
                self.function(c)
            elif ck in (K.STRUCT_DECL, K.CLASS_DECL) and c.is_definition() and c.spelling:
                self.record(c, scope)
            elif ck == K.TYPE_ALIAS_DECL:
                self.alias(c)

    # -- entries --------------------------------------------------------------------------
    def function(self, c: ci.Cursor) -> None:
        import clang.cindex as ci

        name = c.spelling
        annotations = {a.spelling for a in c.get_children()
                       if a.kind == ci.CursorKind.ANNOTATE_ATTR}
        if "opgen.global" not in annotations:
            if c.kind == ci.CursorKind.FUNCTION_DECL:  # a helper template is no entry's typo
                self.functions.append((name, self.loc(c)))
            return
        body = _body_span(self.source, c.extent.end.offset) if self.in_main(c) else None
        if name in self.entries and body is None:
            return  # a declaration after the definition adds nothing
        templated = c.kind == ci.CursorKind.FUNCTION_TEMPLATE
        # a template's cursor has no argument list of its own: its parameters are children
        args = ([p for p in c.get_children() if p.kind == ci.CursorKind.PARM_DECL]
                if templated else list(c.get_arguments()))
        params = tuple(self.param(p) for p in args)
        refs = self.tiling_refs(*body) if body is not None else ()
        self.entries[name] = KernelEntry(name, params, self.loc(c),
                                         c_linkage=not templated and c.mangled_name == name,
                                         is_global=True, tiling_refs=refs,
                                         template_params=self.template_params(c))

    def template_params(self, c: ci.Cursor) -> tuple[TemplateParam, ...]:
        import clang.cindex as ci

        out: list[TemplateParam] = []
        for p in c.get_children():
            if p.kind == ci.CursorKind.TEMPLATE_TYPE_PARAMETER:
                out.append(TemplateParam(p.spelling, "type", ""))
            elif p.kind == ci.CursorKind.TEMPLATE_NON_TYPE_PARAMETER:
                out.append(TemplateParam(p.spelling, "value", p.type.get_canonical().spelling))
            elif p.kind == ci.CursorKind.TEMPLATE_TEMPLATE_PARAMETER:
                out.append(TemplateParam(p.spelling, "template", ""))
        return tuple(out)

    def in_main(self, c: ci.Cursor) -> bool:
        f = c.extent.end.file
        return f is not None and os.path.abspath(f.name) == self.main

    def param(self, p: ci.Cursor) -> KernelParam:
        import clang.cindex as ci

        text = self.text(p)
        if p.spelling and text.endswith(p.spelling):
            text = text[: -len(p.spelling)]
        spelled = " ".join(text.split()) or p.type.spelling
        t = p.type.get_canonical()
        gm = t.kind == ci.TypeKind.POINTER and t.get_pointee().kind in (
            ci.TypeKind.UCHAR, ci.TypeKind.CHAR_U)
        return KernelParam(p.spelling, spelled, gm, self.loc(p))

    def text(self, c: ci.Cursor) -> str:
        ext = c.extent
        if ext.start.file is None or os.path.abspath(ext.start.file.name) != self.main:
            return str(c.type.spelling)
        return self.source[ext.start.offset:ext.end.offset].decode("utf-8", "replace")

    def tiling_refs(self, start: int, end: int) -> tuple[TilingRef, ...]:
        """The tiling macros of a (skipped) body, read from its tokens."""
        if b"TILING" not in self.source[start:end]:
            return ()
        tokens = list(_tokens(self.source, start, end))
        refs: list[TilingRef] = []
        for i, (tok, offset) in enumerate(tokens):
            if tok not in TILING_MACROS or i + 1 >= len(tokens) or tokens[i + 1][0] != "(":
                continue
            struct: str | None = None
            if tok != "GET_TILING_DATA":
                parts: list[str] = []
                for part, _ in tokens[i + 2:]:
                    if part in (",", ")"):
                        break
                    parts.append(part)
                struct = "".join(parts) or None
            line = self.source.count(b"\n", 0, offset) + 1
            col = offset - (self.source.rfind(b"\n", 0, offset) + 1) + 1
            refs.append(TilingRef(tok, struct, SourceLoc(self.shown, line, col)))
        return tuple(refs)

    # -- records --------------------------------------------------------------------------
    def alias(self, c: ci.Cursor) -> None:
        name = c.spelling
        if name == _DEFAULT_ALIAS:
            self.registered.append(("REGISTER_TILING_DEFAULT",
                                    c.underlying_typedef_type.get_canonical().spelling))
        elif name.startswith(_CLASS_ALIAS):
            self.registered.append((f"REGISTER_TILING_DATA_CLASS:{name[len(_CLASS_ALIAS):]}",
                                    c.underlying_typedef_type.get_canonical().spelling))

    def record(self, c: ci.Cursor, scope: tuple[str, ...]) -> None:
        import clang.cindex as ci

        size, align = c.type.get_size(), c.type.get_align()
        if size < 0 or align < 0:
            return  # dependent or invalid: not a tiling struct candidate
        style = TilingStyle.STRUCT
        fields: list[TilingField] = []
        for ch in c.get_children():
            if ch.kind == ci.CursorKind.ANNOTATE_ATTR and ch.spelling == "opgen.tiling_macro":
                style = TilingStyle.MACRO
            elif ch.kind == ci.CursorKind.FIELD_DECL:
                fields.extend(self.fields(ch))
        qualified = "::".join((*scope, c.spelling))
        self.structs.setdefault(qualified, TilingStruct(
            c.spelling, qualified, tuple(fields), size, align, style, self.loc(c)))

    def fields(self, c: ci.Cursor, prefix: str = "", base: int = 0, depth: int = 0,
               outer: SourceLoc | None = None) -> list[TilingField]:
        """The field, or a nested struct's fields flattened (`outer.inner` at the outer's offset
        plus the inner's, located at the outer field: CANN's TILING_DATA_FIELD_DEF_STRUCT, e.g.
        a TCubeTiling or a SoftMaxTiling inside an op's tiling data)."""
        import clang.cindex as ci

        t = c.type.get_canonical()
        decl = t.get_declaration()
        loc = outer or self.loc(c)
        if (t._kind_id == ci.TypeKind.RECORD.value and not c.is_bitfield() and depth < 4
                and decl.kind in (ci.CursorKind.STRUCT_DECL, ci.CursorKind.CLASS_DECL)):
            offset = base + max(c.get_field_offsetof(), 0) // 8
            inner = [f for ch in decl.get_children() if ch.kind == ci.CursorKind.FIELD_DECL
                     for f in self.fields(ch, f"{prefix}{c.spelling}.", offset, depth + 1, loc)]
            if inner:
                return inner
        field = self.field(c)
        if not prefix:
            return [field]
        return [TilingField(prefix + field.name, field.ctype, field.spelling, base + field.offset,
                            field.array_len, loc, field.problem)]

    def field(self, c: ci.Cursor) -> TilingField:
        import clang.cindex as ci

        t = c.type.get_canonical()
        offset = max(c.get_field_offsetof(), 0) // 8
        array_len: int | None = None
        if t._kind_id == ci.TypeKind.CONSTANTARRAY.value:
            array_len = t.element_count
            t = t.element_type.get_canonical()
        ctype, problem = _scalar(t)
        if c.is_bitfield():
            ctype, problem = None, "a bit-field has no portable layout"
        elif t._kind_id == ci.TypeKind.CONSTANTARRAY.value:
            problem = "multi-dimensional arrays are not supported; flatten it into one array"
        return TilingField(c.spelling, ctype, c.type.spelling, offset, array_len, self.loc(c),
                           problem if ctype is None else "")


def _scalar(t: ci.Type) -> tuple[str | None, str]:
    import clang.cindex as ci

    K = ci.TypeKind
    # Compare raw ids: the Python bindings lack some kinds (_Float16 is 32) and raise on them.
    kid = t._kind_id
    if kid in (K.HALF.value, _FLOAT16_KIND):
        return "half", ""
    try:
        kind = t.kind
    except ValueError:
        return None, f"supported types are {', '.join(SCALAR_TYPES)} and fixed arrays of them"
    size = t.get_size()
    signed = {1: "int8_t", 2: "int16_t", 4: "int32_t", 8: "int64_t"}
    unsigned = {1: "uint8_t", 2: "uint16_t", 4: "uint32_t", 8: "uint64_t"}
    if kind in (K.SCHAR, K.SHORT, K.INT, K.LONG, K.LONGLONG):
        return signed[size], ""
    if kind in (K.UCHAR, K.CHAR_U, K.USHORT, K.UINT, K.ULONG, K.ULONGLONG):
        return unsigned[size], ""
    if kind == K.FLOAT:
        return "float", ""
    if kind == K.BOOL:
        return "bool", ""
    if kind == K.CHAR_S:
        return None, "plain 'char' has no fixed signedness; use int8_t or uint8_t"
    if kind in (K.DOUBLE, K.LONGDOUBLE):
        return None, "AI Core has no 64-bit float; use float"
    if kind in (K.POINTER, K.LVALUEREFERENCE, K.RVALUEREFERENCE, K.MEMBERPOINTER):
        return None, "a pointer means nothing on the device (tiling data is copied by value)"
    if kind == K.ENUM:
        return None, "use a fixed-width integer type instead of an enum"
    if kind == K.RECORD:
        return None, "nested structs are not supported; flatten its fields into this struct"
    return None, f"supported types are {', '.join(SCALAR_TYPES)} and fixed arrays of them"


_TOKEN_RE = re.compile(rb"""
    (?P<skip>\s+|//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*')
  | (?P<word>[A-Za-z_]\w*)
  | (?P<punct>::|.)
""", re.X | re.S)


def _tokens(source: bytes, start: int, end: int) -> Iterator[tuple[str, int]]:
    """Identifiers and punctuation of source[start:end], without comments and literals."""
    for m in _TOKEN_RE.finditer(source, start, end):
        if m.lastgroup != "skip":
            yield m.group().decode("utf-8", "replace"), m.start()


def _body_span(source: bytes, offset: int) -> tuple[int, int] | None:
    """The `{...}` right after a declarator ending at `offset`, or None for a declaration."""
    depth = 0
    start = -1
    for tok, at in _tokens(source, offset, len(source)):
        if start < 0:
            if tok == "{":
                start = at
                depth = 1
                continue
            if tok == ";":
                return None
            continue  # e.g. trailing attributes before the body
        if tok == "{":
            depth += 1
        elif tok == "}":
            depth -= 1
            if depth == 0:
                return start, at + 1
    return None
