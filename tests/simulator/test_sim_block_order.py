"""InitDetermineComputeWorkspace / WaitPreBlock / NotifyNextBlock (opgen_sim/sync.h): blocks take
turns in blockIdx order, on the workspaces as asc-devkit's dav_c220 implementation keeps them.
The kernel is this file's own; each test names the Ascend C API reference page it checks."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import opgen_runtime as rt

KERNEL = r"""
#include "kernel_operator.h"
using namespace AscendC;

struct OrderTiling {
    int32_t mode;
    int32_t rounds;
    int32_t ubInts;
};
REGISTER_TILING_DEFAULT(OrderTiling);

// ws: the GM workspace (a 32-byte slot per block); log: log[0] is the next free entry, then the
// blocks' ids in the order they took their turns (not atomic: only the turns order them)
extern "C" __global__ __aicore__ void order_kernel(GM_ADDR ws, GM_ADDR log, GM_ADDR workspace,
                                                   GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    const int32_t b = GetBlockIdx();
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, t.ubInts * sizeof(int32_t));
    LocalTensor<int32_t> ub = buf.Get<int32_t>();
    GlobalTensor<int32_t> wsGm, logGm;
    wsGm.SetGlobalBuffer((__gm__ int32_t*)ws);
    logGm.SetGlobalBuffer((__gm__ int32_t*)log);
    InitDetermineComputeWorkspace(wsGm, ub);
    for (int32_t r = 0; r < t.rounds; ++r) {
        WaitPreBlock(wsGm, ub);
        const int32_t next = logGm.GetValue(0);
        logGm.SetValue(1 + next, b);
        logGm.SetValue(0, next + 1);
        if (t.mode == 2 && b == 1) return;  // block 1 never tells block 2
        NotifyNextBlock(wsGm, ub);
    }
}
"""


@pytest.fixture(scope="module")
def lib(tmp_path_factory: pytest.TempPathFactory) -> rt.KernelLibrary:
    src = Path(tmp_path_factory.mktemp("block_order")) / "order_kernel.cpp"
    src.write_text(KERNEL)
    return rt.build_kernel(src, entry="order_kernel")


def _run(lib: rt.KernelLibrary, mode: int, n: int, rounds: int, threads: int = 2,
         ub_ints: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    ws = rt.gm_empty(n * 8, np.int32)
    ws[:] = 7  # block 0's Init zeroes it
    log = rt.gm_empty(1 + n * rounds, np.int32)
    log[:] = -1
    log[0] = 0
    ub = ub_ints if ub_ints is not None else (n * 8 + 8)
    rt.launch(lib, "order_kernel", {"ws": ws, "log": log}, block_dim=n,
              tiling=np.array([mode, rounds, ub], np.int32).tobytes(), max_threads=threads)
    return ws, log


@pytest.mark.parametrize(("n", "threads"), [(4, 1), (6, 2), (20, 2)])
def test_blocks_take_turns_in_order(lib: rt.KernelLibrary, n: int, threads: int) -> None:
    """WaitPreBlock.md / NotifyNextBlock.md: a block goes on once the blocks before it have
    notified in this round, so the turns run 0, 1, ..., n-1 in every round (the log is written
    without atomics), and the last block's notify leaves the slots zeroed for the next round."""
    rounds = 3
    ws, log = _run(lib, 1, n, rounds, threads)
    assert log[0] == n * rounds
    np.testing.assert_array_equal(log[1:], np.tile(np.arange(n), rounds))
    assert not ws.any()


def test_a_block_that_does_not_notify_is_a_deadlock(lib: rt.KernelLibrary) -> None:
    """NotifyNextBlock.md: every block must notify in turn; when one does not, the next waits
    for ever on hardware, and the simulator reports the deadlock with the slots it saw."""
    with pytest.raises(rt.SimulatorError) as err:
        _run(lib, 2, 4, 1)
    text = str(err.value)
    assert "WaitPreBlock" in text and "deadlock" in text and "blocks 0-1" in text


def test_a_small_ub_workspace_is_an_error(lib: rt.KernelLibrary) -> None:
    """InitDetermineComputeWorkspace.md (ubWorkspace: a 32-byte slot per core, then the round):
    a buffer too small for them is an error naming the size."""
    with pytest.raises(rt.SimulatorError, match=r"InitDetermineComputeWorkspace.*needs 33"):
        _run(lib, 1, 4, 1, ub_ints=32)
