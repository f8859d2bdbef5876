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
from .metadef import MetadefError
from .oplib import LibraryError, build_operator_library
from .profile import BlockCounters, LaunchProfile
from .registry import (
    GradientNotRegisteredError,
    KernelNotFoundError,
    LibraryPathError,
    OpCallError,
    OpNotRegisteredError,
    RegistrationConflictError,
    RegistrationOrderError,
    RegistryError,
    backward,
    call,
    load_operator_library,
    register_operator,
    register_operator_gradient,
    register_operator_model,
)
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
    "GradientNotRegisteredError",
    "KernelAssertError",
    "KernelCrash",
    "KernelLibrary",
    "KernelNotFoundError",
    "LaunchError",
    "LaunchProfile",
    "LibraryError",
    "LibraryPathError",
    "LocalMemoryOutOfBounds",
    "MetadefError",
    "OpCallError",
    "OpNotRegisteredError",
    "QueueError",
    "RegistrationConflictError",
    "RegistrationOrderError",
    "RegistryError",
    "SimulatorError",
    "SocProfile",
    "TensorSpec",
    "TilingError",
    "TilingField",
    "TilingLayout",
    "UnifiedBufferOverflow",
    "VectorCountError",
    "aligned_empty",
    "backward",
    "build_kernel",
    "build_kernels",
    "build_operator_library",
    "cache_dir",
    "call",
    "camel",
    "cpp_type",
    "data_type",
    "default_tiling",
    "dtype_defines",
    "get_soc",
    "gm_empty",
    "include_dir",
    "launch",
    "load_operator_library",
    "plan_elementwise",
    "register_operator",
    "register_operator_gradient",
    "register_operator_model",
]
