"""What the generated PyTorch modules import: the op's signature checks, the Python CPU kernel
path into the runtime (the fallback of the C++ kernel library, opgen_runtime.torch_library),
shape helpers for fake kernels, and gradient plumbing.

Generated code imports this runtime module, never the compiler. On the Python path tensors
cross into the simulator zero-copy: inputs as `Tensor.numpy()` views (launch copies only a
misaligned or strided one), outputs are the runtime's 32-byte aligned GM buffers wrapped with
`torch.from_numpy`.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import torch

from . import argcheck, registry
from .registry import (
    GradientNotRegisteredError,
    OpCallError,
    OpNotRegisteredError,
    OpValueError,
)

_LIBRARIES: dict[str, torch.library.Library] = {}
_LIBRARIES_LOCK = threading.Lock()


def library(namespace: str) -> torch.library.Library:
    """The process's FRAGMENT library of `namespace`, shared by every generated op module (a
    Library must stay alive as long as its registrations)."""
    with _LIBRARIES_LOCK:
        lib = _LIBRARIES.get(namespace)
        if lib is None:
            lib = _LIBRARIES[namespace] = torch.library.Library(  # type: ignore[no-untyped-call]
                namespace, "FRAGMENT")
        return lib


_DEFINED: set[str] = set()


def define(lib: torch.library.Library, schema: str, qualname: str) -> bool:
    """Define the op unless this process already has: False when an earlier import of the
    generated module (since dropped from sys.modules) defined and registered it, whose kernels
    then stay in place (torch allows one definition per process)."""
    with _LIBRARIES_LOCK:
        if qualname in _DEFINED:
            return False
        lib.define(schema)  # type: ignore[no-untyped-call]
        _DEFINED.add(qualname)
        return True


def dtype_name(dtype: torch.dtype) -> str:
    """torch.float32 -> float32 (the spec's and numpy's spelling)."""
    return str(dtype).removeprefix("torch.")


DTypeKey = tuple[torch.dtype | None, ...]


@dataclass
class OpSignature:
    """An op as the generated torch module sees it: names, ranks, dtype combinations.

    `combinations` holds one (input dtypes, output dtypes) pair per column of the spec; an
    output whose dtype comes from a `type` attr names that attr in `dtype_attrs`.
    """

    op_name: str
    qualname: str
    spec_path: str
    package: str
    inputs: tuple[str, ...]
    outputs: tuple[str, ...]
    attrs: tuple[str, ...]
    ranks: tuple[int | None, ...]  # per input; None: any rank
    combinations: tuple[tuple[tuple[torch.dtype, ...], tuple[torch.dtype, ...]], ...]
    dtype_attrs: tuple[str | None, ...] = ()  # per output
    type_attrs: tuple[str, ...] = ()  # attrs of type `type` (ScalarType)
    # (name, type, required, default) per attr: opgen_runtime.argcheck.check_attrs
    attr_specs: tuple[tuple[str, str, bool, Any], ...] = ()
    _resolved: dict[DTypeKey, tuple[torch.dtype, ...]] = field(default_factory=dict)

    # -- checks shared by the CPU and fake kernels ---------------------------------------------
    def output_dtypes(self, tensors: Sequence[torch.Tensor | None],
                      attrs: Mapping[str, Any]) -> tuple[torch.dtype, ...]:
        """The output dtypes of this call's dtype combination; a clear OpCallError (naming the
        supported combinations) when the spec has none for it."""
        key: DTypeKey = tuple(None if t is None else t.dtype for t in tensors)
        if self.dtype_attrs:
            key += tuple(attrs.get(a) if a else None for a in self.dtype_attrs)
        hit = self._resolved.get(key)
        if hit is None:
            hit = self._resolved[key] = self._resolve(tensors, attrs)
        return hit

    def _resolve(self, tensors: Sequence[torch.Tensor | None],
                 attrs: Mapping[str, Any]) -> tuple[torch.dtype, ...]:
        """The dtype column, then the declared ranks, in the C++ kernel's words (argcheck)."""
        for ins, outs in self.combinations:
            if any(t is not None and t.dtype != d for t, d in zip(tensors, ins, strict=True)):
                continue
            if any(a and attrs.get(a) != d for a, d in zip(self.dtype_attrs, outs, strict=False)):
                continue
            for name, rank, t in zip(self.inputs, self.ranks, tensors, strict=True):
                if t is not None and rank is not None and t.dim() != rank:
                    raise OpValueError(f"{self.op_name}(): input '{name}' must have rank {rank} "
                                       f"(spec shape {[-1] * rank}), got shape "
                                       f"{argcheck.shape_text(t.shape)}")
            return outs
        got = [(n, dtype_name(t.dtype)) for n, t in zip(self.inputs, tensors, strict=True)
               if t is not None]
        for a in self.dtype_attrs:
            if a:
                value = attrs.get(a)
                got.append((a, dtype_name(value) if isinstance(value, torch.dtype)
                            else str(value)))
        columns = [([(n, dtype_name(d)) for n, d in zip(self.inputs, ins, strict=True)],
                    [(n, dtype_name(d)) for n, d in zip(self.outputs, outs, strict=True)])
                   for ins, outs in self.combinations]
        raise OpCallError(argcheck.dtype_message(self.op_name, self.spec_path, got, columns))

    # -- the CPU kernel ------------------------------------------------------------------------
    def run(self, tensors: Sequence[torch.Tensor | None], attrs: Mapping[str, Any]) -> Any:
        """Run the registered kernel on CPU tensors through the runtime (zero-copy both ways)."""
        self.output_dtypes(tensors, attrs)
        if self.type_attrs:
            attrs = {k: dtype_name(v) if k in self.type_attrs and isinstance(v, torch.dtype)
                     else v for k, v in attrs.items()}
        arrays = [None if t is None else _as_numpy(t) for t in tensors]
        try:
            result = _CALL(self.op_name, *arrays, **attrs)
        except OpNotRegisteredError as exc:
            raise OpNotRegisteredError(self.how_to_register(str(exc))) from None
        if isinstance(result, tuple):
            return tuple(_from_numpy(r) for r in result)
        return _from_numpy(result)

    def how_to_register(self, detail: str) -> str:
        return (f"{self.qualname}: the kernel of '{self.op_name}' is not registered with the "
                f"opgen runtime. Register it once — `import {self.package}.registration."
                f"{self.op_name}` (or `{self.package}.register('{self.op_name}')`); in a "
                "multi-process job do that on rank 0 only, then barrier: other ranks find it in "
                f"the op package directory (OPGEN_OPP_PATH).\n{detail}")

    def no_backward(self) -> GradientNotRegisteredError:
        return GradientNotRegisteredError(
            f"{self.qualname} has no backward, so it cannot be trained through. Add a "
            f"`backward:` key to {self.spec_path} — a gradient expression per input using "
            f"the output gradients ({', '.join('grad_' + o for o in self.outputs)}), e.g. "
            f"`backward: {{{self.inputs[0]}: ...}}`, or `backward: {{op: <gradient op>}}` — "
            "and run `opgen generate`")


