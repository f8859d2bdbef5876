"""CANN framework/tf_plugin/: the TensorFlow parser plugin of each op, as msopgen lays it out.

On an Ascend machine, TensorFlow graphs reach the NPU through CANN's graph engine, which parses
every TensorFlow node by the plugin registered for its node type. The plugin maps the node of the
generated TensorFlow op (its REGISTER_OP name, emit/tf_naming.tf_op_name: `Opgen>LeakyRelu`) to
the CANN op type, with CANN's AutoMappingByOpFn copying inputs, outputs and attrs by name. Attrs
whose CANN IR name differs from the TensorFlow one, and `type` attrs (a TensorFlow DataType, an
Int on the CANN op), are copied by a parse function of the plugin's own.
"""

from __future__ import annotations

from dataclasses import dataclass

from opgen.dtypes import AttrType
from opgen.emit import tf_naming
from opgen.emit.cann_naming import file_stem
from opgen.emit.common import banner_text, render
from opgen.kernel_frontend.check import CheckedKernel
from opgen.model import AttrDesc, OpSpec
from opgen.project import Config

TF_PLUGIN_DIR = "cann/framework/tf_plugin"

# The C++ type a ge::Operator attr of each spec attr type is read and written as (graph/operator.h).
_GE_ATTR_CTYPE: dict[AttrType, str] = {
    AttrType.INT: "int64_t", AttrType.FLOAT: "float", AttrType.BOOL: "bool",
    AttrType.STRING: "ge::AscendString", AttrType.LIST_INT: "std::vector<int64_t>",
    AttrType.LIST_FLOAT: "std::vector<float>", AttrType.LIST_BOOL: "std::vector<bool>",
    AttrType.TYPE: "ge::DataType",
}


@dataclass(frozen=True)
class AttrCopy:
    tf_name: str  # the attr of the TensorFlow node
    ir_name: str  # the attr of the CANN op
    ctype: str  # what it is read as
    as_int: bool  # a `type` attr: written as its ge::DataType value (an Int on the CANN op)


@dataclass(frozen=True)
class PluginView:
    banner: str
    op_type: str
    tf_name: str
    parse_func: str  # empty: AutoMappingByOpFn itself
    copies: tuple[AttrCopy, ...]
    unmapped: tuple[str, ...]  # what the automatic mapping cannot carry, for a comment


def plugin_path(op_type: str) -> str:
    """msopgen's name of an op's TensorFlow plugin: tensorflow_<stem>_plugin.cc."""
    return f"{TF_PLUGIN_DIR}/tensorflow_{file_stem(op_type)}_plugin.cc"


def _copy(a: AttrDesc) -> AttrCopy | None:
    if a.type is AttrType.LIST_STRING:
        return None  # the CANN op declares it as an empty ListInt (emit/cann_op_host.py)
    if a.ir == a.name and a.type is not AttrType.TYPE:
        return None
    return AttrCopy(a.name, a.ir, _GE_ATTR_CTYPE[a.type], a.type is AttrType.TYPE)


def view(spec: OpSpec, config: Config) -> PluginView:
    copies = tuple(c for c in (_copy(a) for a in spec.attrs) if c is not None)
    unmapped = tuple(
        [f"optional input '{t.name}' (a TensorFlow list of 0 or 1 tensors)"
         for t in spec.inputs if t.is_optional]
        + [f"dynamic input '{t.name}'" for t in spec.inputs if t.is_dynamic])
    return PluginView(
        banner=banner_text(spec.spec_path),
        op_type=spec.op_type,
        tf_name=tf_naming.tf_op_name(config.namespace, spec.op_name),
        parse_func=f"Parse{spec.op_type}Params" if copies else "",
        copies=copies,
        unmapped=unmapped,
    )


def emit(spec: OpSpec, kernel: CheckedKernel, config: Config) -> dict[str, str]:
    del kernel
    return {plugin_path(spec.op_type): render("cann/framework/tf_plugin.cc.j2",
                                              v=view(spec, config))}


def plugin_file(op_type: str) -> str:
    """The plugin's file name within tf_plugin/ (for the CMake list)."""
    return plugin_path(op_type).rsplit("/", 1)[1]

