"""The PyTorch target: per op a `torch.library` op with fake kernel and autograd, its C++ CPU
kernel, the seed-style autograd.Function and nn.Module, and a generated test module; per package
an index and the C++ kernel library.

Layout under <output_dir>/python/<package>/torch/:
    __init__.py           OPS, NAMESPACE, load(op) / load_all()
    <op>.py               the op (importing it defines `torch.ops.<namespace>.<op>`)
    cc/<op>.h             the op's description and its C++ CPU kernel registration
                          (runtime/include/opgen_torch/sim_op.h)
    cc/<package>_torch.cc includes every cc/<op>.h: torch's headers compile once
    _library.py           builds (cached by content hash) and loads lib<package>_torch.so
    tests/test_<op>.py    opcheck, gradcheck, torch.compile and torch.export checks

See "Registration path" in docs/pytorch.md for why the op is built from Library.define + impl
rather than torch.library.custom_op.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from opgen import checks
from opgen import expr as ex
from opgen.dtypes import AttrType, DType
from opgen.emit import host_desc, inplace
from opgen.emit import torch_naming as names
from opgen.emit.common import banner_text, render, user_tiling
from opgen.emit.metadef import metadef_path_for
from opgen.emit.python_pkg import package_dir, relative_to_module
from opgen.expr_translate import TORCH, to_source
from opgen.gencache import OpRecord
from opgen.kernel_frontend import CheckedKernel
from opgen.model import AttrDesc, Combination, OpSpec, TensorDesc
from opgen.project import Config
from opgen.shape_rules import Broadcast, DimOf, Explicit, Reduce, SameAs, ShapeRule

# Sample sizes of the generated tests: any-size dims become SAMPLE_DIM, any-rank tensors get
# SAMPLE_SHAPE (8 float32 = 32 bytes: one aligned block, as the kernels' DataCopy wants).
SAMPLE_DIM = 8
SAMPLE_SHAPE = (4, SAMPLE_DIM)


@dataclass(frozen=True)
class InputView:
    index: int
    name: str
    optional: bool
    param: str  # the Python parameter: "x: torch.Tensor" / "gamma: torch.Tensor | None = None"
    default: str  # "" or " = None"
    rank: str  # "1" or "None"


@dataclass(frozen=True)
class AttrView:
    name: str
    py_type: str
    default: str  # Python source, "" when required


@dataclass(frozen=True)
class FakeOutput:
    name: str
    shape: str  # Python source of the shape


@dataclass(frozen=True)
class GradView:
    index: int
    input: str
    source: str  # torch source of the gradient


@dataclass(frozen=True)
class BackwardView:
    kind: str  # "exprs" | "op" | "none"
    saved: tuple[str, ...]  # tensors saved for backward (inputs and outputs)
    saved_attrs: tuple[str, ...]
    gradients: tuple[GradView, ...]
    non_differentiable: tuple[str, ...]  # outputs whose gradient no backward uses
    grad_op: str


@dataclass(frozen=True)
class SampleInput:
    name: str
    source: str  # torch_testing call building it, or "None"
    differentiable: bool


def _input_view(i: int, t: TensorDesc) -> InputView:
    ann = "Sequence[torch.Tensor]" if t.is_dynamic else "torch.Tensor"
    if t.is_optional:
        return InputView(i, t.name, True, f"{t.name}: {ann} | None = None", " = None",
                         _rank(t))
    return InputView(i, t.name, False, f"{t.name}: {ann}", "", _rank(t))


def _rank(t: TensorDesc) -> str:
    return "None" if t.shape is None else str(len(t.shape))


def _attr_view(a: AttrDesc) -> AttrView:
    default = "" if a.default is None else names.py_default(a.default, a.type)
    return AttrView(a.name, names.py_attr_type(a), default)


def shape_source(rule: ShapeRule) -> str:
    """Python source of an output shape from its rule, on (possibly symbolic) input shapes."""
    if isinstance(rule, SameAs):
        return f"{rule.input}.shape"
    if isinstance(rule, Broadcast):
        return f"_ts.broadcast_shape({', '.join(f'{n}.shape' for n in rule.inputs)})"
    if isinstance(rule, Reduce):
        axis = list(rule.axis) if isinstance(rule.axis, tuple) else rule.axis
        return f"_ts.reduce_shape({rule.input}.shape, {axis}, {rule.keepdim})"
    assert isinstance(rule, Explicit)
    dims = [f"{d.input}.shape[{d.index}]" if isinstance(d, DimOf) else str(d)
            for d in rule.dims]
    return f"[{', '.join(dims)}]"


def _combination_source(spec: OpSpec, combo: Combination) -> str:
    n_in = len(spec.inputs)
    dtypes = [d for _, d in combo.dtypes]

    def tup(ds: Sequence[DType]) -> str:
        inner = ", ".join(names.torch_dtype(d) for d in ds)
        return f"({inner},)" if len(ds) == 1 else f"({inner})"

    return f"({tup(dtypes[:n_in])}, {tup(dtypes[n_in:])})"


def _backward_view(spec: OpSpec) -> BackwardView:
    bw = spec.backward
    if bw is None:
        return BackwardView("none", (), (), (), (), "")
    if bw.grad_op is not None:
        tensors = tuple(t.name for t in spec.tensors)
        return BackwardView("op", tensors, tuple(a.name for a in spec.attrs), (), (),
                            bw.grad_op)
    used: set[str] = set()
    grads = []
    for i, t in enumerate(spec.inputs):
        g = bw.for_input(t.name)
        if g is None:
            continue
        used |= ex.names(g.expr)
        grads.append(GradView(i, t.name, to_source(g.expr, TORCH)))
    saved = tuple(t.name for t in spec.tensors if t.name in used)
    saved_attrs = tuple(a.name for a in spec.attrs if a.name in used)
    non_diff: tuple[str, ...] = ()
    if len(spec.outputs) > 1:
        non_diff = tuple(o.name for o in spec.outputs if f"grad_{o.name}" not in used)
    return BackwardView("exprs", saved, saved_attrs, tuple(grads), non_diff, "")


def py_tuple(items: Sequence[str]) -> str:
    """Python tuple source: (a, b) / (a,) / ()."""
    return f"({items[0]},)" if len(items) == 1 else f"({', '.join(items)})"


def _unpack(items: Sequence[str]) -> str:
    """Assignment targets: `a, b` / `a,`."""
    return f"{items[0]}," if len(items) == 1 else ", ".join(items)


def _function_backward_return(n_inputs: int, n_attrs: int) -> str:
    """autograd.Function.backward returns a gradient per input and None per attr."""
    if n_attrs == 0:
        return "result"
    return py_tuple(["result" if n_inputs == 1 else "*result", *["None"] * n_attrs])


def _requires_grad_source(spec: OpSpec) -> str:
    """Whether any input requires grad: attribute reads when every input is a plain tensor (the
    cheapest), else torch._C._any_requires_grad (None and tensor lists)."""
    if all(not t.is_optional and not t.is_dynamic for t in spec.inputs):
        return " or ".join(f"{t.name}.requires_grad" for t in spec.inputs)
    return "_C._any_requires_grad(" + ", ".join(t.name for t in spec.inputs) + ")"


def _op_context(spec: OpSpec, config: Config) -> dict[str, object]:
    inputs = [_input_view(i, t) for i, t in enumerate(spec.inputs)]
    attrs = [_attr_view(a) for a in spec.attrs]
    required_inputs = [t for t in spec.inputs if not t.is_optional]
    in_names = [t.name for t in spec.inputs]
    out_names = [t.name for t in spec.outputs]
    backward = _backward_view(spec)
    attr_params = [f"{a.name}: {a.py_type}" + (f" = {a.default}" if a.default else "")
                   for a in attrs]
    return dict(
        params=[i.param for i in inputs] + (["*", *attr_params] if attrs else []),
        function_params=", ".join(["ctx: Any", *(i.param for i in inputs), *attr_params]),
        module_init_params=", ".join(["self", *(["*", *attr_params] if attrs else [])]),
        module_forward_params=", ".join(["self", *(i.param for i in inputs)]),
        input_tuple=py_tuple(in_names),
        input_unpack=_unpack(in_names),
        output_unpack=", ".join(out_names),
        grad_params=", ".join(["ctx: Any", *(f"grad_{o}: Any" for o in out_names)]),
        call_args=", ".join(in_names + [f"{a.name}={a.name}" for a in spec.attrs]),
        requires_grad=_requires_grad_source(spec),
        module_call_args=", ".join(in_names + [f"{a.name}=self.{a.name}" for a in spec.attrs]),
        apply_args=", ".join(in_names + [a.name for a in spec.attrs]),
        formula_params=", ".join(f"{n}: Any" for n in in_names + [a.name for a in spec.attrs]),
        direct_apply_args=", ".join(
            [f"None if {t.name} is None else _unwrap({t.name})" if t.is_optional
             else f"_unwrap({t.name})" for t in spec.inputs] + [a.name for a in spec.attrs]),
        attr_dict="{" + ", ".join(f'"{a.name}": {a.name}' for a in spec.attrs) + "}",
        attr_specs=checks.attr_specs_source(spec.attrs) if spec.attrs else "",
        names_source={k: py_tuple([f'"{n}"' for n in v]) for k, v in (
            ("inputs", in_names), ("outputs", out_names),
            ("attrs", [a.name for a in spec.attrs]),
            ("type_attrs", [a.name for a in spec.attrs if a.type is AttrType.TYPE]))},
        ranks_source=py_tuple([i.rank for i in inputs]),
        dtype_attrs_source=py_tuple([f'"{t.dtype_from}"' if t.dtype_from else "None"
                                     for t in spec.outputs])
        if any(t.dtype_from for t in spec.outputs) else "",
        saved_unpack=_unpack(backward.saved) if backward.saved else "",
        function_backward_return=_function_backward_return(len(in_names), len(spec.attrs)),
        grad_returns=", ".join(f"grad_{n}" for n in in_names),
        optional_inputs=any(t.is_optional for t in spec.inputs),
        banner=banner_text(spec.spec_path),
        op_name=spec.op_name,
        namespace=config.namespace,
        cpu_namespace=names.cpu_namespace(config.namespace),
        qualname=names.qualname(config.namespace, spec),
        package=config.package,
        spec_path=spec.spec_path,
        doc=spec.doc,
        schema=names.schema(spec),
        function_class=names.function_class(spec),
        module_class=names.module_class(spec),
        inputs=inputs,
        outputs=[t.name for t in spec.outputs],
        attrs=attrs,
        combinations=[_combination_source(spec, c) for c in spec.combinations()],
        dtype_attrs=[t.dtype_from for t in spec.outputs],
        type_attrs=[a.name for a in spec.attrs if a.type is AttrType.TYPE],
        native_kernel=spec.kernel.tiling_hook is None,
        # autograd.Function tracks tensors passed directly, not inside a tensor list
        function_fast_path=not any(t.is_dynamic for t in spec.inputs),
        fake_like=required_inputs[0].name if required_inputs else spec.inputs[0].name,
        fake_outputs=[FakeOutput(t.name, shape_source(t.infer) if t.infer else
                                 f"{spec.inputs[0].name}.shape") for t in spec.outputs],
        backward=backward,
        uses_sequence=any(t.is_dynamic for t in spec.inputs)
        or any(a.type.is_list for a in spec.attrs),
    )


def op_module(config: Config, op_name: str) -> str:
    return f"{config.package}.torch.{op_name}"


def op_path(spec: OpSpec, config: Config) -> str:
    return f"{package_dir(config)}/torch/{spec.op_name}.py"


def test_path(spec: OpSpec, config: Config) -> str:
    return f"{package_dir(config)}/torch/tests/test_{spec.op_name}.py"


# -- the generated tests' samples ----------------------------------------------------------------

def _sample_column(spec: OpSpec) -> Combination:
    """The combination the tests run: all-float32 inputs if there is one (the most precise for
    gradcheck), else the first with floating inputs, else the first."""
    combos = list(spec.combinations())
    n_in = len(spec.inputs)

    def floating_outputs(c: Combination) -> bool:
        return any(d.is_floating for _, d in c.dtypes[n_in:])

    def all_float32(c: Combination) -> bool:
        return all(d is DType.FLOAT32 for _, d in c.dtypes[:n_in]) and floating_outputs(c)

    def all_floating(c: Combination) -> bool:
        return all(d.is_floating for _, d in c.dtypes[:n_in]) and floating_outputs(c)

    for pred in (all_float32, all_floating):
        for c in combos:
            if pred(c):
                return c
    return combos[0]


def _sample_shape(spec: OpSpec, t: TensorDesc) -> tuple[int, ...]:
    if t.shape is not None:
        return tuple(SAMPLE_DIM if d < 0 else d for d in t.shape)
    first = spec.inputs[0]
    broadcast_later = any(isinstance(o.infer, Broadcast) and t.name in o.infer.inputs[1:]
                          for o in spec.outputs)
    if t is not first and broadcast_later:
        return (SAMPLE_DIM,)  # exercises broadcasting (and sum_to in the gradient)
    return SAMPLE_SHAPE


def _sample_attr(a: AttrDesc, spec: OpSpec, combo: Combination) -> str:
    if a.default is not None:
        return names.py_default(a.default, a.type)
    if a.type is AttrType.TYPE:
        by_name = dict(combo.dtypes)
        out = next((t for t in spec.outputs if t.dtype_from == a.name), None)
        return names.torch_dtype(by_name[out.name] if out else DType.FLOAT32)
    samples = {AttrType.INT: "1", AttrType.FLOAT: "0.5", AttrType.BOOL: "False",
               AttrType.STRING: "''", AttrType.LIST_INT: "(1,)", AttrType.LIST_FLOAT: "(0.5,)",
               AttrType.LIST_BOOL: "(False,)", AttrType.LIST_STRING: "('',)"}
    return samples[a.type]


def _test_context(spec: OpSpec, config: Config) -> dict[str, object]:
    combo = _sample_column(spec)
    dtypes = dict(combo.dtypes)
    bw = spec.backward
    n_in = len(spec.inputs)
    samples: list[SampleInput] = []
    for t in spec.inputs:
        d = dtypes[t.name]
        differentiable = bw is not None and d.is_floating and (
            bw.grad_op is not None or bw.for_input(t.name) is not None)
        samples.append(SampleInput(
            t.name, f"_tt.sample({_sample_shape(spec, t)}, {names.torch_dtype(d)}, "
                    f"seed={len(samples)})", differentiable))
    half_outputs = any(d in (DType.FLOAT16, DType.BFLOAT16) for _, d in combo.dtypes[n_in:])
    return dict(
        banner=banner_text(spec.spec_path),
        op_name=spec.op_name,
        module=op_module(config, spec.op_name),
        registration=f"{config.package}.registration.{spec.op_name}",
        torch_package=f"{config.package}.torch",
        module_class=names.module_class(spec),
        function_class=names.function_class(spec),
        samples=samples,
        optional=[t.name for t in spec.inputs if t.is_optional],
        attrs=[(a.name, _sample_attr(a, spec, combo)) for a in spec.attrs],
        references=[(r.output, to_source(r.expr, TORCH)) for r in spec.reference],
        outputs=[t.name for t in spec.outputs],
        has_backward=bw is not None and any(s.differentiable for s in samples),
        # float16 outputs: a coarse step on a grid the half type represents exactly
        gradcheck="_tt.HALF_TOLERANCES" if half_outputs else "_tt.FLOAT_TOLERANCES",
    )


# -- the C++ kernel library (initialisers of opgen_torch::OpDesc) --------------------------------

@dataclass(frozen=True)
class OpSourceView:
    banner: str
    op_name: str
    qualname: str
    torch_namespace: str
    cpu_namespace: str  # the bare CPU kernel's torch namespace (names.cpu_namespace)
    schema: str
    namespace: str  # the C++ namespace of the description
    library_source: str
    spec_path: str
    hook: str  # the spec's Python tiling hook ("": none, the op gets a C++ kernel)
    desc: host_desc.DescView


def cc_dir(config: Config) -> str:
    return f"{package_dir(config)}/torch/cc"


def _cc_tensor(spec: OpSpec, t: TensorDesc, is_input: bool) -> str:
    if is_input:
        rank = -1 if t.shape is None else len(t.shape)
        return f"{{{host_desc.tensor_head(t)}, -1, {rank}, {{}}}}"
    attr_index = {a.name: i for i, a in enumerate(spec.attrs)}
    dtype_attr = attr_index[t.dtype_from] if t.dtype_from else -1
    return f"{{{host_desc.tensor_head(t)}, {dtype_attr}, -1, {host_desc.rule(spec, t)}}}"


def source_view(spec: OpSpec, kernel: CheckedKernel, config: Config) -> OpSourceView:
    return OpSourceView(
        banner=banner_text(spec.spec_path),
        op_name=spec.op_name,
        qualname=names.qualname(config.namespace, spec),
        torch_namespace=config.namespace,
        cpu_namespace=names.cpu_namespace(config.namespace),
        schema=names.schema(spec),
        namespace=names.cc_namespace(spec.op_name),
        library_source=f"{names.library_stem(config.package)}.cc",
        spec_path=spec.spec_path,
        hook=user_tiling(spec),
        desc=host_desc.desc_view(
            spec, kernel,
            inputs=[_cc_tensor(spec, t, True) for t in spec.inputs],
            outputs=[_cc_tensor(spec, t, False) for t in spec.outputs],
            blob_symbol=names.blob_symbol, host_symbol=names.host_blob_symbol,
            dtype=names.scalar_type),
    )


@dataclass(frozen=True)
class PackageOpView:
    op_name: str
    metadef: str  # relative to torch/


# -- targets -------------------------------------------------------------------------------------

def emit(spec: OpSpec, kernel: CheckedKernel, config: Config) -> dict[str, str]:
    if spec.framework_refused:  # refused: the registry and aclnn run it (opgen.emit.inplace)
        v = inplace.view(spec, "PyTorch", f"{config.package}.torch.{spec.op_name}")
        return {f"{cc_dir(config)}/{spec.op_name}.h": inplace.header(v),
                op_path(spec, config): inplace.module(v),
                test_path(spec, config): inplace.test(v)}
    return {
        f"{cc_dir(config)}/{spec.op_name}.h": render("python/torch/op.h.j2",
                                                     v=source_view(spec, kernel, config)),
        op_path(spec, config): render("python/torch/op.py.j2", **_op_context(spec, config)),
        test_path(spec, config): render("python/torch/test_op.py.j2",
                                        **_test_context(spec, config)),
    }


def emit_package(ops: Sequence[OpRecord], config: Config) -> dict[str, str]:
    base = f"{package_dir(config)}/torch"
    stem = names.library_stem(config.package)
    library = f"{base}/_library.py"
    views = tuple(PackageOpView(o.op_name, relative_to_module(library, metadef_path_for(o.op_name)))
                  for o in ops)
    return {
        f"{cc_dir(config)}/{stem}.cc": render("python/torch/library.cc.j2", banner=banner_text(),
                                              package=config.package, ops=views),
        library: render("python/torch/library.py.j2", banner=banner_text(),
                        package=config.package, stem=stem, ops=views,
                        namespace=config.namespace,
                        cpu_namespace=names.cpu_namespace(config.namespace)),
        f"{base}/__init__.py": render("python/torch/package_init.py.j2", banner=banner_text(),
                                      package=config.package, namespace=config.namespace,
                                      ops=[o.op_name for o in ops]),
        f"{base}/tests/__init__.py": render("python/torch/tests_init.py.j2",
                                            banner=banner_text(), package=config.package),
    }
