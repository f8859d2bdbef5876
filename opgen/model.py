"""Stage 3, model: the validated operator spec as frozen dataclasses, built once."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Union

from opgen.checks import ArgChecks
from opgen.diagnostics import SourceLoc
from opgen.dtypes import AttrType, DType, Format, ParamType
from opgen.expr import Expr
from opgen.shape_rules import ShapeRule

AttrValue = Union[int, float, bool, str, DType, tuple[int, ...], tuple[float, ...],  # noqa: UP007
                  tuple[bool, ...], tuple[str, ...]]


@dataclass(frozen=True)
class TensorDesc:
    name: str
    dtypes: tuple[DType, ...]  # one per column; see OpSpec.combinations
    formats: tuple[Format, ...]
    shape: tuple[int, ...] | None  # None: any rank ([-2]); -1 entries: any size in that dim
    param_type: ParamType
    loc: SourceLoc
    infer: ShapeRule | None = None  # outputs only
    dtype_from: str | None = None  # outputs only: the `type` attr choosing the dtype
    doc: str = ""
    ir_name: str | None = None  # CANN's IR name when it is not `name` (e.g. srcList)
    inplace: bool = False  # inputs only: the kernel writes this input's buffer in place
    ref: str | None = None  # outputs only: the input whose buffer the output is (CANN's ref output)

    @property
    def ir(self) -> str:
        """The name CANN's IR uses: OpDef, REG_OP, the msopgen JSON, aclnn parameters."""
        return self.ir_name or self.name

    @property
    def is_optional(self) -> bool:
        return self.param_type is ParamType.OPTIONAL

    @property
    def is_dynamic(self) -> bool:
        return self.param_type is ParamType.DYNAMIC


@dataclass(frozen=True)
class AttrDesc:
    name: str
    type: AttrType
    default: AttrValue | None  # None: required attr
    loc: SourceLoc
    doc: str = ""
    ir_name: str | None = None  # CANN's IR name when it is not `name` (e.g. bufferMode)

    @property
    def ir(self) -> str:
        return self.ir_name or self.name

    @property
    def required(self) -> bool:
        return self.default is None


@dataclass(frozen=True)
class KernelRef:
    source: str  # relative to the spec file, as written
    entry: str
    loc: SourceLoc
    tiling_struct: str | None = None
    tiling_hook: str | None = None
    tiling_header: str | None = None  # relative to the spec file; force-included when built
    op_host: tuple[str, ...] = ()  # the op's own op_host sources, relative to the spec file
    # extra include directories of the op_host and kernel builds, relative to the spec file
    include_dirs: tuple[str, ...] = ()

    @property
    def own_tiling(self) -> bool:
        """The tiling comes from the user (a Python hook or the op's op_host), not the
        default policy."""
        return self.tiling_hook is not None or bool(self.op_host)


@dataclass(frozen=True)
class ReferenceExpr:
    output: str
    expr: Expr
    text: str
    loc: SourceLoc


@dataclass(frozen=True)
class GradientExpr:
    input: str
    expr: Expr
    text: str
    loc: SourceLoc


@dataclass(frozen=True)
class Backward:
    """Either per-input gradient expressions or the name of a gradient operator spec."""

    gradients: tuple[GradientExpr, ...] = ()
    grad_op: str | None = None
    loc: SourceLoc | None = None
    derived: bool = False  # computed from the reference (opgen.derive), not written

    def for_input(self, name: str) -> GradientExpr | None:
        return next((g for g in self.gradients if g.input == name), None)


@dataclass(frozen=True)
class Combination:
    """One column of the parallel dtype/format lists: a supported signature."""

    index: int
    dtypes: tuple[tuple[str, DType], ...]  # (tensor name, dtype) for inputs then outputs
    formats: tuple[tuple[str, Format], ...]


@dataclass(frozen=True)
class OpSpec:
    op_name: str
    op_type: str
    doc: str
    inputs: tuple[TensorDesc, ...]
    outputs: tuple[TensorDesc, ...]
    attrs: tuple[AttrDesc, ...]
    kernel: KernelRef
    reference: tuple[ReferenceExpr, ...]  # in evaluation order (dependencies first)
    backward: Backward | None
    socs: tuple[str, ...]
    spec_path: str  # as given (relative to the project root when found through the config)
    loc: SourceLoc
    type_loc: SourceLoc | None = None  # where op_type is given (op_name's place when derived)
    checks: ArgChecks = field(default_factory=ArgChecks)  # attr ranges, constraints
    fused_from: tuple[str, ...] = ()  # a `fuse:` spec: the step spec files it composes

    @property
    def tensors(self) -> tuple[TensorDesc, ...]:
        return self.inputs + self.outputs

    @property
    def num_combinations(self) -> int:
        return len(self.tensors[0].dtypes)

    def combinations(self) -> Iterator[Combination]:
        for i in range(self.num_combinations):
            yield Combination(
                i,
                tuple((t.name, t.dtypes[i]) for t in self.tensors),
                tuple((t.name, t.formats[i]) for t in self.tensors),
            )

    @property
    def inplace_inputs(self) -> tuple[TensorDesc, ...]:
        """The inputs the kernel writes in place (an op with them has no outputs)."""
        return tuple(t for t in self.inputs if t.inplace)

    @property
    def list_outputs(self) -> tuple[TensorDesc, ...]:
        """The dynamic outputs: lists of tensors, which the registry returns as lists."""
        return tuple(t for t in self.outputs if t.is_dynamic)

    @property
    def ref_outputs(self) -> tuple[TensorDesc, ...]:
        """The outputs that are an input's buffer (`ref:`, CANN's ref outputs)."""
        return tuple(t for t in self.outputs if t.ref is not None)

    @property
    def framework_refused(self) -> bool:
        """No PyTorch or TensorFlow op is generated (opgen.emit.inplace): the op writes an input
        in place, or an output is a list or an input's buffer."""
        return bool(self.inplace_inputs or self.list_outputs or self.ref_outputs)

    def input(self, name: str) -> TensorDesc | None:
        return next((t for t in self.inputs if t.name == name), None)

    def output(self, name: str) -> TensorDesc | None:
        return next((t for t in self.outputs if t.name == name), None)

    def attr(self, name: str) -> AttrDesc | None:
        return next((a for a in self.attrs if a.name == name), None)
