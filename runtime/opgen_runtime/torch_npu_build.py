"""The NPU half of a generated PyTorch package's kernel library: when torch_npu imports, the
library is compiled with OPGEN_TORCH_NPU, which adds every op's PrivateUse1 kernel
(`torch/cc/<op>_npu.h`: the op's aclnn API through op-plugin's EXEC_NPU_CMD_EXT), against the
headers the torch_npu wheel ships (torch_npu's, op-plugin's and its copy of CANN's acl), and
linked with libtorch_npu. Without torch_npu (or with OPGEN_TORCH_NPU=0) nothing changes: the
library has the CPU (simulator) kernels only. docs/npu.md, "PyTorch on the NPU".
"""

from __future__ import annotations

import functools
import importlib.util
import logging
import os
import sysconfig
from pathlib import Path

ENV = "OPGEN_TORCH_NPU"  # "0": no NPU kernels even when torch_npu imports
DEFINE = "-DOPGEN_TORCH_NPU"

_log = logging.getLogger("opgen_runtime")


def op_plugin_version(torch_version: str) -> int:
    """op-plugin's CURRENT_VERSION for a torch release (op_plugin/utils/Version.h: V2R1 = 0 for
    torch 2.1, ..., V2R13 = 12 for 2.13). op-plugin's own build defines it; an extension that
    includes npu_cpp_extension.h must too, or the headers take the torch 2.1 branch."""
    major, minor = (int(p) for p in torch_version.split("+")[0].split(".")[:2])
    if major != 2 or minor < 1:
        raise ValueError(f"torch {torch_version}: op-plugin supports torch 2.1 and later")
    return minor - 1


def compile_flags(torch_npu_include: Path, torch_version: str) -> list[str]:
    """The include dirs torch_npu.utils.cpp_extension.NpuExtension adds, plus op-plugin's, as -I
    so that they come before opgen's runtime/include (whose acl/ holds CPU stand-ins: torch_npu's
    headers must find the wheel's copy of CANN's acl headers), and Python's headers
    (torch_npu's include torch/csrc/python_headers.h)."""
    inc = torch_npu_include
    return [DEFINE, f"-DCURRENT_VERSION={op_plugin_version(torch_version)}",
            f"-I{inc}", f"-I{inc / 'third_party' / 'op-plugin'}",
            f"-I{inc / 'third_party' / 'hccl' / 'inc'}",
            f"-isystem{sysconfig.get_paths()['include']}"]


@functools.cache
def installed() -> tuple[tuple[str, ...], tuple[str, ...]] | None:
    """(compile flags, link flags) of the NPU kernels when torch_npu imports, else None. Importing
    torch_npu here also loads libtorch_npu before the library that needs its symbols."""
    if os.environ.get(ENV, "") == "0":
        return None
    if importlib.util.find_spec("torch_npu") is None:
        return None
    try:
        import torch
        import torch_npu  # noqa: F401
    except Exception as exc:  # a broken CANN install: keep the CPU kernels
        _log.warning("torch_npu is installed but does not import (%s): the ops get no NPU "
                     "kernels", exc)
        return None
    base = Path(importlib.util.find_spec("torch_npu").origin or "").resolve().parent  # type: ignore[union-attr]
    lib = base / "lib"
    cflags = compile_flags(base / "include", str(torch.__version__))
    lflags = [f"-L{lib}", f"-Wl,-rpath,{lib}", "-ltorch_npu"]
    return tuple(cflags), tuple(lflags)


def extra_compile_flags() -> list[str]:
    flags = installed()
    return list(flags[0]) if flags else []


def extra_link_flags() -> list[str]:
    flags = installed()
    return list(flags[1]) if flags else []
