"""PyTorch and TensorFlow files of an op no framework op is generated for: one that writes an
input in place (`inplace: true`), or one with a list output (`param_type: dynamic`).

An in-place op runs through the registry (which returns the updated copy of each in-place input)
and through aclnn (whose kernel writes the caller's device buffer); an op with a list output
through the registry (which returns the list). Their op modules keep the names the packages
import and raise a located OpCallError when called, their C++ headers register nothing, and
their generated tests check the refusal (docs/op-host.md, "In-place ops" and "Dynamic (list)
outputs").
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
    written: tuple[str, ...]  # the in-place inputs, or the list outputs
    message: str  # the refusal, with the spec location
    layer: str | None  # TensorFlow: the Keras layer name its package imports
    module: str  # the op module the generated test imports
    why: str = "it writes its input(s) in place"  # the refusal in a few words
    match: str = "in place"  # what the generated test finds in the refusal
    note: tuple[str, str] = ("", "")  # the C++ header's two comment lines after the op type


def view(spec: OpSpec, frontend: str, module: str, layer: str | None = None) -> InplaceView:
    if not spec.inplace_inputs:
        if spec.list_outputs:
            return _list_view(spec, frontend, module, layer)
        return _ref_view(spec, frontend, module, layer)
    written = tuple(t.name for t in spec.inplace_inputs)
    loc = spec.inplace_inputs[0].loc
    names = ", ".join(f"'{n}'" for n in written)
    message = (f"{spec.op_name}: the op writes its input{'s' if len(written) > 1 else ''} "
               f"{names} in place ({loc.path}:{loc.line}:{loc.col}: inplace: true); opgen "
               f"generates no {frontend} op for in-place ops. Call it through the registry "
               f"(opgen_runtime.registry.call('{spec.op_name}', ...) returns the updated copy) "
               f"or through aclnn{spec.op_type}")
    note = (f"writes its input(s) {', '.join(written)} in place: no {frontend} op is registered",
            'for it (the registry and aclnn run it; docs/op-host.md, "In-place ops").')
    return InplaceView(banner_text(spec.spec_path), frontend, spec.op_name, spec.op_type,
                       written, message, layer, module, note=note)


def _list_view(spec: OpSpec, frontend: str, module: str, layer: str | None) -> InplaceView:
    """The refusal of an op with a list output."""
    lists = tuple(t.name for t in spec.list_outputs)
    loc = spec.list_outputs[0].loc
    names = ", ".join(f"'{n}'" for n in lists)
    message = (f"{spec.op_name}: the op's output{'s' if len(lists) > 1 else ''} {names} "
               f"{'are lists' if len(lists) > 1 else 'is a list'} of tensors "
               f"({loc.path}:{loc.line}:{loc.col}: param_type: dynamic); opgen generates no "
               f"{frontend} op for list outputs. Call it through the registry "
               f"(opgen_runtime.registry.call('{spec.op_name}', ...) returns the list)")
    note = (f"has the list output(s) {', '.join(lists)}: no {frontend} op is registered",
            'for it (the registry runs it; docs/op-host.md, "Dynamic (list) outputs").')
    return InplaceView(banner_text(spec.spec_path), frontend, spec.op_name, spec.op_type,
                       lists, message, layer, module, why="its output(s) are lists of tensors",
                       match="list outputs", note=note)


def header(v: InplaceView) -> str:
    """A C++ header of the framework library that registers nothing for the op."""
    return render("python/inplace_op.h.j2", v=v)


def module(v: InplaceView) -> str:
    return render("python/inplace_op.py.j2", v=v)


def test(v: InplaceView) -> str:
    return render("python/inplace_test.py.j2", v=v)


def _ref_view(spec: OpSpec, frontend: str, module: str, layer: str | None) -> InplaceView:
    """The refusal of an op with an output that is an input's buffer (`ref:`)."""
    refs = tuple(t.name for t in spec.ref_outputs)
    first = spec.ref_outputs[0]
    loc = first.loc
    message = (f"{spec.op_name}: the op's output '{first.name}' is the buffer of its input "
               f"'{first.ref}' ({loc.path}:{loc.line}:{loc.col}: ref: {first.ref}); opgen "
               f"generates no {frontend} op for ref outputs. Call it through the registry "
               f"(opgen_runtime.registry.call('{spec.op_name}', ...) returns the updated copy)")
    note = (f"has the ref output(s) {', '.join(refs)}: no {frontend} op is registered",
            'for it (the registry runs it; docs/op-host.md, "Ref outputs").')
    return InplaceView(banner_text(spec.spec_path), frontend, spec.op_name, spec.op_type,
                       refs, message, layer, module, why="an output is an input's buffer",
                       match="ref outputs", note=note)
