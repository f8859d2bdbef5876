"""Translation of the expression language to Python source for numpy, PyTorch and TensorFlow.

Each dialect maps the language's functions to source templates; names stay names (the
generated code binds inputs, outputs, attrs and grad_<output> to local variables). Helper
functions that have no one-call equivalent (`sum_to`, scalar-safe `maximum` ...) come from
`opgen_runtime.exprlib`, which generated code imports as `_x`.

These printers stay the project's own rather than sympy's (NumPyPrinter, TorchPrinter,
TensorflowPrinter): they print the language's tree, not sympy's, and reductions with
axis=/keepdims=, sum_to, cast/dtype, opt and the scalar-safe runtime helpers have no sympy
counterpart; a round trip through sympy would also reorder the expressions users wrote and
the generated code checked in. Derived gradients (opgen.derive) are printed by sympy into
the language, then by these printers like written ones (docs/gradients.md).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from opgen import expr as ex
from opgen.dtypes import DType


@dataclass(frozen=True)
class Dialect:
    name: str
    functions: Mapping[str, str]  # positional args {0} {1} {2}; reductions also {axis} {keep}
    dtype_prefix: str  # np. / torch. / tf.
    dtypes: Mapping[DType, str]
    reduction_no_axis: Mapping[str, str]


_NUMPY_DTYPES: dict[DType, str] = {d: d.value for d in DType if d is not DType.BFLOAT16}

NUMPY = Dialect(
    "numpy",
    {
        "exp": "np.exp({0})", "log": "np.log({0})", "sqrt": "np.sqrt({0})",
        "rsqrt": "(1 / np.sqrt({0}))", "reciprocal": "(1 / {0})", "tanh": "np.tanh({0})",
        "sigmoid": "(1 / (1 + np.exp(-({0}))))", "relu": "_x.np_relu({0})",
        "abs": "np.abs({0})", "sign": "np.sign({0})", "maximum": "np.maximum({0}, {1})",
        "minimum": "np.minimum({0}, {1})", "where": "np.where({0}, {1}, {2})",
        "sum": "np.sum({0}, axis={axis}, keepdims={keep})",
        "mean": "np.mean({0}, axis={axis}, keepdims={keep})",
        "max": "np.max({0}, axis={axis}, keepdims={keep})",
        "min": "np.min({0}, axis={axis}, keepdims={keep})",
        "cast": "np.asarray({0}).astype({1})", "dtype": "np.asarray({0}).dtype",
        "sum_to": "_x.np_sum_to({0}, {1})", "opt": "_x.opt({0}, {1})",
    },
    "np.", _NUMPY_DTYPES, {},
)

TORCH = Dialect(
    "torch",
    {
        "exp": "torch.exp({0})", "log": "torch.log({0})", "sqrt": "torch.sqrt({0})",
        "rsqrt": "torch.rsqrt({0})", "reciprocal": "torch.reciprocal({0})",
        "tanh": "torch.tanh({0})", "sigmoid": "torch.sigmoid({0})", "relu": "torch.relu({0})",
        "abs": "torch.abs({0})", "sign": "torch.sign({0})",
        "maximum": "_x.torch_maximum({0}, {1})", "minimum": "_x.torch_minimum({0}, {1})",
        "where": "torch.where({0}, {1}, {2})",
        "sum": "torch.sum({0}, dim={axis}, keepdim={keep})",
        "mean": "torch.mean({0}, dim={axis}, keepdim={keep})",
        "max": "torch.amax({0}, dim={axis}, keepdim={keep})",
        "min": "torch.amin({0}, dim={axis}, keepdim={keep})",
        "cast": "{0}.to({1})", "dtype": "{0}.dtype",
        "sum_to": "_x.torch_sum_to({0}, {1})", "opt": "_x.opt({0}, {1})",
    },
    "torch.", {d: d.value for d in DType},
    {"sum": "torch.sum({0})", "mean": "torch.mean({0})", "max": "torch.amax({0})",
     "min": "torch.amin({0})"},
)

TENSORFLOW = Dialect(
    "tensorflow",
    {
        "exp": "tf.exp({0})", "log": "tf.math.log({0})", "sqrt": "tf.sqrt({0})",
        "rsqrt": "tf.math.rsqrt({0})", "reciprocal": "tf.math.reciprocal({0})",
        "tanh": "tf.tanh({0})", "sigmoid": "tf.sigmoid({0})", "relu": "tf.nn.relu({0})",
        "abs": "tf.abs({0})", "sign": "tf.sign({0})",
        "maximum": "_x.tf_maximum({0}, {1})", "minimum": "_x.tf_minimum({0}, {1})",
        "where": "_x.tf_where({0}, {1}, {2})",
        "sum": "tf.reduce_sum({0}, axis={axis}, keepdims={keep})",
        "mean": "tf.reduce_mean({0}, axis={axis}, keepdims={keep})",
        "max": "tf.reduce_max({0}, axis={axis}, keepdims={keep})",
        "min": "tf.reduce_min({0}, axis={axis}, keepdims={keep})",
        "cast": "tf.cast({0}, {1})", "dtype": "{0}.dtype",
        "sum_to": "_x.tf_sum_to({0}, {1})", "opt": "_x.opt({0}, {1})",
    },
    "tf.", {d: d.value for d in DType},
    {},
)

DIALECTS = {d.name: d for d in (NUMPY, TORCH, TENSORFLOW)}


def to_source(e: ex.Expr, dialect: Dialect) -> str:
    """Python source for `e` in `dialect`, fully parenthesised where precedence needs it."""

    def go(node: ex.Expr) -> str:
        if isinstance(node, ex.Name):
            return node.id
        if isinstance(node, ex.Const):
            return repr(node.value)
        if isinstance(node, ex.DTypeLit):
            return dialect.dtype_prefix + dialect.dtypes[node.dtype]
        if isinstance(node, ex.AxisTuple):
            return repr(tuple(node.axes))
        if isinstance(node, ex.Unary):
            return f"({node.op}{go(node.operand)})"
        if isinstance(node, ex.Binary | ex.Compare):
            return f"({go(node.lhs)} {node.op} {go(node.rhs)})"
        assert isinstance(node, ex.Call)
        args = [go(a) for a in node.args]
        axis = node.kwarg("axis")
        keep = node.kwarg("keepdims")
        if axis is None and node.func in dialect.reduction_no_axis:
            template = dialect.reduction_no_axis[node.func]
            if keep is not None:
                template = dialect.functions[node.func]
        else:
            template = dialect.functions[node.func]
        return template.format(*args, axis=go(axis) if axis is not None else "None",
                               keep=go(keep) if keep is not None else "False")

    return go(e)
