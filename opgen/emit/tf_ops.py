"""The TensorFlow integration: per op a real TF op (C++) and its Python wrapper, gradient and
Keras layer; per package the one translation unit and the loader.

Layout under <output_dir>/python/<package>/tf/ (docs/tensorflow.md):
    cc/<op>.h              REGISTER_OP, the op's description (shapes, dtypes, tiling) and its
                           CPU kernel, registered with runtime/include/opgen_tf/sim_op.h
    cc/<package>_tf.cc     includes every cc/<op>.h: TensorFlow's headers compile once
    _library.py            builds (cached by content hash) and loads lib<package>_tf.so
    <op>.py                the wrapper, @tf.RegisterGradient from the spec's backward, the layer
    __init__.py            re-exports every wrapper and layer
    tests/test_<op>.py     reference, static shape, gradient and SavedModel checks, calling
                           runtime/opgen_runtime/tf_testing.py
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

from opgen import checks
from opgen.dtypes import AttrType, DType
from opgen.emit import host_desc, inplace
from opgen.emit import tf_naming as names
from opgen.emit.common import banner_text, render, user_tiling
from opgen.emit.escape import cxx_str, tf_str
from opgen.emit.metadef import metadef_path, metadef_path_for
from opgen.emit.python_pkg import package_dir, relative_to_module
from opgen.expr import names as free_names
from opgen.expr_translate import TENSORFLOW, to_source
from opgen.gencache import OpRecord
from opgen.kernel_frontend import CheckedKernel
from opgen.model import AttrDesc, AttrValue, Combination, OpSpec, TensorDesc
from opgen.project import Config
from opgen.shape_rules import Broadcast, DimOf, Explicit, Reduce, SameAs, ShapeRule

TF_DIR = "tf"

def tf_dir(config: Config) -> str:
    return f"{package_dir(config)}/{TF_DIR}"


def op_source_path(spec: OpSpec, config: Config) -> str:
    return f"{tf_dir(config)}/cc/{spec.op_name}.h"


def module_path(spec: OpSpec, config: Config) -> str:
    return f"{tf_dir(config)}/{spec.op_name}.py"


def op_tests_path(spec: OpSpec, config: Config) -> str:
    return f"{tf_dir(config)}/tests/test_{spec.op_name}.py"


# -- dtypes: which TF type attr carries each tensor's dtype -------------------------------------
@dataclass(frozen=True)
class TypeAttr:
    name: str
    allowed: tuple[DType, ...]
    default: DType | None  # needed when no input fixes it (an absent optional input)


def _distinct(dtypes: Sequence[DType]) -> tuple[DType, ...]:
    return tuple(dict.fromkeys(dtypes))


def dtype_attrs(spec: OpSpec) -> tuple[dict[str, str | None], list[TypeAttr]]:
    """Each tensor's type attr (None: a fixed dtype) and the op's input/output type attrs.

    Inputs with the same dtype column share one attr (`T` when there is one such group);
    an output reuses its input group's attr, its `dtype_from` attr, or gets `T_<name>`.
    """
    varying = [t for t in spec.inputs if len(set(t.dtypes)) > 1]
    groups = list(dict.fromkeys(t.dtypes for t in varying))
    by_group: dict[tuple[DType, ...], str] = {}
    attrs: list[TypeAttr] = []
    for g in groups:
        first = next(t for t in varying if t.dtypes == g)
        name = names.input_dtype_attr(first.name, len(groups) == 1)
        by_group[g] = name
        only_optional = all(t.is_optional for t in varying if t.dtypes == g)
        attrs.append(TypeAttr(name, _distinct(g), g[0] if only_optional else None))
    out: dict[str, str | None] = {}
    for t in spec.inputs:
        out[t.name] = by_group.get(t.dtypes)
    for t in spec.outputs:
        if t.dtype_from is not None:
            out[t.name] = t.dtype_from
        elif len(set(t.dtypes)) == 1:
            out[t.name] = None
        elif t.dtypes in by_group:
            out[t.name] = by_group[t.dtypes]
        else:
            name = names.output_dtype_attr(t.name)
            out[t.name] = name
            attrs.append(TypeAttr(name, _distinct(t.dtypes), None))
    return out, attrs


# -- REGISTER_OP lines ------------------------------------------------------------------------
def _default_text(value: AttrValue, atype: AttrType) -> str:
    if atype is AttrType.TYPE:
        assert isinstance(value, DType)
        return names.tf_enum(value)
    if atype.is_list:
        assert isinstance(value, tuple)
        return "[" + ", ".join(_default_text(v, atype.element) for v in value) + "]"
    if atype is AttrType.BOOL:
        return "true" if value else "false"
    if atype is AttrType.FLOAT:
        return repr(float(value))  # type: ignore[arg-type]
    if atype is AttrType.STRING:
        return tf_str(str(value))
    assert isinstance(value, int)
    return str(value)


def _type_list(dtypes: Sequence[DType]) -> str:
    return "{" + ", ".join(names.tf_type(d) for d in dtypes) + "}"


def _spec_attr_line(spec: OpSpec, a: AttrDesc) -> str:
    atype = names.tf_attr_type(a.type)
    if a.type is AttrType.TYPE:
        allowed = _distinct([d for t in spec.outputs if t.dtype_from == a.name for d in t.dtypes])
        if allowed:
            atype = _type_list(allowed)
    line = f"{a.name}: {atype}"
    if a.default is not None:
        line += f" = {_default_text(a.default, a.type)}"
    return line


def op_lines(spec: OpSpec) -> list[str]:
    """The op definition's lines as opgen_tf::OpLine initialisers, in REGISTER_OP's order
    (`{::opgen_tf::OpLine::kInput, "x: T"}` ...)."""
    tensor_attr, type_attrs = dtype_attrs(spec)
    lines: list[str] = []

    def line(kind: str, text: str) -> None:
        lines.append(f"{{::opgen_tf::OpLine::k{kind}, {cxx_str(text)}}}")

    def type_of(t: TensorDesc) -> str:
        attr = tensor_attr[t.name]
        return attr if attr is not None else names.tf_type(t.dtypes[0])

    for t in spec.inputs:
        if t.is_optional:
            line("Input", f"{t.name}: {names.count_attr(t.name)} * {type_of(t)}")
        else:
            line("Input", f"{t.name}: {type_of(t)}")
    for t in spec.outputs:
        line("Output", f"{t.name}: {type_of(t)}")
    for ta in type_attrs:
        default = f" = {names.tf_enum(ta.default)}" if ta.default is not None else ""
        line("Attr", f"{ta.name}: {_type_list(ta.allowed)}{default}")
    for t in spec.inputs:
        if t.is_optional:
            line("Attr", f"{names.count_attr(t.name)}: int >= 0 = 0")
    for a in spec.attrs:
        line("Attr", _spec_attr_line(spec, a))
    return lines


# -- the op description (C++ initialisers for opgen_tf::OpDesc) ---------------------------------
def _tensor(spec: OpSpec, t: TensorDesc, dtype_attr: str | None, is_input: bool) -> str:
    count = names.count_attr(t.name) if t.is_optional else None
    rank = -1 if t.shape is None else len(t.shape)
    rule = "{}" if is_input else host_desc.rule(spec, t)
    return (f"{{{host_desc.tensor_head(t)}, {host_desc.cstr(count)}, "
            f"{host_desc.cstr(dtype_attr)}, {rank}, {host_desc.ints(t.shape or ())}, {rule}}}")


@dataclass(frozen=True)
class OpSourceView:
    banner: str
    op_name: str
    tf_name: str
    namespace: str
    library_source: str
    desc: host_desc.DescView
    tiling_hook: str
    op_lines: tuple[str, ...]


def source_view(spec: OpSpec, kernel: CheckedKernel, config: Config) -> OpSourceView:
    tensor_attr, _ = dtype_attrs(spec)
    return OpSourceView(
        banner=banner_text(spec.spec_path),
        op_name=spec.op_name,
        tf_name=names.tf_op_name(config.namespace, spec.op_name),
        namespace=names.cc_namespace(spec.op_name),
        library_source=f"{names.library_stem(config.package)}.cc",
        desc=host_desc.desc_view(
            spec, kernel,
            inputs=[_tensor(spec, t, tensor_attr[t.name], True) for t in spec.inputs],
            outputs=[_tensor(spec, t, tensor_attr[t.name], False) for t in spec.outputs],
            blob_symbol=names.blob_symbol, host_symbol=names.host_blob_symbol,
            dtype=lambda d: f"::opgen_tf::Dtype::{names.tf_enum(d)}"),
        tiling_hook=host_desc.cstr(user_tiling(spec) or None),
        op_lines=tuple(op_lines(spec)),
    )


# -- the Python module of one op ----------------------------------------------------------------
@dataclass(frozen=True)
class ParamView:
    name: str
    default: str | None  # Python source of the default; None: required


@dataclass(frozen=True)
class AttrView:
    name: str
    default: str | None
    is_type: bool


@dataclass(frozen=True)
class GradView:
    input: str
    source: str  # TensorFlow source over the names the gradient function binds


@dataclass(frozen=True)
class OpModuleView:
    banner: str
    op_name: str
    tf_name: str
    raw_name: str
    layer: str
    doc: str
    package: str
    inputs: tuple[ParamView, ...]
    outputs: tuple[str, ...]
    attrs: tuple[AttrView, ...]
    columns: tuple[tuple[str, ...], ...]
    tensor_attrs: tuple[tuple[str, str | None], ...]
    output_attrs: tuple[str, ...]  # type attrs the wrapper passes (T_<output>)
    gradient: str  # expr | op | none
    grads: tuple[GradView, ...]
    grad_op: str
    metadef: str
    spec_path: str = ""
    attr_specs: str = ""  # (name, type, required, default) per attr: argcheck.check_attrs


def _py_default(a: AttrDesc) -> str | None:
    if a.default is None:
        return None
    if isinstance(a.default, DType):
        return repr(a.default.value)
    return repr(a.default)


def module_view(spec: OpSpec, config: Config) -> OpModuleView:
    tensor_attr, type_attrs = dtype_attrs(spec)
    spec_attr_names = {a.name for a in spec.attrs}
    backward = spec.backward
    grads: tuple[GradView, ...] = ()
    if backward is None:
        gradient, grad_op = "none", ""
    elif backward.grad_op is not None:
        gradient, grad_op = "op", backward.grad_op
    else:
        gradient, grad_op = "expr", ""
        grads = tuple(GradView(g.input, to_source(g.expr, TENSORFLOW))
                      for g in backward.gradients)
    path = module_path(spec, config)
    tf_name = names.tf_op_name(config.namespace, spec.op_name)
    return OpModuleView(
        banner=banner_text(spec.spec_path),
        op_name=spec.op_name,
        tf_name=tf_name,
        raw_name=names.tf_python_name(tf_name),
        layer=names.layer_class(spec.op_name),
        doc=spec.doc,  # the template escapes it (py_doc)
        package=config.package,
        inputs=tuple(ParamView(t.name, "None" if t.is_optional else None) for t in spec.inputs),
        outputs=tuple(t.name for t in spec.outputs),
        attrs=tuple(AttrView(a.name, _py_default(a), a.type is AttrType.TYPE)
                    for a in spec.attrs),
        columns=tuple(tuple(d.value for _n, d in c.dtypes) for c in spec.combinations()),
        tensor_attrs=tuple((t.name, tensor_attr[t.name]) for t in spec.tensors),
        output_attrs=tuple(ta.name for ta in type_attrs
                           if ta.name.startswith("T_") and ta.name[2:] in
                           {t.name for t in spec.outputs} and ta.name not in spec_attr_names),
        gradient=gradient,
        grads=grads,
        grad_op=grad_op,
        metadef=relative_to_module(path, metadef_path(spec)),
        spec_path=spec.spec_path,
        attr_specs=checks.attr_specs_source(spec.attrs) if spec.attrs else "",
    )


# -- the generated tests of one op --------------------------------------------------------------
# Sample sizes: any-size dims become SAMPLE_DIM, any-rank tensors get SAMPLE_SHAPE (8 float32 =
# 32 bytes: one aligned block, as the kernels' DataCopy wants).
SAMPLE_DIM = 8
SAMPLE_SHAPE = (4, SAMPLE_DIM)
_SAMPLE_ATTRS = {AttrType.INT: "1", AttrType.FLOAT: "0.5", AttrType.BOOL: "False",
                 AttrType.STRING: "''", AttrType.TYPE: "'float32'", AttrType.LIST_INT: "[1]",
                 AttrType.LIST_FLOAT: "[0.5]", AttrType.LIST_BOOL: "[False]",
                 AttrType.LIST_STRING: "['']"}
_HALF = (DType.FLOAT16, DType.BFLOAT16)


@dataclass(frozen=True)
class OpTestsView:
    banner: str
    op_name: str
    tf_package: str
    layer: str
    metadef: str  # relative to the test module
    shapes: tuple[tuple[str, str], ...]  # input -> Python source of its sample shape
    attrs: tuple[tuple[str, str], ...]  # attr -> Python source (type attrs of outputs: per column)
    columns: tuple[int, ...]
    sample_column: int  # of the static-shape, gradient and SavedModel checks
    optional: str  # Python source of a tuple of names, "" when none; so are the next two
    static_cases: tuple[str, ...]  # Python source of {input: static shape}
    differentiable: str
    grad_outputs: str  # the outputs whose gradient the backward uses; "": no gradient check
    tolerances: str


def _sample_column(spec: OpSpec) -> Combination:
    """All-float32 inputs if a column has them (the most precise for gradients), else the first
    with floating inputs, else the first; always with a floating output when there is one."""
    combos = list(spec.combinations())
    n_in = len(spec.inputs)

    def all_float32(c: Combination) -> bool:
        return all(d is DType.FLOAT32 for _, d in c.dtypes[:n_in])

    def all_floating(c: Combination) -> bool:
        return all(d.is_floating for _, d in c.dtypes[:n_in])

    for pred in (all_float32, all_floating):
        for c in combos:
            if pred(c) and any(d.is_floating for _, d in c.dtypes[n_in:]):
                return c
    return combos[0]


def _sample_shape(spec: OpSpec, t: TensorDesc) -> tuple[int, ...]:
    if t.shape is not None:
        return tuple(SAMPLE_DIM if d < 0 else d for d in t.shape)
    broadcast_later = any(isinstance(o.infer, Broadcast) and t.name in o.infer.inputs[1:]
                          for o in spec.outputs)
    if t is not spec.inputs[0] and broadcast_later:
        return (SAMPLE_DIM,)  # exercises broadcasting (and sum_to in the gradient)
    return SAMPLE_SHAPE


def _rule_inputs(rule: ShapeRule | None) -> set[str]:
    if isinstance(rule, SameAs | Reduce):
        return {rule.input}
    if isinstance(rule, Broadcast):
        return set(rule.inputs)
    if isinstance(rule, Explicit):
        return {d.input for d in rule.dims if isinstance(d, DimOf)}
    return set()


StaticShape = list[int | None] | None


def _py_literal(value: dict[str, StaticShape] | StaticShape | tuple[str, ...]) -> str:
    """Python source of a shape, a case of shapes or a tuple of names, in the generated
    code's quoting ({"x": [None, 8]}, ("x",))."""
    if isinstance(value, dict):
        return "{" + ", ".join(f"{json.dumps(k)}: {_py_literal(v)}"
                               for k, v in value.items()) + "}"
    if isinstance(value, tuple):
        items = ", ".join(json.dumps(n) for n in value)
        return f"({items},)" if len(value) == 1 else f"({items})"
    if value is None:
        return "None"
    return "[" + ", ".join("None" if d is None else str(d) for d in value) + "]"


