"""Stage 2, validate: JSON Schema for structure, then semantic rules; builds the model.

Every problem in a file is reported, each as `path:line:col: error: message`. The builder
is defensive: it skips what the schema already reported and keeps checking the rest.
"""

from __future__ import annotations

import functools
import json
import math
import numbers
import os
import posixpath
import sys
from collections.abc import Callable, Iterable, Mapping
from importlib import resources
from typing import TYPE_CHECKING, Any

from opgen import cann_builtins, checks
from opgen import expr as ex
from opgen import shape_rules as sr
from opgen.diagnostics import DiagnosticSink, SourceLoc, did_you_mean
from opgen.dtypes import (
    DTYPE_ALIASES,
    AttrType,
    DType,
    Format,
    ParamType,
    parse_attr_type,
    parse_dtype,
    parse_format,
)
from opgen.load import Document, JsonPath
from opgen.model import (
    AttrDesc,
    AttrValue,
    Backward,
    GradientExpr,
    KernelRef,
    OpSpec,
    ReferenceExpr,
    TensorDesc,
)
from opgen.naming import (
    C_IDENT_RE,
    CAMEL_RE,
    CPP_KEYWORDS,
    CXX_QUALIFIED_RE,
    HOOK_RE,
    IR_NAME_RE,
    SNAKE_RE,
    is_dotted_identifier,
    lower_camel,
    reserved_in,
    upper_camel,
)

if TYPE_CHECKING:
    import jsonschema


@functools.cache
def schema() -> dict[str, Any]:
    text = resources.files("opgen.schema").joinpath("opspec.schema.json").read_text("utf-8")
    data: dict[str, Any] = json.loads(text)
    return data


@functools.cache
def _validator() -> jsonschema.protocols.Validator:
    import jsonschema  # only for a spec the compiled check (_fast_check) does not pass

    cls = jsonschema.validators.validator_for(schema())
    validator: jsonschema.protocols.Validator = cls(schema())
    return validator


def _schema_node(path: Iterable[str | int]) -> dict[str, Any]:
    """The schema object that describes the data at `path` (for allowed-key suggestions)."""
    node = schema()
    for part in path:
        if "$ref" in node:
            node = schema()["$defs"][node["$ref"].rsplit("/", 1)[1]]
        if isinstance(part, int):
            node = node.get("items", {})
        else:
            node = node.get("properties", {}).get(part, {})
    if "$ref" in node:
        node = schema()["$defs"][node["$ref"].rsplit("/", 1)[1]]
    return node


_FLOAT_MAX = int(sys.float_info.max)

_YAML11_BOOLS = frozenset({"yes", "no", "on", "off", "y", "n"})

_TYPE_WORDS = {"string": "a string", "array": "a list", "object": "a mapping",
               "integer": "an integer", "number": "a number", "boolean": "true or false"}


def _clip(text: str, width: int = 60) -> str:
    """Long values echoed in messages are cut: the location shows the rest."""
    return text if len(text) <= width else f"{text[:width - 3]}..."


def _describe(value: Any) -> str:
    if isinstance(value, bool):
        return "a boolean"
    if value is None:
        return "null"
    if isinstance(value, int):
        return f"the integer {_clip(str(value))}"
    if isinstance(value, float):
        return f"the number {value}"
    if isinstance(value, str):
        return f"the string '{_clip(value)}'"
    if isinstance(value, list):
        return "a list"
    return "a mapping"


def _field(path: JsonPath) -> str:
    out = ""
    for p in path:
        out += f"[{p}]" if isinstance(p, int) else (f".{p}" if out else str(p))
    return out or "the spec"


_Check = Callable[[Any], bool]
_TYPES: dict[str, _Check] = {
    "array": lambda x: isinstance(x, list),
    "boolean": lambda x: isinstance(x, bool),
    # draft 2020-12's checker: a float with an integral value is an integer too
    "integer": lambda x: ((not isinstance(x, bool) and isinstance(x, int))
                          or (isinstance(x, float) and x.is_integer())),
    "null": lambda x: x is None,
    "number": lambda x: not isinstance(x, bool) and isinstance(x, numbers.Number),
    "object": lambda x: isinstance(x, dict),
    "string": lambda x: isinstance(x, str),
}
_ANNOTATIONS = frozenset(("description", "title", "$schema", "$id", "$defs"))


def _compile(node: dict[str, Any], defs: dict[str, Any], done: dict[str, _Check],
             exact: bool = False) -> _Check:
    """A check of what jsonschema decides for the keywords the spec schema uses: True only for
    a document jsonschema finds valid, and (where `exact`, under a oneOf, which counts the
    options that pass) False only for one it finds invalid. KeyError for a keyword it does not
    know, or one it cannot decide exactly where it must."""
    checks = [_keyword(key, value, node, defs, done, exact) for key, value in node.items()
              if key not in _ANNOTATIONS]

    def check(x: Any) -> bool:
        return all(c(x) for c in checks)

    return check


def _keyword(key: str, value: Any, node: dict[str, Any], defs: dict[str, Any],
             done: dict[str, _Check], exact: bool) -> _Check:
    if key == "type":
        tests = [_TYPES[t] for t in ([value] if isinstance(value, str) else value)]
        return lambda x: any(t(x) for t in tests)
    if key == "$ref":
        name = value.removeprefix("#/$defs/")
        if name not in done:  # (definitions are compiled exact: they may be used under a oneOf)
            done[name] = lambda x: True  # (a recursive definition meets itself compiled)
            done[name] = _compile(defs[name], defs, done, True)
        return lambda x: done[name](x)
    if key == "properties":
        props = {k: _compile(v, defs, done, exact) for k, v in value.items()}
        return lambda x: not isinstance(x, dict) or all(
            c(x[k]) for k, c in props.items() if k in x)
    if key == "additionalProperties" and "patternProperties" not in node:
        known = frozenset(node.get("properties", ()))
        if value is False:
            return lambda x: not isinstance(x, dict) or all(k in known for k in x)
        extra = _compile(value, defs, done, exact)
        return lambda x: not isinstance(x, dict) or all(
            extra(v) for k, v in x.items() if k not in known)
    if key == "required":
        keys = tuple(value)
        return lambda x: not isinstance(x, dict) or all(k in x for k in keys)
    if key == "minProperties":
        return lambda x: not isinstance(x, dict) or len(x) >= value
    if key == "items":
        item = _compile(value, defs, done, exact)
        return lambda x: not isinstance(x, list) or all(item(v) for v in x)
    if key == "minItems":
        return lambda x: not isinstance(x, list) or len(x) >= value
    if key == "maxItems":
        return lambda x: not isinstance(x, list) or len(x) <= value
    if key == "uniqueItems" and value is True and not exact:
        return _unique_strings
    if key == "enum" and all(isinstance(v, str) for v in value):
        values = frozenset(value)  # jsonschema's equality: a string equals an equal string
        return lambda x: isinstance(x, str) and x in values
    if key == "oneOf":
        options = [_compile(v, defs, done, True) for v in value]
        return lambda x: sum(o(x) for o in options) == 1
    raise KeyError(key)


