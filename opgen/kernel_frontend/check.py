"""Stage 4, kernel frontend: cross-check a parsed kernel against its spec.

Every finding names the kernel line and the spec line. The note at the second location is
part of the same diagnostic (a second output line), so sorting diagnostics by location can
never separate an error from its note.

Parameter names: the position of a kernel parameter binds it, not its name, so a parameter
named differently from the spec is a warning, except when the names are the spec's names in
another order, which is an error (the kernel would read x where the runtime passes y).
"""

from __future__ import annotations

from dataclasses import dataclass

from opgen.diagnostics import Diagnostic, Severity, SourceLoc, did_you_mean
from opgen.dtypes import AttrType
from opgen.kernel_frontend.model import KernelEntry, KernelInfo, TilingField, TilingStruct
from opgen.model import AttrDesc, OpSpec
from opgen.naming import lower_camel

TRAILING_PARAMS = ("workspace", "tiling")
# Fields the default host tiling (runtime and generated C++) fills by name.
POLICY_FIELDS = ("totalLength", "blockLength", "tileNum", "tileLength", "tailLength", "rows",
                 "cols", "outerSize", "axisSize", "rank")
INTEGER_TYPES = ("int8_t", "uint8_t", "int16_t", "uint16_t", "int32_t", "uint32_t", "int64_t",
                 "uint64_t")
# Attrs of these types must travel in the tiling data; the others may.
CARRIED_ATTRS = (AttrType.INT, AttrType.FLOAT, AttrType.BOOL)
_ATTR_CTYPES: dict[AttrType, tuple[str, ...]] = {
    AttrType.INT: INTEGER_TYPES,
    AttrType.FLOAT: ("float", "half"),
    AttrType.BOOL: ("bool", *INTEGER_TYPES),
    AttrType.TYPE: INTEGER_TYPES,
}
_SUGGESTED_CTYPE = {AttrType.INT: "int64_t", AttrType.FLOAT: "float", AttrType.BOOL: "bool"}


@dataclass(frozen=True)
class CheckedKernel:
    """A kernel that matches its spec: the entry and the tiling struct the generators use."""

    entry: KernelEntry
    tiling: TilingStruct | None


class _Findings:
    def __init__(self) -> None:
        self.items: list[Diagnostic] = []

    def error(self, loc: SourceLoc, message: str, note_loc: SourceLoc | None = None,
              note: str = "") -> None:
        self.add(Severity.ERROR, loc, message, note_loc, note)

    def warning(self, loc: SourceLoc, message: str, note_loc: SourceLoc | None = None,
                note: str = "") -> None:
        self.add(Severity.WARNING, loc, message, note_loc, note)

    def add(self, severity: Severity, loc: SourceLoc, message: str,
            note_loc: SourceLoc | None, note: str) -> None:
        if note_loc is not None:
            message = f"{message}\n{note_loc}: note: {note}"
        self.items.append(Diagnostic(loc, message, severity))

    @property
    def has_errors(self) -> bool:
        return any(d.severity is Severity.ERROR for d in self.items)


def check_kernel(spec: OpSpec, info: KernelInfo) -> tuple[CheckedKernel | None,
                                                          tuple[Diagnostic, ...]]:
    """The checked kernel (None on any error) and every diagnostic found."""
    if not info.ok:
        return None, info.diagnostics
    out = _Findings()
    entry = _entry(spec, info, out)
    if entry is None:
        return None, tuple(out.items)
    _params(spec, entry, out)
    before = len(out.items)
    tiling = _tiling_struct(spec, info, entry, out)
    if tiling is not None:
        _fields(spec, tiling, out)
    if len(out.items) == before or tiling is not None:  # else the struct itself is the problem
        _attrs(spec, tiling, out)
    checked = None if out.has_errors else CheckedKernel(entry, tiling)
    return checked, tuple(out.items)


def _signature(spec: OpSpec) -> str:
    return ", ".join(f"GM_ADDR {n}" for n in _expected_names(spec))


def _expected_names(spec: OpSpec) -> tuple[str, ...]:
    return (*(t.name for t in spec.tensors), *TRAILING_PARAMS)