def _static_cases(spec: OpSpec, shapes: dict[str, tuple[int, ...]]) -> tuple[str, ...]:
    """Input signatures for the static-shape check: every dim unknown; the first input's
    leading dim unknown; only the first input's dims known (unknown against known dims); the
    first input of unknown rank, without the optional inputs that no shape rule reads."""
    first = spec.inputs[0].name
    read = {n for t in spec.outputs for n in _rule_inputs(t.infer)}
    unknown: dict[str, StaticShape] = {n: [None] * len(s) for n, s in shapes.items()}
    leading: dict[str, StaticShape] = {n: list(s) for n, s in shapes.items()}
    if shapes[first]:
        leading[first] = [None, *shapes[first][1:]]
    first_known: dict[str, StaticShape] = {**unknown, first: list(shapes[first])}
    any_rank: dict[str, StaticShape] = {
        t.name: list(shapes[t.name]) for t in spec.inputs
        if not t.is_optional or t.name in read}
    any_rank[first] = None
    cases = [_py_literal(c) for c in (unknown, leading, first_known, any_rank)]
    return tuple(dict.fromkeys(cases))


def op_tests_view(spec: OpSpec, config: Config) -> OpTestsView:
    combo = _sample_column(spec)
    dtypes = dict(combo.dtypes)
    shapes = {t.name: _sample_shape(spec, t) for t in spec.inputs}
    per_column = {t.dtype_from for t in spec.outputs if t.dtype_from is not None}
    bw = spec.backward
    differentiable: tuple[str, ...] = ()
    grad_outputs: tuple[str, ...] = ()
    if bw is not None:
        differentiable = tuple(t.name for t in spec.inputs if dtypes[t.name].is_floating and (
            bw.grad_op is not None or bw.for_input(t.name) is not None))
        used = {n for g in bw.gradients for n in free_names(g.expr)}
        grad_outputs = tuple(t.name for t in spec.outputs if dtypes[t.name].is_floating and (
            bw.grad_op is not None or f"grad_{t.name}" in used))
    half = any(dtypes[n] in _HALF for n in (*differentiable, *grad_outputs))
    optional = tuple(t.name for t in spec.inputs if t.is_optional)
    path = op_tests_path(spec, config)
    return OpTestsView(
        banner=banner_text(spec.spec_path),
        op_name=spec.op_name,
        tf_package=f"{config.package}.tf",
        layer=names.layer_class(spec.op_name),
        metadef=relative_to_module(path, metadef_path(spec)),
        shapes=tuple((n, repr(s)) for n, s in shapes.items()),
        attrs=tuple((a.name, _py_default(a) or _SAMPLE_ATTRS[a.type]) for a in spec.attrs
                    if a.name not in per_column),
        columns=tuple(c.index for c in spec.combinations()),
        sample_column=combo.index,
        optional=_py_literal(optional) if optional else "",
        static_cases=_static_cases(spec, shapes),
        differentiable=_py_literal(differentiable),
        grad_outputs=_py_literal(grad_outputs) if differentiable and grad_outputs else "",
        tolerances="_tft.HALF_TOLERANCES" if half else "_tft.FLOAT_TOLERANCES",
    )


