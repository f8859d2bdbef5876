"""Stage 4, kernel frontend: parse Ascend C kernels with libclang and cross-check the spec.

parse.py turns one kernel file into a `KernelInfo` (skipping function bodies, against the
stub headers in include/); cache.py keeps those by content; check.py compares one with an
`OpSpec`; analyze.py does all of it for every op of a `generate` run.
"""

from opgen.kernel_frontend.analyze import analyze, kernel_path
from opgen.kernel_frontend.cache import ParseCache, cache_dir
from opgen.kernel_frontend.check import CheckedKernel, check_kernel
from opgen.kernel_frontend.model import (
    KernelEntry,
    KernelInfo,
    KernelParam,
    TilingField,
    TilingRef,
    TilingStruct,
    TilingStyle,
)
from opgen.kernel_frontend.parse import ParseResult, default_display, parse_kernel

__all__ = [
    "CheckedKernel",
    "KernelEntry",
    "KernelInfo",
    "KernelParam",
    "ParseCache",
    "ParseResult",
    "TilingField",
    "TilingRef",
    "TilingStruct",
    "TilingStyle",
    "analyze",
    "cache_dir",
    "check_kernel",
    "default_display",
    "kernel_path",
    "parse_kernel",
]