def _unique_strings(x: Any) -> bool:
    """uniqueItems of strings (other values: not known valid, jsonschema decides)."""
    if not isinstance(x, list):
        return True
    return all(isinstance(v, str) for v in x) and len(set(x)) == len(x)


@functools.cache
def _fast_check() -> _Check | None:
    """A spec that passes is valid to jsonschema too (so has nothing to report): the common
    case decided without jsonschema's generic (and much slower) walk; None if the schema uses
    a keyword this does not know."""
    try:
        return _compile(schema(), schema().get("$defs", {}), {})
    except (KeyError, TypeError, AttributeError):
        return None


def check_schema(doc: Document, sink: DiagnosticSink) -> None:
    fast = _fast_check()
    if fast is not None and fast(doc.data):
        return
    for err in sorted(_validator().iter_errors(doc.data), key=lambda e: list(map(str, e.path))):
        path: JsonPath = tuple(err.absolute_path)
        instance: Any = err.instance
        expected: Any = err.validator_value
        where = _field(path)
        if err.validator == "additionalProperties":
            allowed = sorted(_schema_node(path).get("properties", {}))
            for key in sorted(set(instance) - set(allowed)):
                sink.error(doc.key_loc((*path, key)),
                           f"unknown key '{key}' in {where}{did_you_mean(key, allowed)}"
                           f" (allowed: {', '.join(allowed)})")
        elif err.validator == "required":
            missing = err.message.split("'")[1]
            sink.error(doc.loc(path), f"{where} is missing the required key '{missing}'")
        elif err.validator == "type":
            want = expected if isinstance(expected, list) else [expected]
            wants = " or ".join(_TYPE_WORDS.get(str(w), str(w)) for w in want)
            hint = ""
            if path and path[-1] == "infer" and isinstance(instance, list):
                # YAML reads an unquoted explicit shape as a list
                hint = " (quote an explicit shape: infer: \"[dim(x, 0), 1]\")"
            sink.error(doc.loc(path), f"{where} must be {wants}, not {_describe(instance)}{hint}")
        elif err.validator == "enum":
            choices = ", ".join(map(str, expected))
            sink.error(doc.loc(path), f"{where} is {_describe(instance)}; expected one of: "
                       f"{choices}{did_you_mean(str(instance), map(str, expected))}")
        elif err.validator == "minItems" or err.validator == "minProperties":
            sink.error(doc.loc(path), f"{where} must not be empty")
        elif err.validator == "uniqueItems":
            sink.error(doc.loc(path), f"{where} lists a value twice")
        elif err.validator == "oneOf" and path and path[-1] == "reference":
            sink.error(doc.loc(path), "reference must be an expression string, or a mapping "
                       "output -> expression for ops with several outputs")
        else:  # pragma: no cover - every schema keyword in use is handled above
            sink.error(doc.loc(path), f"{where}: {err.message}")


def check_name(sink: DiagnosticSink, loc: SourceLoc, what: str, name: Any) -> bool:
    if not isinstance(name, str):
        return False
    if not SNAKE_RE.match(name):
        sink.error(loc, f"{what} '{name}' must be snake_case: lowercase letters, digits and _, "
                        "starting with a letter (TensorFlow requires it of op arguments)")
        return False
    lang = reserved_in(name)
    if lang is not None:
        sink.error(loc, f"{what} '{name}' is a reserved word in {lang}; rename it "
                        f"(for example '{name}_')")
        return False
    return True