def check_attrs(sig: OpSignature, values: Mapping[str, Any]) -> None:
    """The call's attrs against the spec's types (argcheck.check_attrs, as the registry does):
    OpCallError before torch converts them (True for an int, None for a required attr...)."""
    try:
        argcheck.check_attrs(sig.op_name, sig.attr_specs, values)
    except argcheck.ArgCheckError as exc:
        raise registry.call_error(exc) from None


def call_error(sig: OpSignature, exc: Exception) -> Exception:
    """An argument error of the C++ kernel (`<op>(): ...`: a c10::TypeError for a dtype, a
    c10::ValueError for a value, which Python sees as TypeError / ValueError) as the runtime's
    OpCallError / OpValueError; other errors unchanged."""
    if isinstance(exc, OpCallError) or not str(exc).startswith(f"{sig.op_name}(): "):
        return exc
    return OpCallError(str(exc)) if isinstance(exc, TypeError) else OpValueError(str(exc))


_CALL: Callable[..., Any] = registry.call
_from_numpy = torch.from_numpy


def _as_numpy(t: torch.Tensor) -> Any:
    if t.requires_grad:
        t = t.detach()
    try:
        return t.numpy()
    except TypeError as exc:  # bfloat16 and other dtypes numpy lacks
        raise OpCallError(f"tensors of dtype {t.dtype} cannot be passed to the simulator: "
                          f"{exc}") from None


