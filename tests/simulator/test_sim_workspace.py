"""A launch's workspace (the kernel's `workspace` argument, sized by the op's TilingFunc: CANN's
16 MiB system part plus the user's): every launch gets it zeroed, whatever an earlier launch
wrote there, as the software barriers (SyncAll(gmWorkspace, ...), GroupBarrier) and the user
part's counters expect; the runtime gives fresh zero pages rather than clearing the 16 MiB."""

from __future__ import annotations

import struct
from pathlib import Path

import numpy as np
import pytest

import opgen_runtime as rt

WORKSPACE = (16 << 20) + 4096
# int32 offsets the kernel reads or writes: the start, inside, and the last int32
SPOTS = [0, 8, 1 << 20, (4 << 20) + 3, WORKSPACE // 4 - 1]

KERNEL = r"""
#include "kernel_operator.h"
using namespace AscendC;

extern "C" __global__ __aicore__ void ws(GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
    const int32_t* t = reinterpret_cast<const int32_t*>(tiling);
    const int32_t mode = t[0];
    __gm__ int32_t* w = (__gm__ int32_t*)workspace;
    __gm__ int32_t* out = (__gm__ int32_t*)z;
    for (int32_t k = 0; k < NSPOTS; ++k) {
        if (mode == 1) {
            w[t[1 + k]] = 1000 + k;  // dirty the workspace
        } else {
            out[k] = w[t[1 + k]];
        }
    }
}
""".replace("NSPOTS", str(len(SPOTS)))


@pytest.fixture(scope="module")
def lib(tmp_path_factory: pytest.TempPathFactory) -> rt.KernelLibrary:
    src = Path(tmp_path_factory.mktemp("ws")) / "ws.cpp"
    src.write_text(KERNEL)
    return rt.build_kernel(src, entry="ws")


def _launch(lib: rt.KernelLibrary, mode: int) -> np.ndarray:
    z = rt.gm_empty(8, np.int32)
    z[:] = -1
    rt.launch(lib, "ws", {"z": z}, block_dim=1, workspace_size=WORKSPACE,
              tiling=struct.pack(f"<{1 + len(SPOTS)}i", mode, *SPOTS))
    return np.asarray(z)[: len(SPOTS)]


def test_every_launch_gets_a_zeroed_workspace(lib: rt.KernelLibrary) -> None:
    for _ in range(3):
        np.testing.assert_array_equal(_launch(lib, 0), np.zeros(len(SPOTS), np.int32))
        _launch(lib, 1)  # writes 1000.. at each spot; the next launch's workspace is new
