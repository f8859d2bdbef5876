"""PyTorch and TensorFlow files of an op that writes an input in place (`inplace: true`).

Such an op runs through the registry (which returns the updated copy of each in-place input)
and through aclnn (whose kernel writes the caller's device buffer). The framework ops are not
generated for it: their op modules keep the names the packages import and raise a located
OpCallError when called, their C++ headers register nothing, and their generated tests check
the refusal (docs/op-host.md, "In-place ops").
"""

from __future__ import annotations

from dataclasses import dataclass

from opgen.emit.common import banner_text, render
from opgen.model import OpSpec


@dataclass(frozen=True)
class InplaceView:
    banner: str
    frontend: str  # "PyTorch" or "TensorFlow"
    op_name: str
    op_type: str
    written: tuple[str, ...]  # the in-place inputs
    message: str  # the refusal, with the spec location
    layer: str | None  # TensorFlow: the Keras layer name its package imports
    module: str  # the op module the generated test imports


def view(spec: OpSpec, frontend: str, module: str, layer: str | None = None) -> InplaceView:
    written = tuple(t.name for t in spec.inplace_inputs)
    loc = spec.inplace_inputs[0].loc
    names = ", ".join(f"'{n}'" for n in written)
    message = (f"{spec.op_name}: the op writes its input{'s' if len(written) > 1 else ''} "
               f"{names} in place ({loc.path}:{loc.line}:{loc.col}: inplace: true); opgen "
               f"generates no {frontend} op for in-place ops. Call it through the registry "
               f"(opgen_runtime.registry.call('{spec.op_name}', ...) returns the updated copy) "
               f"or through aclnn{spec.op_type}")
    return InplaceView(banner_text(spec.spec_path), frontend, spec.op_name, spec.op_type,
                       written, message, layer, module)


def header(v: InplaceView) -> str:
    """A C++ header of the framework library that registers nothing for the op."""
    return render("python/inplace_op.h.j2", v=v)


def module(v: InplaceView) -> str:
    return render("python/inplace_op.py.j2", v=v)


def test(v: InplaceView) -> str:
    return render("python/inplace_test.py.j2", v=v)