def _entry(spec: OpSpec, info: KernelInfo, out: _Findings) -> KernelEntry | None:
    name = spec.kernel.entry
    here = spec.kernel.loc
    entry = info.entry(name)
    if entry is None:
        plain = next((loc for fn, loc in info.functions if fn == name), None)
        if plain is not None:
            out.error(plain, f"function '{name}' is the kernel entry of op '{spec.op_name}' but "
                      "is not a kernel; declare it `extern \"C\" __global__ __aicore__ void "
                      f"{name}({_signature(spec)})`", here, "the spec names the entry here")
        elif info.entries:
            found = ", ".join(f"'{e.name}'" for e in info.entries)
            out.error(here, f"kernel entry '{name}' not found in {info.path}, which declares "
                      f"{found}{did_you_mean(name, [e.name for e in info.entries])}"
                      " (set kernel.entry to choose one)",
                      info.entries[0].loc, f"'{info.entries[0].name}' is declared here")
        else:
            out.error(here, f"kernel entry '{name}' not found: {info.path} declares no "
                      "`extern \"C\" __global__ __aicore__` function; expected "
                      f"`extern \"C\" __global__ __aicore__ void {name}({_signature(spec)})`",
                      SourceLoc(info.path, 1, 1), "kernel file of op "
                      f"'{spec.op_name}'")
        return None
    if entry.template_params:
        # CANN's templated entry (its tiling key picks the instantiation) has C++ linkage by
        # design; the kernel build adds the extern "C" entry that dispatches on the key
        odd = next((t for t in entry.template_params if t.kind == "template"), None)
        if odd is not None:
            out.error(entry.loc, f"kernel entry '{name}' has a template template parameter "
                      f"'{odd.name}'; a tiling-key template takes values (DTYPE, FORMAT, UINT, "
                      "BOOL) and types (DATATYPE) only", here, f"op '{spec.op_name}' names it here")
    elif not entry.c_linkage:
        out.error(entry.loc, f"kernel entry '{name}' has C++ linkage, so its symbol is mangled "
                  "and the runtime cannot find it; declare it `extern \"C\" __global__ "
                  f"__aicore__ void {name}(...)`", here, f"op '{spec.op_name}' names it here")
    return entry


def _tensor_loc(spec: OpSpec, name: str) -> SourceLoc:
    t = next((t for t in spec.tensors if t.name == name), None)
    return t.loc if t is not None else spec.kernel.loc


def _role(spec: OpSpec, index: int) -> str:
    n_in, n_out = len(spec.inputs), len(spec.outputs)
    if index < n_in:
        return f"input '{spec.inputs[index].name}'"
    if index < n_in + n_out:
        return f"output '{spec.outputs[index - n_in].name}'"
    return f"the '{TRAILING_PARAMS[index - n_in - n_out]}' parameter"


def _params(spec: OpSpec, entry: KernelEntry, out: _Findings) -> None:
    expected = _expected_names(spec)
    got = tuple(p.name for p in entry.params)
    for p in entry.params:
        if not p.is_gm_addr:
            out.error(p.loc, f"parameter '{p.name}' of kernel '{entry.name}' is '{p.type}'; "
                      "every kernel parameter must be GM_ADDR (__gm__ uint8_t*): cast it "
                      "inside the kernel, and pass scalars through the tiling struct",
                      _tensor_loc(spec, p.name), f"'{p.name}' is declared here")
    if len(got) != len(expected):
        missing = [n for n in expected if n not in got]
        hint = ""
        if got == expected[: len(got)] and missing == list(TRAILING_PARAMS[-len(missing):]):
            hint = "; Ascend C kernels always end with `GM_ADDR workspace, GM_ADDR tiling`"
        elif missing and len(got) < len(expected):
            hint = f"; missing: {', '.join(missing)}"
        out.error(entry.loc, f"kernel '{entry.name}' has {len(got)} parameter(s) but op "
                  f"'{spec.op_name}' needs {len(expected)}: ({_signature(spec)}), i.e. "
                  f"inputs, outputs, workspace, tiling{hint}",
                  spec.loc, f"op '{spec.op_name}' is defined here")
        return
    ir_names = {t.name: t.ir for t in spec.tensors}
    for i, p in enumerate(entry.params):
        want = expected[i]
        if p.name == want or not p.name or p.name == ir_names.get(want):
            continue  # CANN's kernels name a parameter by the tensor's IR name (srcList)
        if p.name in expected:
            out.error(p.loc, f"parameter {i + 1} of kernel '{entry.name}' is '{p.name}', but "
                      f"position {i + 1} is {_role(spec, i)}; the order must be inputs, "
                      f"outputs, workspace, tiling: ({_signature(spec)})",
                      _tensor_loc(spec, want), f"'{want}' is declared here")
            return
        out.warning(p.loc, f"parameter {i + 1} of kernel '{entry.name}' is named '{p.name}' "
                    f"but receives {_role(spec, i)}; rename it '{want}' (parameters bind by "
                    "position)", _tensor_loc(spec, want), f"'{want}' is declared here")