# -- fake kernels: output shapes from the spec's rules (SymInt-safe) -----------------------------

def reduce_shape(shape: Sequence[Any], axis: int | Sequence[int],
                 keepdim: bool) -> list[Any]:
    """`reduce(x, axis=..., keepdim=...)` on a (possibly symbolic) shape."""
    rank = len(shape)
    axes = {a % rank if rank else 0 for a in ((axis,) if isinstance(axis, int) else axis)}
    if keepdim:
        return [1 if i in axes else d for i, d in enumerate(shape)]
    return [d for i, d in enumerate(shape) if i not in axes]


def broadcast_shape(*shapes: Sequence[Any]) -> list[Any]:
    return list(torch.broadcast_shapes(*shapes))  # type: ignore[no-untyped-call]


# -- autograd ------------------------------------------------------------------------------------

TensorMeta = tuple[Any, torch.dtype] | None


class FormulaCtx:
    """The ctx an op's setup_context and formula see when its direct entry makes the autograd
    node (opgen_torch/py_entry.h): what an autograd.Function's ctx offers them. The entry moves
    the tensors of save_for_backward into the node (as SavedVariables) and sets
    needs_input_grad; at backward, saved_tensors holds them again."""

    def __init__(self) -> None:
        self.to_save: tuple[Any, ...] | None = None
        self.non_differentiable: tuple[Any, ...] | None = None
        self.saved_tensors: tuple[Any, ...] | None = None
        self.needs_input_grad: tuple[bool, ...] = ()

    def save_for_backward(self, *tensors: Any) -> None:
        self.to_save = tensors

    def mark_non_differentiable(self, *tensors: Any) -> None:
        self.non_differentiable = tensors



def metas(tensors: Sequence[torch.Tensor | None]) -> tuple[TensorMeta, ...]:
    """What a gradient needs of each input without saving it: shape and dtype."""
    return tuple([None if t is None else (t.shape, t.dtype) for t in tensors])


def grad_like(value: Any, meta: TensorMeta) -> Any:
    """A gradient expression's value shaped and typed like its input: a Python scalar fills
    the shape, a broadcast value is summed back (or expanded) to it, the dtype is the input's."""
    assert meta is not None
    shape, dtype = meta
    if not isinstance(value, torch.Tensor):
        return torch.full(shape, value, dtype=dtype)
    if value.shape != shape:
        lead = value.dim() - len(shape)
        if lead >= 0:
            dims = [*range(lead), *(lead + i for i, n in enumerate(shape)
                                    if n == 1 and value.shape[lead + i] != 1)]
            if dims:
                value = value.sum(dim=dims, keepdim=True)
            value = value.reshape(value.shape[lead:])
        if value.shape != shape:
            value = value.expand(shape)
    return value if value.dtype == dtype else value.to(dtype)


def call_grad_op(grad_op: Callable[..., Any], grad_sig: OpSignature, env: Mapping[str, Any],
                 inputs: Sequence[str]) -> tuple[Any, ...]:
    """Backward through a gradient op (`backward: {op: ...}`): its inputs and attrs are taken
    by name from the forward's inputs, outputs, attrs and grad_<output>; its outputs are
    matched to the forward's inputs as grad_<input> (or <input>)."""
    args = [env.get(n) for n in grad_sig.inputs]
    kwargs = {a: env[a] for a in grad_sig.attrs if a in env}
    result = grad_op(*args, **kwargs)
    results = result if isinstance(result, tuple) else (result,)
    by_name = dict(zip(grad_sig.outputs, results, strict=True))
    return tuple(by_name.get(f"grad_{n}", by_name.get(n)) for n in inputs)
