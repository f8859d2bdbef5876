"""opgen_runtime: the runtime half of opgen (NPU simulator, kernel build and launch, operator
registry). Names are imported from their modules on first use, so `import opgen_runtime` (and
the compiler's use of a helper or two) does not pay for numpy, ctypes and the launcher."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

_EXPORTS: dict[str, str] = {
    "AlignmentError": "errors",
    "BlockCounters": "profile",
    "BuildError": "errors",
    "BuildRequest": "build",
    "DEFAULT_SOC": "soc",
    "DataType": "dtypes",
    "GlobalMemoryOutOfBounds": "errors",
    "GradientNotRegisteredError": "registry",
    "KernelAssertError": "errors",
    "KernelCrash": "errors",
    "KernelLibrary": "build",
    "KernelNotFoundError": "registry",
    "LaunchError": "errors",
    "LaunchProfile": "profile",
    "LaunchTimeout": "errors",
    "LibraryError": "oplib",
    "LibraryPathError": "registry",
    "LocalMemoryOutOfBounds": "errors",
    "MetadefError": "metadef",
    "OpCallError": "registry",
    "OpNotRegisteredError": "registry",
    "ProfileSession": "profile",
    "QueueError": "errors",
    "RegistrationConflictError": "registry",
    "RegistrationOrderError": "registry",
    "RegistryError": "registry",
    "SOC_PROFILES": "soc",
    "SimulatorError": "errors",
    "SocProfile": "soc",
    "TensorSpec": "tiling",
    "TilingError": "errors",
    "TilingField": "tiling",
    "TilingLayout": "tiling",
    "UnifiedBufferOverflow": "errors",
    "VectorCountError": "errors",
    "aligned_empty": "launcher",
    "backward": "registry",
    "build_kernel": "build",
    "build_kernels": "build",
    "build_operator_library": "oplib",
    "cache_dir": "build",
    "call": "registry",
    "camel": "tiling",
    "cpp_type": "dtypes",
    "data_type": "dtypes",
    "default_tiling": "tiling",
    "dtype_defines": "dtypes",
    "get_soc": "soc",
    "gm_empty": "launcher",
    "include_dir": "build",
    "launch": "launcher",
    "load_operator_library": "registry",
    "plan_elementwise": "tiling",
    "profile_session": "profile",
    "register_operator": "registry",
    "register_operator_gradient": "registry",
    "register_operator_model": "registry",
}


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        try:
            return importlib.import_module(f"{__name__}.{name}")  # a submodule
        except ModuleNotFoundError:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


if TYPE_CHECKING:
    from .build import (
        BuildRequest,
        KernelLibrary,
        build_kernel,
        build_kernels,
        cache_dir,
        include_dir,
    )
    from .dtypes import DataType, cpp_type, data_type, dtype_defines
    from .errors import (
        AlignmentError,
        BuildError,
        GlobalMemoryOutOfBounds,
        KernelAssertError,
        KernelCrash,
        LaunchError,
        LaunchTimeout,
        LocalMemoryOutOfBounds,
        QueueError,
        SimulatorError,
        TilingError,
        UnifiedBufferOverflow,
        VectorCountError,
    )
    from .launcher import aligned_empty, gm_empty, launch
    from .metadef import MetadefError
    from .oplib import LibraryError, build_operator_library
    from .profile import BlockCounters, LaunchProfile, ProfileSession, profile_session
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
    from .tiling import (
        TensorSpec,
        TilingField,
        TilingLayout,
        camel,
        default_tiling,
        plan_elementwise,
    )

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
    "LaunchTimeout",
    "LibraryError",
    "LibraryPathError",
    "LocalMemoryOutOfBounds",
    "MetadefError",
    "OpCallError",
    "OpNotRegisteredError",
    "ProfileSession",
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
    "profile_session",
    "register_operator",
    "register_operator_gradient",
    "register_operator_model",
]