def _tiling_struct(spec: OpSpec, info: KernelInfo, entry: KernelEntry,
                   out: _Findings) -> TilingStruct | None:
    refs = entry.tiling_refs
    named = sorted((r for r in refs if r.struct),
                   key=lambda r: r.macro != "REGISTER_TILING_DEFAULT")
    explicit = spec.kernel.tiling_struct
    if explicit is not None:
        for r in named:
            if r.struct and r.struct.rsplit("::", 1)[-1] != explicit.rsplit("::", 1)[-1]:
                out.error(r.loc, f"{r.macro} names tiling struct '{r.struct}' but the spec's "
                          f"kernel.tiling_struct is '{explicit}'; make them agree",
                          spec.kernel.loc, "kernel.tiling_struct is set here")
                return None
        found = info.struct(explicit)
        if found is None:
            out.error(spec.kernel.loc, f"tiling struct '{explicit}' (kernel.tiling_struct) is not "
                      f"defined in {info.path} or the headers it includes"
                      f"{did_you_mean(explicit, [s.name for s in info.structs])}",
                      entry.loc, f"kernel '{entry.name}' is defined here")
        return found
    if named:
        ref = named[0]
        assert ref.struct is not None
        found = info.struct(ref.struct)
        if found is None:
            out.error(ref.loc, f"tiling struct '{ref.struct}' is not defined in {info.path} or "
                      f"the headers it includes"
                      f"{did_you_mean(ref.struct, [s.name for s in info.structs])}",
                      spec.kernel.loc, f"kernel of op '{spec.op_name}'")
        return found
    registered = dict(info.registered)
    name = (registered.get("REGISTER_TILING_DEFAULT")
            or registered.get(f"REGISTER_TILING_DATA_CLASS:{spec.op_type}"))
    default = f"{spec.op_type}TilingData"
    found = info.struct(name) if name else info.struct(default)
    if found is None and refs:
        ref = refs[0]
        out.error(ref.loc, f"{ref.macro} needs a tiling struct, but none is registered and "
                  f"'{default}' is not defined; add `REGISTER_TILING_DEFAULT({default});` "
                  "before it, or set kernel.tiling_struct", spec.kernel.loc,
                  f"kernel of op '{spec.op_name}'")
    return found


def _tensor_field_names(suffix: str, tensors: tuple[str, ...]) -> set[str]:
    return {f"{n}{suffix}" for n in tensors} | {f"{lower_camel(n)}{suffix}" for n in tensors}


def _conventions(spec: OpSpec) -> dict[str, str]:
    """Field name -> 'int', 'int[]' or 'flag' for every name the default tiling fills."""
    tensors = tuple(t.name for t in spec.tensors)
    kinds = dict.fromkeys((*POLICY_FIELDS, *_tensor_field_names("Rank", tensors)), "int")
    kinds.update(dict.fromkeys(_tensor_field_names("Shape", tensors), "int[]"))
    optional = tuple(t.name for t in spec.inputs if t.is_optional)
    kinds.update(dict.fromkeys(_tensor_field_names("Present", optional), "flag"))
    return kinds


def _attr_fields(spec: OpSpec) -> dict[str, AttrDesc]:
    """Field name (snake_case or lowerCamelCase) -> the attr it carries."""
    out: dict[str, AttrDesc] = {}
    for a in spec.attrs:
        out[a.name] = out[lower_camel(a.name)] = a
    return out


