"""The runtime's C++ tiling policy, opgen_host/tiling_policy.h, as emitters use it.

The TensorFlow ops include it from the installed runtime; the CANN tree, built on a machine
without opgen, gets a copy (`POLICY_HEADER`) that every op's `<stem>_tiling.h` includes.
"""

from __future__ import annotations

from collections.abc import Sequence
from importlib import resources

from opgen.emit.common import banner_text
from opgen.gencache import OpRecord
from opgen.project import Config

POLICY_HEADER = "cann/op_host/opgen_tiling_policy.h"
_RUNTIME_HEADER = "opgen_host/tiling_policy.h"  # in the opgen_runtime.include package

# opgen_host::CType of each tiling field type the kernel frontend accepts (SCALAR_TYPES).
CTYPE_ENUMS: dict[str, str] = {
    "bool": "Bool", "int8_t": "I8", "uint8_t": "U8", "int16_t": "I16", "uint16_t": "U16",
    "int32_t": "I32", "uint32_t": "U32", "int64_t": "I64", "uint64_t": "U64", "float": "F32",
    "double": "F64", "half": "F16",
}


def runtime_header_text() -> str:
    return resources.files("opgen_runtime.include").joinpath(_RUNTIME_HEADER).read_text()


def emit(ops: Sequence[OpRecord], config: Config) -> dict[str, str]:
    """The banner, then the runtime's header verbatim (it is self-contained)."""
    if not ops:
        return {}
    return {POLICY_HEADER: f"// {banner_text()}\n{runtime_header_text()}"}