class _Builder:
    """Builds an OpSpec from a schema-checked (or partly broken) document."""

    def __init__(self, doc: Document, sink: DiagnosticSink, spec_dir: str) -> None:
        self.doc = doc
        self.sink = sink
        self.spec_dir = spec_dir
        self.data: Mapping[str, Any] = doc.data if isinstance(doc.data, Mapping) else {}
        self.names: dict[str, tuple[str, SourceLoc]] = {}  # name -> (kind, loc) across all
        self.ir_names: dict[str, tuple[str, SourceLoc]] = {}  # IR name -> (kind, loc)
        self.columns: tuple[int, str, SourceLoc] | None = None

    def err(self, path: JsonPath, message: str) -> None:
        self.sink.error(self.doc.loc(path), message)

    # -- names ----------------------------------------------------------------------------
    def claim(self, name: str, kind: str, path: JsonPath) -> bool:
        loc = self.doc.loc(path)
        if name in self.names:
            first_kind, first = self.names[name]
            self.sink.error(loc, f"{kind} name '{name}' is already used by {first_kind} "
                                 f"'{name}' at line {first.line}; names of inputs, outputs "
                                 "and attrs must be distinct")
            return False
        self.names[name] = (kind, loc)
        return True

    def ir_name(self, raw: Mapping[str, Any], path: JsonPath, kind: str, name: str) -> str | None:
        """The `ir_name` of a tensor or attr (CANN's own spelling, e.g. srcList), checked: a C
        identifier, not a C++ keyword, not `name` itself, and distinct from every other IR
        name of the op (CANN addresses OpDef parameters and attrs by it)."""
        value = raw.get("ir_name")
        ir = value if isinstance(value, str) else name
        if isinstance(value, str):
            at = (*path, "ir_name")
            if not IR_NAME_RE.match(value) or value in CPP_KEYWORDS:
                self.err(at, f"{kind} '{name}': ir_name '{value}' must be a C identifier "
                         "starting with a letter and not a C++ keyword (CANN's IR name, e.g. "
                         "srcList)")
                return None
            if value == name:
                self.err(at, f"{kind} '{name}': ir_name '{value}' is the name itself; remove "
                         "it (the IR name defaults to the name)")
                return None
        loc = self.doc.loc((*path, "ir_name") if isinstance(value, str) else (*path, "name"))
        # aclnn spells every IR name in lowerCamel: src_list and srcList would be one parameter
        key = lower_camel(ir)
        if key in self.ir_names:
            first_kind, first = self.ir_names[key]
            spelt = f" (as aclnn spells it, '{key}')" if key != ir else ""
            self.sink.error(loc, f"{kind} '{name}' has the IR name '{ir}', which {first_kind} "
                            f"at line {first.line} already has{spelt}; IR names of inputs, "
                            "outputs and attrs must be distinct")
            return None
        self.ir_names[key] = (f"{kind} '{name}'", loc)
        return value if isinstance(value, str) else None

    # -- tensors --------------------------------------------------------------------------
    def tensor(self, raw: Any, path: JsonPath, kind: str) -> TensorDesc | None:
        if not isinstance(raw, Mapping) or not isinstance(raw.get("name"), str):
            return None
        name = raw["name"]
        ok = check_name(self.sink, self.doc.loc((*path, "name")), f"{kind} name", name)
        ok = ok and self.claim(name, kind, (*path, "name"))
        ir_name = self.ir_name(raw, path, kind, name) if ok else None
        dtypes = self.dtypes(raw.get("dtype"), (*path, "dtype"))
        formats = self.formats(raw.get("format"), (*path, "format"), len(dtypes), name)
        shape = self.shape(raw.get("shape"), (*path, "shape"))
        param = ParamType(raw.get("param_type", "required")) if raw.get("param_type") in (
            "required", "optional", "dynamic") else ParamType.REQUIRED
        if kind == "output" and param is ParamType.OPTIONAL:
            self.err((*path, "param_type"), f"output '{name}' cannot be optional; every output "
                     "is allocated by the caller (use required)")
        if kind == "input":
            for key in ("infer", "dtype_from"):
                if key in raw:
                    self.sink.error(self.doc.key_loc((*path, key)),
                                    f"'{key}' is only meaningful on outputs (input '{name}')")
        inplace = raw.get("inplace") is True
        if "inplace" in raw and kind == "output":
            self.sink.error(self.doc.key_loc((*path, "inplace")),
                            f"'inplace' is only meaningful on inputs (output '{name}'); mark the "
                            "input the kernel writes")
        elif inplace and param is not ParamType.REQUIRED:
            self.err((*path, "inplace"), f"input '{name}' is {param.value} and cannot be written "
                     "in place; an in-place input is a required, single tensor")
        if dtypes and ok:
            if self.columns is None:
                self.columns = (len(dtypes), name, self.doc.loc((*path, "dtype")))
            elif len(dtypes) != self.columns[0]:
                count, first, first_loc = self.columns
                self.err((*path, "dtype"),
                         f"'{name}' lists {len(dtypes)} dtypes but '{first}' (line "
                         f"{first_loc.line}) lists {count}; column i of every dtype list forms "
                         "one supported combination, so all lists must have the same length")
        ref = raw.get("ref")
        if "ref" in raw and kind == "input":
            self.sink.error(self.doc.key_loc((*path, "ref")),
                            f"'ref' is only meaningful on outputs (input '{name}'): an output "
                            "names the input whose buffer it is")
            ref = None
        return TensorDesc(
            name=name, dtypes=dtypes, formats=formats, shape=shape, param_type=param,
            loc=self.doc.loc(path), doc=str(raw.get("doc", "")), ir_name=ir_name,
            inplace=inplace and kind == "input", ref=ref if isinstance(ref, str) else None,
        )

    def dtypes(self, raw: Any, path: JsonPath) -> tuple[DType, ...]:
        if not isinstance(raw, list):
            return ()
        out: list[DType] = []
        for i, item in enumerate(raw):
            if not isinstance(item, str):
                continue
            dt = parse_dtype(item)
            if dt is None:
                self.err((*path, i), f"unknown dtype '{item}'{did_you_mean(item, DTYPE_ALIASES)}"
                         f" (known: {', '.join(d.value for d in DType)})")
                continue
            out.append(dt)
        return tuple(out) if len(out) == len(raw) else ()

    def formats(self, raw: Any, path: JsonPath, count: int, name: str) -> tuple[Format, ...]:
        if raw is None:
            return (Format.ND,) * count
        if not isinstance(raw, list):
            return ()
        out: list[Format] = []
        for i, item in enumerate(raw):
            fmt = parse_format(item) if isinstance(item, str) else None
            if fmt is None:
                if isinstance(item, str):
                    names = [f.value for f in Format]
                    self.err((*path, i), f"unknown format '{item}'{did_you_mean(item, names)}")
                continue
            out.append(fmt)
        if count and len(raw) != count:
            self.err(path, f"'{name}' lists {count} dtypes but {len(raw)} formats; dtype and "
                     "format are parallel lists (column i is one combination)")
            return ()
        return tuple(out) if len(out) == len(raw) else ()

    def shape(self, raw: Any, path: JsonPath) -> tuple[int, ...] | None:
        if not isinstance(raw, list):
            return None
        if raw == [-2]:
            return None
        for i, d in enumerate(raw):
            if isinstance(d, int) and d > ex.INT64_MAX:
                self.err((*path, i), f"shape entry {_clip(str(d))} does not fit in 64 bits")
            elif isinstance(d, int) and (d < -1 or (d == -2 and len(raw) > 1)):
                hint = " ([-2] alone means any rank)" if d == -2 else ""
                self.err((*path, i), f"shape entries are sizes >= 0 or -1 (any size), not {d}"
                         f"{hint}")
        return tuple(d for d in raw if isinstance(d, int))

    # -- attrs ----------------------------------------------------------------------------
    def attr(self, raw: Any, path: JsonPath) -> AttrDesc | None:
        if not isinstance(raw, Mapping) or not isinstance(raw.get("name"), str):
            return None
        name = raw["name"]
        ir_name = None
        if (check_name(self.sink, self.doc.loc((*path, "name")), "attr name", name)
                and self.claim(name, "attr", (*path, "name"))):
            ir_name = self.ir_name(raw, path, "attr", name)
        type_text = raw.get("type")
        if not isinstance(type_text, str):
            return None
        atype = parse_attr_type(type_text)
        if atype is None:
            choices = [t.value for t in AttrType]
            self.err((*path, "type"), f"unknown attr type '{type_text}'"
                     f"{did_you_mean(type_text, choices)} (known: {', '.join(choices)})")
            return None
        default: AttrValue | None = None
        if "default" in raw:
            default = self.attr_value(raw["default"], atype, (*path, "default"), name)
        return AttrDesc(name, atype, default, self.doc.loc(path), str(raw.get("doc", "")),
                        ir_name)

    def attr_value(self, raw: Any, atype: AttrType, path: JsonPath, name: str) -> AttrValue | None:
        def scalar(v: Any, t: AttrType, p: JsonPath) -> Any:
            if t is AttrType.INT and type(v) is int:
                if not -ex.INT64_MAX - 1 <= v <= ex.INT64_MAX:
                    self.err(p, f"attr '{name}' default {_clip(str(v))} does not fit in int64")
                    return None
                return v
            if t is AttrType.FLOAT and type(v) in (int, float):
                if isinstance(v, float) and not math.isfinite(v):
                    self.err(p, f"attr '{name}' default must be finite, not {v}")
                    return None
                if isinstance(v, int) and abs(v) > _FLOAT_MAX:
                    self.err(p, f"attr '{name}' default {_clip(str(v))} is beyond the float range")
                    return None
                return float(v)
            if t is AttrType.BOOL and type(v) is bool:
                return v
            if t is AttrType.STRING and isinstance(v, str):
                return v
            if t is AttrType.TYPE and isinstance(v, str):
                dt = parse_dtype(v)
                if dt is None:
                    self.err(p, f"attr '{name}' default '{v}' is not a dtype"
                             f"{did_you_mean(v, DTYPE_ALIASES)}")
                return dt
            hint = ""
            if t is AttrType.BOOL and isinstance(v, str) and v.lower() in _YAML11_BOOLS:
                hint = " (opgen reads YAML 1.2: write true or false)"
            self.err(p, f"attr '{name}' is {atype.value} but its default is {_describe(v)}{hint}")
            return None

        if atype.is_list:
            if not isinstance(raw, list):
                self.err(path, f"attr '{name}' is {atype.value}: its default must be a list, "
                         f"not {_describe(raw)}")
                return None
            items = [scalar(v, atype.element, (*path, i)) for i, v in enumerate(raw)]
            if any(i is None for i in items):
                return None
            return tuple(items)
        value: AttrValue | None = scalar(raw, atype, path)
        return value

    # -- kernel ---------------------------------------------------------------------------
    def kernel(self, op_name: str) -> KernelRef:
        raw = self.data.get("kernel")
        raw = raw if isinstance(raw, Mapping) else {}
        source = _str(raw.get("source"), f"{op_name}.cpp")
        entry = _str(raw.get("entry"), op_name)
        if "source" in raw and isinstance(raw["source"], str):
            if os.path.isabs(source) or source.startswith("~"):
                self.err(("kernel", "source"),
                         f"kernel source '{source}' is an absolute path; give it relative to the "
                         "spec file so the project can move (generated code computes the "
                         "absolute path at run time, which is what ACL needs)")
            elif not os.path.isfile(os.path.join(self.spec_dir, source)):
                shown = os.path.normpath(os.path.join(os.path.dirname(self.doc.path), source))
                self.err(("kernel", "source"), f"kernel source '{source}' not found (looked for "
                         f"{shown}); fix kernel.source or create it with `opgen new`")
        if not C_IDENT_RE.match(entry):
            self.err(("kernel", "entry"), f"kernel entry '{entry}' is not a C identifier")
        hook = raw.get("tiling_hook")
        if isinstance(hook, str) and not (HOOK_RE.match(hook)
                                          and is_dotted_identifier(hook.replace(":", "."))):
            self.err(("kernel", "tiling_hook"),
                     f"tiling_hook {hook!r} must be 'module:function': a dotted Python import "
                     "path, a colon and a function name")
        loc = self.doc.loc(("kernel",)) if "kernel" in self.data else self.doc.loc(())
        struct = raw.get("tiling_struct")
        if isinstance(struct, str) and not CXX_QUALIFIED_RE.match(struct):
            self.err(("kernel", "tiling_struct"),
                     f"kernel tiling_struct {struct!r} is not a C++ name")
            struct = None
        if isinstance(hook, str) and "op_host" in raw:
            self.err(("kernel", "op_host"), "kernel.op_host and kernel.tiling_hook both give the "
                     "tiling; keep one")
        return KernelRef(source, entry, loc, struct if isinstance(struct, str) else None,
                         hook if isinstance(hook, str) else None,
                         self.tiling_header(raw.get("tiling_header"), source),
                         self.op_host(raw.get("op_host"), source),
                         self.include_dirs(raw.get("include_dirs")))

    def include_dirs(self, given: Any) -> tuple[str, ...]:
        """Extra include directories of the op_host and kernel builds, each an existing
        directory relative to the spec (the project then moves as a whole)."""
        if not isinstance(given, list):
            return ()  # absent, or a schema error already reported
        found = []
        for i, item in enumerate(given):
            if not isinstance(item, str):
                continue
            where = ("kernel", "include_dirs", i)
            if os.path.isabs(item) or item.startswith("~"):
                self.err(where, f"include directory '{item}' is an absolute path; give it "
                         "relative to the spec file")
            elif not os.path.isdir(os.path.join(self.spec_dir, item)):
                shown = os.path.normpath(os.path.join(os.path.dirname(self.doc.path), item))
                self.err(where, f"include directory '{item}' not found (looked for {shown})")
            else:
                found.append(item)
        return tuple(found)

    def op_host(self, given: Any, source: str) -> tuple[str, ...]:
        """The op's own op_host sources: listed, or `auto` for msopgen's layout
        (op_host/<name>.cpp and op_host/<name>_*.cpp beside op_kernel/<name>.cpp)."""
        if given is None:
            return ()
        if given == "auto":
            kernel_dir, kernel_file = os.path.split(source)
            name = os.path.splitext(kernel_file)[0]
            host_dir = os.path.join(os.path.dirname(os.path.normpath(kernel_dir)), "op_host")
            found = []
            if os.path.isdir(os.path.join(self.spec_dir, host_dir)):
                for f in sorted(os.listdir(os.path.join(self.spec_dir, host_dir))):
                    stem, ext = os.path.splitext(f)
                    if ext in (".cpp", ".cc") and (stem == name or stem.startswith(name + "_")):
                        found.append(posixpath.join(host_dir.replace(os.sep, "/"), f))
            if not found:
                self.err(("kernel", "op_host"), f"op_host: auto found no {host_dir}/{name}.cpp "
                         "(msopgen's layout); list the op_host sources instead")
            return tuple(found)
        items = [given] if isinstance(given, str) else list(given)
        for i, item in enumerate(items):
            where = ("kernel", "op_host") if isinstance(given, str) else ("kernel", "op_host", i)
            if os.path.isabs(item) or item.startswith("~"):
                self.err(where, f"op_host source '{item}' is an absolute path; give it relative "
                         "to the spec file")
            elif not os.path.isfile(os.path.join(self.spec_dir, item)):
                shown = os.path.normpath(os.path.join(os.path.dirname(self.doc.path), item))
                self.err(where, f"op_host source '{item}' not found (looked for {shown})")
        return tuple(str(i) for i in items)

    def tiling_header(self, given: Any, source: str) -> str | None:
        """The op_host tiling header CANN's build gives the kernel (its struct is what
        GET_TILING_DATA reads): `kernel.tiling_header`, or found in msopgen's layout
        (op_kernel/<name>.cpp beside op_host/<name>_tiling.h)."""
        if isinstance(given, str):
            if os.path.isabs(given):
                self.err(("kernel", "tiling_header"), f"tiling header '{given}' is an absolute "
                         "path; give it relative to the spec file")
            elif not os.path.isfile(os.path.join(self.spec_dir, given)):
                shown = os.path.normpath(os.path.join(os.path.dirname(self.doc.path), given))
                self.err(("kernel", "tiling_header"), f"tiling header '{given}' not found "
                         f"(looked for {shown})")
            return given
        kernel_dir, kernel_file = os.path.split(source)
        if os.path.basename(os.path.normpath(kernel_dir)) != "op_kernel":
            return None
        name = os.path.splitext(kernel_file)[0]
        candidate = os.path.join(os.path.dirname(os.path.normpath(kernel_dir)), "op_host",
                                 f"{name}_tiling.h")
        return candidate if os.path.isfile(os.path.join(self.spec_dir, candidate)) else None

    # -- expressions ----------------------------------------------------------------------
    def parse_expr(self, text: str, path: JsonPath) -> ex.Expr | None:
        try:
            return ex.parse(text)
        except ex.ExprSyntaxError as e:
            self.sink.error(self.doc.expr_loc(path, e.offset), e.message)
            return None

    def check_expr(self, e: ex.Expr, path: JsonPath, scope: Mapping[str, str],
                   spec_inputs: Mapping[str, TensorDesc], attrs: Mapping[str, AttrDesc],
                   context: str) -> None:
        """Name resolution and argument rules; `scope` maps visible names to their kind."""

        def at(node: ex.Expr) -> SourceLoc:
            return self.doc.expr_loc(path, getattr(node, "offset", 0))

        def is_tensor(name: str) -> bool:
            return scope.get(name) in ("input", "output", "gradient")

        def check(node: ex.Expr, in_opt: bool = False) -> None:
            if isinstance(node, ex.Name):
                if node.id not in scope:
                    self.sink.error(at(node), f"unknown name '{node.id}' in {context}"
                                    f"{did_you_mean(node.id, scope)} (visible names: "
                                    f"{', '.join(sorted(scope)) or 'none'})")
                elif (not in_opt and node.id in spec_inputs
                      and spec_inputs[node.id].is_optional):
                    self.sink.error(at(node), f"input '{node.id}' is optional and may be absent: "
                                    f"write opt({node.id}, <value when absent>)")
                elif scope[node.id] == "attr" and attrs[node.id].type is AttrType.TYPE:
                    self.sink.error(at(node), f"attr '{node.id}' is a dtype; use it only as "
                                    f"cast(x, {node.id})")
                return
            if isinstance(node, ex.DTypeLit):
                self.sink.error(at(node), f"dtype '{node.dtype.value}' may only appear as the "
                                "second argument of cast()")
                return
            if isinstance(node, ex.AxisTuple):
                self.sink.error(at(node), "a tuple may only be an axis= argument")
                return
            if isinstance(node, ex.Const):
                return
            if isinstance(node, ex.Unary):
                check(node.operand)
                return
            if isinstance(node, ex.Binary | ex.Compare):
                check(node.lhs)
                check(node.rhs)
                return
            assert isinstance(node, ex.Call)
            if node.func == "cast":
                check(node.args[0])
                target = node.args[1]
                ok = isinstance(target, ex.DTypeLit) or (
                    isinstance(target, ex.Name) and target.id in attrs
                    and attrs[target.id].type is AttrType.TYPE) or (
                    isinstance(target, ex.Call) and target.func == "dtype")
                if isinstance(target, ex.Call) and target.func == "dtype":
                    check(target)
                if not ok:
                    what = f"'{target}' is neither a dtype nor a `type` attr" if isinstance(
                        target, ex.Name) else "the second argument is not a dtype"
                    self.sink.error(at(target), f"cast(): {what}; give a dtype name (float16), "
                                    "a `type` attr or dtype(x)")
                return
            if node.func == "dtype":
                arg = node.args[0]
                if not (isinstance(arg, ex.Name) and is_tensor(arg.id)):
                    self.sink.error(at(arg), "dtype() takes the name of an input or output")
                return
            if node.func == "sum_to":
                check(node.args[0])
                like = node.args[1]
                if not (isinstance(like, ex.Name) and like.id in spec_inputs):
                    self.sink.error(at(like), "sum_to() takes an input name as its second "
                                    "argument (the shape to sum down to)")
                return
            if node.func == "opt":
                first = node.args[0]
                if not (isinstance(first, ex.Name) and first.id in spec_inputs
                        and spec_inputs[first.id].is_optional):
                    self.sink.error(at(first), "opt() takes an optional input as its first "
                                    "argument")
                check(node.args[1])
                return
            for a in node.args:
                check(a)
            for key, value in node.kwargs:
                if key == "axis":
                    self.check_axis(value, attrs, at)
                elif key == "keepdims" and not _is_bool_arg(value, attrs):
                    self.sink.error(at(value), "keepdims must be True, False or a bool attr")

        check(e)

    def check_axis(self, value: ex.Expr, attrs: Mapping[str, AttrDesc], at: Any) -> None:
        if isinstance(value, ex.AxisTuple):
            return
        if isinstance(value, ex.Const) and type(value.value) is int:
            return
        if isinstance(value, ex.Name) and value.id in attrs:
            if attrs[value.id].type in (AttrType.INT, AttrType.LIST_INT):
                return
            self.sink.error(at(value), f"axis attr '{value.id}' must be int or list_int, "
                            f"not {attrs[value.id].type.value}")
            return
        self.sink.error(at(value), "axis must be an int, a tuple of ints, or an int attr")

    # -- whole op -------------------------------------------------------------------------
    def build(self) -> OpSpec | None:
        data = self.data
        op_name = data.get("op_name")
        if isinstance(op_name, str):
            check_name(self.sink, self.doc.loc(("op_name",)), "op_name", op_name)
        else:
            op_name = "op"
        op_type = data.get("op_type")
        if isinstance(op_type, str) and op_type != "Custom":
            if not CAMEL_RE.match(op_type):
                self.err(("op_type",), f"op_type '{op_type}' must be UpperCamelCase (CANN op "
                         f"type), for example '{upper_camel(op_name)}'")
        else:
            op_type = upper_camel(op_name)
        self.check_builtin(op_name, op_type)

        inputs = [self.tensor(t, ("input_desc", i), "input")
                  for i, t in enumerate(_list(data.get("input_desc")))]
        outputs = [self.tensor(t, ("output_desc", i), "output")
                   for i, t in enumerate(_list(data.get("output_desc")))]
        attrs = [self.attr(a, ("attr_desc", i)) for i, a in enumerate(_list(data.get("attr_desc")))]
        ins = {t.name: t for t in inputs if t is not None}
        attr_map = {a.name: a for a in attrs if a is not None}

        self.check_inplace([t for t in inputs if t is not None], outputs)
        final_outputs: list[TensorDesc] = []
        for i, t in enumerate(outputs):
            if t is not None:
                final_outputs.append(self.output_rules(t, ("output_desc", i), ins, attr_map))

        self.check_combinations(inputs, final_outputs)
        kernel = self.kernel(op_name)
        reference = self.reference(ins, {t.name: t for t in final_outputs}, attr_map)
        backward = self.backward(ins, {t.name: t for t in final_outputs}, attr_map, reference)
        arg_checks = checks.build(data, list(ins), {n: a.type for n, a in attr_map.items()},
                                  {n: a.default for n, a in attr_map.items()}, self.err)

        if None in inputs or None in outputs or None in attrs or self.sink.has_errors:
            return None
        return OpSpec(
            op_name=op_name, op_type=op_type, doc=str(data.get("doc", "")),
            inputs=tuple(t for t in inputs if t is not None), outputs=tuple(final_outputs),
            attrs=tuple(a for a in attrs if a is not None), kernel=kernel, reference=reference,
            backward=backward, socs=_socs(data.get("soc")),
            spec_path=self.doc.path, loc=self.doc.loc(()),
            type_loc=self.doc.loc(("op_type",) if "op_type" in data else ("op_name",)),
            checks=arg_checks,
        )

    def check_inplace(self, inputs: list[TensorDesc], outputs: list[TensorDesc | None]) -> None:
        """An op has outputs, or inputs its kernel writes in place (`inplace: true`), not both:
        the in-place inputs are what it returns."""
        written = [t for t in inputs if t.inplace]
        if written and outputs:
            self.err(("output_desc",), f"input '{written[0].name}' is written in place "
                     "(inplace: true), so the op declares no outputs: the in-place inputs are "
                     "its results")
        elif not written and not outputs and isinstance(self.data.get("output_desc"), list):
            self.err(("output_desc",), "output_desc must not be empty: an op has outputs, or "
                     "an input the kernel writes in place (inplace: true)")
        elif not written and "output_desc" not in self.data:
            self.sink.error(self.doc.loc(()), "the spec is missing the required key "
                            "'output_desc' (an op has outputs, or an input the kernel writes in "
                            "place, marked inplace: true)")
        if written:
            i = next(i for i, r in enumerate(_list(self.data.get("input_desc")))
                     if isinstance(r, Mapping) and r.get("name") == written[0].name)
            self.sink.warning(self.doc.loc(("input_desc", i, "inplace")),
                              f"input '{written[0].name}' is written in place: the op runs "
                              "through the registry (which returns the updated copy) and "
                              "aclnn; no PyTorch or TensorFlow op is generated for it (their "
                              "modules raise)")
        if written and "reference" in self.data:
            self.err(("reference",), f"the op writes '{written[0].name}' in place; a "
                     "reference (and the derived backward) is for ops with outputs")
        refs = [i for i, t in enumerate(outputs) if t is not None and t.ref is not None]
        if refs:
            first = outputs[refs[0]]
            assert first is not None
            self.sink.warning(self.doc.loc(("output_desc", refs[0], "ref")),
                              f"output '{first.name}' is the buffer of input '{first.ref}': the "
                              "op runs through the registry (which returns the updated copy); "
                              "no PyTorch, TensorFlow or aclnn call is generated for it (their "
                              "modules raise)")
        lists = [i for i, t in enumerate(outputs) if t is not None and t.is_dynamic]
        if lists:
            name = outputs[lists[0]].name  # type: ignore[union-attr]
            self.sink.warning(self.doc.loc(("output_desc", lists[0], "param_type")),
                              f"output '{name}' is a list (param_type: dynamic): the op runs "
                              "through the registry (which returns the list); no PyTorch or "
                              "TensorFlow op is generated for it (their modules raise)")

    def check_ref(self, t: TensorDesc, path: JsonPath, ins: Mapping[str, TensorDesc]) -> None:
        """An output that is an input's buffer (CANN's ref output, an OpDef output named like its
        input): the input is a required single tensor of the output's dtypes, and the output is
        one tensor."""
        src = ins.get(t.ref or "")
        if src is None:
            self.err(path, f"output '{t.name}': ref '{t.ref}' is not an input"
                     f"{did_you_mean(t.ref or '', ins)}; ref names the input whose buffer the "
                     "output is")
        elif src.is_optional or src.is_dynamic != t.is_dynamic:
            self.err(path, f"output '{t.name}' is the buffer of input '{src.name}', so both must "
                     "be required single tensors, or both lists (the input is "
                     f"{src.param_type.value}, the output {t.param_type.value})")
        elif src.dtypes and t.dtypes and src.dtypes != t.dtypes:
            self.err(path, f"output '{t.name}' is the buffer of input '{src.name}', so its dtypes "
                     f"must be the input's ({', '.join(d.value for d in src.dtypes)}), not "
                     f"{', '.join(d.value for d in t.dtypes)}")

    def check_builtin(self, op_name: str, op_type: str) -> None:
        """An op type of CANN's own operators is refused: the custom-op package would replace
        CANN's operator (opgen.cann_builtins). An op whose op_host is the user's keeps its
        OpDef's type (an imported CANN op), with a warning."""
        custom = cann_builtins.clash(op_type)
        if custom is None:
            return
        given = isinstance(self.data.get("op_type"), str) and self.data["op_type"] != "Custom"
        what = (f"op_type '{op_type}'" if given
                else f"op_name '{op_name}' derives the op type '{op_type}', which")
        message = (f"{what} is one of CANN's built-in operators (a custom-op package of that "
                   f"type replaces CANN's own)")
        loc = self.doc.loc(("op_type",) if given else ("op_name",))
        if self.own_op_host():
            self.sink.warning(loc, f"{message}; the op_host's OpDef names it, so it is kept")
        else:
            self.sink.error(loc, f"{message}; use op_type: {custom}")

    def own_op_host(self) -> bool:
        """Whether the spec names the op's own op_host sources (kernel.op_host)."""
        kernel = self.data.get("kernel")
        return isinstance(kernel, dict) and bool(kernel.get("op_host"))

    def output_rules(self, t: TensorDesc, path: JsonPath, ins: Mapping[str, TensorDesc],
                     attrs: Mapping[str, AttrDesc]) -> TensorDesc:
        raw = _list(self.data.get("output_desc"))[path[1]]  # type: ignore[index]
        if t.ref is not None:
            self.check_ref(t, (*path, "ref"), ins)
        rule: sr.ShapeRule | None = None
        text = raw.get("infer")
        if isinstance(text, str):
            try:
                rule = sr.parse_rule(text)
            except ex.ExprSyntaxError as e:
                self.sink.error(self.doc.expr_loc((*path, "infer"), e.offset), e.message)
            if rule is not None:
                for name in sr.referenced_inputs(rule):
                    if name not in ins:
                        self.err((*path, "infer"), f"shape rule of '{t.name}' names '{name}', "
                                 f"which is not an input{did_you_mean(name, ins)}")
                for name in sr.referenced_attrs(rule):
                    if name not in attrs:
                        self.err((*path, "infer"), f"shape rule of '{t.name}' names '{name}', "
                                 f"which is neither an int literal nor an attr"
                                 f"{did_you_mean(name, attrs)}")
                    elif isinstance(rule, sr.Reduce) and name == rule.keepdim:
                        if attrs[name].type is not AttrType.BOOL:
                            self.err((*path, "infer"), f"keepdim attr '{name}' must be bool")
                    elif attrs[name].type not in (AttrType.INT, AttrType.LIST_INT):
                        self.err((*path, "infer"), f"shape rule attr '{name}' must be int or "
                                 f"list_int, not {attrs[name].type.value}")
        elif "infer" not in raw and self.own_op_host():
            pass  # the op's own InferShape gives the shape; the runtime asks for a rule if not
        elif "infer" not in raw and t.ref is not None and t.ref in ins:
            rule = sr.SameAs(t.ref)  # the input's buffer has the input's shape
        elif "infer" not in raw:
            first = next((i for i in ins.values() if not i.is_optional), None)
            if first is not None:
                rule = sr.SameAs(first.name)
            elif t.shape is not None and all(d >= 0 for d in t.shape):
                rule = sr.Explicit(tuple(t.shape))
            else:
                self.sink.error(t.loc, f"output '{t.name}' needs an `infer:` shape rule (the op "
                                "has no required input to copy the shape from)")
        dtype_from = raw.get("dtype_from")
        if isinstance(dtype_from, str):
            a = attrs.get(dtype_from)
            if a is None:
                self.err((*path, "dtype_from"), f"dtype_from names '{dtype_from}', which is not "
                         f"an attr{did_you_mean(dtype_from, attrs)}")
            elif a.type is not AttrType.TYPE:
                self.err((*path, "dtype_from"), f"dtype_from attr '{dtype_from}' must have "
                         f"type: type, not {a.type.value}")
            elif isinstance(a.default, DType) and a.default not in t.dtypes:
                self.sink.error(a.loc, f"default '{a.default.value}' of attr '{dtype_from}' is "
                                f"not among the dtypes of output '{t.name}'")
        return TensorDesc(t.name, t.dtypes, t.formats, t.shape, t.param_type, t.loc, rule,
                          dtype_from if isinstance(dtype_from, str) else None, t.doc,
                          t.ir_name, ref=t.ref)

    def check_combinations(self, inputs: list[TensorDesc | None],
                           outputs: list[TensorDesc]) -> None:
        tensors = [t for t in [*inputs, *outputs] if t is not None and t.dtypes and t.formats]
        if not tensors or len({len(t.dtypes) for t in tensors}) != 1:
            return
        seen: dict[tuple[Any, ...], int] = {}
        for col in range(len(tensors[0].dtypes)):
            key = tuple((t.dtypes[col], t.formats[col]) for t in tensors)
            if key in seen:
                t0 = tensors[0]
                self.sink.error(
                    self.doc.loc(self._tensor_path(t0, "dtype")),
                    f"combination {col + 1} (column {col}) repeats combination "
                    f"{seen[key] + 1}: "
                    + ", ".join(f"{t.name}={t.dtypes[col].value}" for t in tensors))
            seen[key] = col

    def _tensor_path(self, t: TensorDesc, key: str) -> JsonPath:
        for section in ("input_desc", "output_desc"):
            for i, raw in enumerate(_list(self.data.get(section))):
                if isinstance(raw, Mapping) and raw.get("name") == t.name:
                    return (section, i, key)
        return ()

    def reference(self, ins: Mapping[str, TensorDesc], outs: Mapping[str, TensorDesc],
                  attrs: Mapping[str, AttrDesc]) -> tuple[ReferenceExpr, ...]:
        raw = self.data.get("reference")
        if raw is None:
            return ()
        items: list[tuple[str, str, JsonPath]] = []
        if isinstance(raw, str):
            if len(outs) != 1:
                self.err(("reference",), f"the op has {len(outs)} outputs "
                         f"({', '.join(outs)}); give reference as a mapping output: expression")
                return ()
            items.append((next(iter(outs)), raw, ("reference",)))
        elif isinstance(raw, Mapping):
            for key, text in raw.items():
                if key not in outs:
                    self.sink.error(self.doc.key_loc(("reference", key)),
                                    f"reference names '{key}', which is not an output"
                                    f"{did_you_mean(key, outs)}")
                elif isinstance(text, str):
                    items.append((key, text, ("reference", key)))
            missing = [o for o in outs if o not in raw]
            if missing and not any(k not in outs for k in raw):
                self.err(("reference",), f"reference has no expression for output(s) "
                         f"{', '.join(missing)}")
        else:
            return ()
        parsed: dict[str, ReferenceExpr] = {}
        for out, text, path in items:
            e = self.parse_expr(text, path)
            if e is None:
                continue
            scope = {**{n: "input" for n in ins}, **{n: "attr" for n in attrs},
                     **{n: "output" for n in outs if n != out}}
            self.check_expr(e, path, scope, ins, attrs, f"the reference of '{out}'")
            parsed[out] = ReferenceExpr(out, e, text, self.doc.loc(path))
        return self.topo_order(parsed)

    def topo_order(self, parsed: Mapping[str, ReferenceExpr]) -> tuple[ReferenceExpr, ...]:
        order: list[ReferenceExpr] = []
        state: dict[str, int] = {}

        def visit(name: str, chain: tuple[str, ...]) -> None:
            if state.get(name) == 2:
                return
            if state.get(name) == 1:
                cycle = " -> ".join((*chain[chain.index(name):], name))
                self.sink.error(parsed[name].loc, f"reference expressions depend on each "
                                f"other in a cycle: {cycle}")
                return
            state[name] = 1
            for dep in sorted(ex.names(parsed[name].expr) & set(parsed)):
                visit(dep, (*chain, name))
            state[name] = 2
            order.append(parsed[name])

        for name in parsed:
            visit(name, ())
        return tuple(order)

    def backward(self, ins: Mapping[str, TensorDesc], outs: Mapping[str, TensorDesc],
                 attrs: Mapping[str, AttrDesc],
                 reference: tuple[ReferenceExpr, ...] = ()) -> Backward | None:
        raw = self.data.get("backward")
        if not isinstance(raw, Mapping):
            if raw is None:
                diffable = [n for n, t in ins.items() if any(d.is_floating for d in t.dtypes)]
                derived, reason = self.derived_backward(ins, outs, attrs, reference)
                if derived is not None or not (diffable and outs):
                    return derived
                why = (f" and its gradient cannot be derived from the reference ({reason})"
                       if reason else "")
                self.sink.warning(self.doc.loc(()), f"no `backward:`{why}: the op works "
                                  "for inference only; training through it fails. Add "
                                  "backward: with a gradient per input (grad_<output> "
                                  "names the incoming gradient) or `op: <grad op>`")
            return None
        loc = self.doc.loc(("backward",))
        if "op" in raw and "op" not in ins:
            grad_op = raw["op"]
            if len(raw) > 1:
                self.err(("backward",), "backward: with `op:` names a gradient operator and "
                         "takes no other keys")
            if isinstance(grad_op, str):
                check_name(self.sink, self.doc.loc(("backward", "op")), "gradient op", grad_op)
            return Backward(grad_op=str(grad_op), loc=loc)
        grads: list[GradientExpr] = []
        scope = {**{n: "input" for n in ins}, **{n: "output" for n in outs},
                 **{n: "attr" for n in attrs}, **{f"grad_{n}": "gradient" for n in outs}}
        for n in outs:
            if f"grad_{n}" in ins or f"grad_{n}" in attrs:
                self.err(("backward",), f"'grad_{n}' names the gradient of output '{n}' in "
                         "backward expressions, but an input or attr has that name; rename it")
        for key, text in raw.items():
            path: JsonPath = ("backward", key)
            if key not in ins:
                self.sink.error(self.doc.key_loc(path), f"backward names '{key}', which is not "
                                f"an input{did_you_mean(key, ins)}; keys are input names, or "
                                "`op:` for a gradient operator")
                continue
            if ins[key].dtypes and not any(d.is_floating for d in ins[key].dtypes):
                self.sink.error(self.doc.key_loc(path), f"input '{key}' has only integer/bool "
                                "dtypes and is not differentiable; remove its gradient")
                continue
            if not isinstance(text, str):
                continue
            e = self.parse_expr(text, path)
            if e is None:
                continue
            before = len(self.sink.items)
            self.check_expr(e, path, scope, ins, attrs, f"the gradient of '{key}'")
            uses_grad = any(scope.get(n) == "gradient" for n in ex.names(e))
            if len(self.sink.items) == before and not uses_grad:
                self.sink.warning(self.doc.loc(path), f"the gradient of '{key}' does not use "
                                  f"any incoming gradient ({', '.join('grad_' + o for o in outs)})")
            grads.append(GradientExpr(key, e, text, self.doc.loc(path)))
        if reference and grads and not self.sink.has_errors:
            self.check_against_reference(ins, outs, attrs, reference, grads)
        return Backward(gradients=tuple(grads), loc=loc)

    # -- derived gradients (opgen.derive) ------------------------------------------------
    def derive_problem(self, ins: Mapping[str, TensorDesc], outs: Mapping[str, TensorDesc],
                       attrs: Mapping[str, AttrDesc],
                       reference: tuple[ReferenceExpr, ...]) -> Any:
        from opgen import derive

        def same_shape(name: str) -> bool:
            return all(isinstance(o.infer, sr.SameAs | sr.Reduce) and o.infer.input == name
                       for o in outs.values())

        return derive.Problem(
            inputs=tuple(derive.Tensor(n, any(d.is_floating for d in t.dtypes), t.is_optional,
                                       same_shape=same_shape(n)) for n, t in ins.items()),
            outputs=tuple(derive.Tensor(n, any(d.is_floating for d in t.dtypes),
                                        reduced=isinstance(t.infer, sr.Reduce))
                          for n, t in outs.items()),
            attrs=tuple(attrs), reference=tuple((r.output, r.expr) for r in reference))

    def derived_backward(self, ins: Mapping[str, TensorDesc], outs: Mapping[str, TensorDesc],
                         attrs: Mapping[str, AttrDesc], reference: tuple[ReferenceExpr, ...]
                         ) -> tuple[Backward | None, str]:
        """The backward derived from the reference (docs/gradients.md), or (None, why not)."""
        if (not reference or len(reference) != len(outs) or self.sink.has_errors
                or any(not t.dtypes for t in [*ins.values(), *outs.values()])):
            return None, ""
        from opgen import derive

        texts, reason = derive.derive(self.derive_problem(ins, outs, attrs, reference))
        chained = getattr(self.doc, "fused_gradients", None)  # a fused op (opgen/fuse.py)
        if chained and (reason or sum(map(len, chained.values())) < sum(map(len, texts.values()))):
            texts, reason = {n: t for n, t in chained.items() if n in texts or reason}, ""
        if reason:
            return None, reason
        loc = reference[0].loc if len(reference) == 1 else self.doc.loc(("reference",))
        scope = {**{n: "input" for n in ins}, **{n: "output" for n in outs},
                 **{n: "attr" for n in attrs}, **{f"grad_{n}": "gradient" for n in outs}}
        grads: list[GradientExpr] = []
        for name, text in texts.items():
            scratch = _Builder(self.doc, DiagnosticSink(), self.spec_dir)
            try:
                e = ex.parse(text)
            except ex.ExprSyntaxError as err:
                return None, f"the derived gradient of '{name}': {err.message}"
            scratch.check_expr(e, ("reference",), scope, ins, attrs, f"the gradient of '{name}'")
            if scratch.sink.has_errors:  # a derivation the language cannot express
                return None, f"the derived gradient of '{name}' is invalid: " + str(
                    scratch.sink.errors()[0].message)
            grads.append(GradientExpr(name, e, str(e), loc))
        if not grads:
            return None, "no floating input of the reference is differentiable"
        return Backward(gradients=tuple(grads), loc=loc, derived=True), ""

    def check_against_reference(self, ins: Mapping[str, TensorDesc],
                                outs: Mapping[str, TensorDesc], attrs: Mapping[str, AttrDesc],
                                reference: tuple[ReferenceExpr, ...],
                                grads: list[GradientExpr]) -> None:
        """A hand-written gradient that disagrees with d(reference)/d(input) on sample points
        is a warning at its entry (an error with --strict)."""
        import numpy as np

        from opgen import derive

        if (len(reference) != len(outs) or any(not t.dtypes for t in [*ins.values(),
                                                                       *outs.values()])
                or any(a.default is None and a.type is not AttrType.TYPE
                       for a in attrs.values())):
            return  # an invalid tensor, or a required attr without a sample value
        values: dict[str, Any] = {}
        for a in attrs.values():
            if a.type is AttrType.TYPE:
                values[a.name] = np.dtype("float64")  # casts become the identity in float64
            elif isinstance(a.default, tuple):
                values[a.name] = a.default
            else:
                values[a.name] = a.default
        hand = {g.input: g.expr for g in grads}
        used = [o for o in outs if any(f"grad_{o}" in ex.names(g.expr) for g in grads)]
        problem = self.derive_problem(ins, outs, attrs, reference)
        shapes = {n: t.shape for n, t in ins.items()}
        try:
            found = derive.check_backward_cached(problem, hand, values, shapes, used)
        except derive.NotDerivable:
            return
        for g in grads:
            if g.input in found:
                self.sink.warning(g.loc, f"backward of {g.input} disagrees with "
                                  f"d(reference)/d{g.input} {found[g.input]}")


