"""opgen_runtime: the runtime half of opgen (NPU simulator, kernel build and launch)."""

from .build import BuildRequest, KernelLibrary, build_kernel, build_kernels, cache_dir, include_dir
from .dtypes import DataType, cpp_type, data_type, dtype_defines
from .errors import (
    AlignmentError,
    BuildError,
    GlobalMemoryOutOfBounds,
    KernelAssertError,
    KernelCrash,
    LaunchError,
    LocalMemoryOutOfBounds,
    QueueError,
    SimulatorError,
    TilingError,
    UnifiedBufferOverflow,
    VectorCountError,
)
from .launch import aligned_empty, gm_empty, launch
from .profile import BlockCounters, LaunchProfile
from .soc import DEFAULT_SOC, SOC_PROFILES, SocProfile, get_soc
from .tiling import TensorSpec, TilingField, TilingLayout, camel, default_tiling, plan_elementwise

__version__ = "0.1.0"

__all__ = [
    "DEFAULT_SOC",
    "SOC_PROFILES",
    "AlignmentError",
    "BlockCounters",
    "BuildError",
    "BuildRequest",
    "DataType",
    "GlobalMemoryOutOfBounds",
    "KernelAssertError",
    "KernelCrash",
    "KernelLibrary",
    "LaunchError",
    "LaunchProfile",
    "LocalMemoryOutOfBounds",
    "QueueError",
    "SimulatorError",
    "SocProfile",
    "TensorSpec",
    "TilingError",
    "TilingField",
    "TilingLayout",
    "UnifiedBufferOverflow",
    "VectorCountError",
    "aligned_empty",
    "build_kernel",
    "build_kernels",
    "cache_dir",
    "camel",
    "cpp_type",
    "data_type",
    "default_tiling",
    "dtype_defines",
    "get_soc",
    "gm_empty",
    "include_dir",
    "launch",
    "plan_elementwise",
]