def _describe_type(f: TilingField) -> str:
    return f"{f.ctype}[{f.array_len}]" if f.array_len is not None else str(f.ctype)


def _fields(spec: OpSpec, s: TilingStruct, out: _Findings) -> None:
    hook = spec.kernel.tiling_hook if not spec.kernel.op_host else "op_host"
    conventions = _conventions(spec)
    attr_fields = _attr_fields(spec)
    for f in s.fields:
        if "." in f.name and not spec.kernel.op_host:
            outer = f.name.split(".", 1)[0]
            out.error(f.loc, f"tiling field '{outer}' of '{s.name}' is a struct: nested structs "
                      "are supported in an op_host's tiling data (TILING_DATA_FIELD_DEF_STRUCT, "
                      "which the op_host fills); for the default host tiling, flatten its fields "
                      "into this struct", spec.kernel.loc,
                      f"'{s.name}' is the tiling struct of op '{spec.op_name}'")
            return
        if f.ctype is None:
            out.error(f.loc, f"tiling field '{f.name}' of '{s.name}' has unsupported type "
                      f"'{f.spelling}': {f.problem}", spec.kernel.loc,
                      f"'{s.name}' is the tiling struct of op '{spec.op_name}'")
            continue
        if spec.kernel.op_host:
            continue  # the op_host's TilingFunc fills every field: no name binds one to an attr
        kind = conventions.get(f.name)
        a = attr_fields.get(f.name)
        if kind is not None:
            ok = {"int": f.ctype in INTEGER_TYPES and f.array_len is None,
                  "int[]": f.ctype in INTEGER_TYPES and f.array_len is not None,
                  "flag": f.ctype in ("bool", *INTEGER_TYPES) and f.array_len is None}[kind]
            if not ok:
                want = {"int": "an integer scalar", "int[]": "an integer array (one per dim)",
                        "flag": "a bool"}[kind]
                out.error(f.loc, f"tiling field '{f.name}' is {_describe_type(f)}, but the "
                          f"default host tiling fills it as {want}", spec.kernel.loc,
                          f"kernel of op '{spec.op_name}'")
        elif a is not None:
            allowed = _ATTR_CTYPES.get(a.type.element, ())
            if a.type.is_list != (f.array_len is not None) or f.ctype not in allowed:
                want = f"{a.type.value} attr"
                out.error(f.loc, f"tiling field '{f.name}' is {_describe_type(f)}, which cannot "
                          f"hold the {want} '{a.name}'"
                          + (f"; use {', '.join(allowed)}" if allowed else ""),
                          a.loc, f"attr '{a.name}' is declared here")
        elif hook is None:
            known = [*conventions, *attr_fields]
            out.error(f.loc, f"tiling field '{f.name}' of '{s.name}' is neither an attr of op "
                      f"'{spec.op_name}' nor a field the default host tiling fills: rename it, "
                      "or name a Python kernel.tiling_hook that fills it"
                      f"{did_you_mean(f.name, known)}", spec.kernel.loc,
                      "no kernel.tiling_hook is set here")


def _attrs(spec: OpSpec, s: TilingStruct | None, out: _Findings) -> None:
    if spec.kernel.own_tiling:
        return
    for a in spec.attrs:
        if a.type not in CARRIED_ATTRS:
            continue
        if s is not None and (s.field(a.name) or s.field(lower_camel(a.name))):
            continue
        field = lower_camel(a.name)
        decl = f"{_SUGGESTED_CTYPE[a.type]} {field};"
        if s is None:
            out.error(a.loc, f"attr '{a.name}' cannot reach kernel '{spec.kernel.entry}': on "
                      "Ascend, attrs travel in the tiling data, and the kernel reads none; add "
                      f"a tiling struct {spec.op_type}TilingData with `{decl}` and "
                      "`GET_TILING_DATA` in the kernel")
            continue
        out.error(s.loc, f"tiling struct '{s.name}' has no field for attr '{a.name}' "
                  f"({a.type.value}): on Ascend, attrs travel in the tiling data; add "
                  f"`{decl}`", a.loc, f"attr '{a.name}' is declared here")