def emit(spec: OpSpec, kernel: CheckedKernel, config: Config) -> dict[str, str]:
    if spec.framework_refused:  # refused: the registry and aclnn run it (opgen.emit.inplace)
        v = inplace.view(spec, "TensorFlow", f"{config.package}.tf.{spec.op_name}",
                         layer=names.layer_class(spec.op_name))
        return {op_source_path(spec, config): inplace.header(v),
                module_path(spec, config): inplace.module(v),
                op_tests_path(spec, config): inplace.test(v)}
    return {
        op_source_path(spec, config): render("python/tf/op.h.j2",
                                             v=source_view(spec, kernel, config)),
        module_path(spec, config): render("python/tf/op.py.j2", v=module_view(spec, config)),
        op_tests_path(spec, config): render("python/tf/test_op.py.j2",
                                            v=op_tests_view(spec, config)),
    }


# -- package level ------------------------------------------------------------------------------
@dataclass(frozen=True)
class PackageOpView:
    op_name: str
    layer: str
    metadef: str  # relative to tf/


def emit_package(ops: Sequence[OpRecord], config: Config) -> dict[str, str]:
    base = tf_dir(config)
    stem = names.library_stem(config.package)
    init = f"{base}/__init__.py"
    views = tuple(PackageOpView(o.op_name, names.layer_class(o.op_name),
                                relative_to_module(init, metadef_path_for(o.op_name)))
                  for o in ops)
    return {
        f"{base}/cc/{stem}.cc": render("python/tf/library.cc.j2", banner=banner_text(),
                                       package=config.package, ops=views),
        f"{base}/_library.py": render("python/tf/library.py.j2", banner=banner_text(),
                                      package=config.package, stem=stem, ops=views,
                                      op_types=[names.tf_op_name(config.namespace, o.op_name)
                                                for o in ops]),
        init: render("python/tf/package_init.py.j2", banner=banner_text(),
                     package=config.package, ops=views),
        f"{base}/tests/__init__.py": render("python/tf/tests_init.py.j2", banner=banner_text(),
                                            package=config.package),
    }