def _is_bool_arg(value: ex.Expr, attrs: Mapping[str, AttrDesc]) -> bool:
    if isinstance(value, ex.Const):
        return isinstance(value.value, bool)
    return (isinstance(value, ex.Name) and value.id in attrs
            and attrs[value.id].type is AttrType.BOOL)


def _str(value: Any, default: str) -> str:
    return value if isinstance(value, str) else default


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _socs(given: Any) -> tuple[str, ...]:
    """The spec's SoCs; the default when absent (or invalid, which the schema reported)."""
    if isinstance(given, list) and given and all(isinstance(s, str) for s in given):
        return tuple(given)
    return ("ascend910b",)


def build_spec(doc: Document, sink: DiagnosticSink, spec_dir: str | None = None) -> OpSpec | None:
    """Validate one spec document; errors go to `sink`, the model is returned when clean."""
    start = len(sink.items)
    directory = spec_dir if spec_dir is not None else os.path.dirname(doc.path)
    fused_from: tuple[str, ...] = ()
    if isinstance(doc.data, Mapping) and "fuse" in doc.data:
        from opgen.fuse import expand  # a fused spec: its steps' composition (opgen/fuse.py)

        fused_from = expand(doc, directory, sink)
        if any(d.severity.value == "error" for d in sink.items[start:]):
            return None
    check_schema(doc, sink)
    if not isinstance(doc.data, Mapping):
        if not sink.items[start:]:
            sink.error(doc.loc(()), "an operator spec must be a mapping")
        return None
    builder = _Builder(doc, DiagnosticSink(), directory)
    spec = builder.build()
    sink.extend(builder.sink.items)
    if spec is not None and fused_from:
        from dataclasses import replace

        spec = replace(spec, fused_from=fused_from)
    return spec if not any(d.severity.value == "error" for d in sink.items[start:]) else None
