"""GroupBarrier (opgen_sim/sync.h): an Arrive group of vector cores and a Wait group, counted in
the user's GM workspace as asc-devkit's dav_c220 implementation lays it out. The kernel is this
file's own; each test names the Ascend C API reference page (asc-devkit docs/api/context/
GroupBarrier.md and its pages: the constructor, Arrive, Wait, GetWorkspaceLen) it checks."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import opgen_runtime as rt

ARRIVE, WAIT, ROUNDS = 2, 3, 3
LINE = 512  # GM bytes per arrive/wait index

KERNEL = r"""
#include "kernel_operator.h"
using namespace AscendC;

struct BarTiling {
    int32_t mode;
    int32_t arrive;
    int32_t wait;
    int32_t rounds;
};
REGISTER_TILING_DEFAULT(BarTiling);

// ws: the barrier's zeroed workspace; data: int32 GM the arrive group adds to (atomically);
// out: what each waiting core read after each round (rounds x wait int32), then the workspace
// length; ub: the UB's last 64 int32 after the constructor (mode 4)
extern "C" __global__ __aicore__ void bar_kernel(GM_ADDR ws, GM_ADDR data, GM_ADDR out,
                                                 GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    const int32_t b = GetBlockIdx();
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 32);
    GlobalTensor<int32_t> dataGm, outGm;
    dataGm.SetGlobalBuffer((__gm__ int32_t*)data, 8);
    outGm.SetGlobalBuffer((__gm__ int32_t*)out);
    LocalTensor<int32_t> v = buf.Get<int32_t>();
    if (t.mode == 4) {  // a buffer over the UB's end, then the constructor
        TBuf<TPosition::VECCALC> tail;  // the rest of the 910B's 192 KiB UB
        pipe.InitBuffer(tail, 196608 - 32);
        GroupBarrier<PipeMode::MTE3_MODE> bar(ws, t.arrive, t.wait);
        LocalTensor<int32_t> end = tail.Get<int32_t>()[(196608 - 32 - 1600) / 4];
        for (int i = 0; i < 64; ++i) outGm.SetValue(i, end.GetValue(i));
        return;
    }
    GroupBarrier<PipeMode::MTE3_MODE> bar(ws, t.arrive, t.wait);
    if (b == 0) outGm.SetValue(t.rounds * t.wait, static_cast<int32_t>(bar.GetWorkspaceLen()));
    for (int32_t r = 0; r < t.rounds; ++r) {
        if (b < t.arrive) {
            if (t.mode == 2) return;  // mode 2: the arrive group never arrives
            Duplicate(v, (r + 1) * 10 + b, 8);
            SetAtomicAdd<int32_t>();
            DataCopy(dataGm, v, 8);
            SetAtomicNone();
            bar.Arrive(t.mode == 3 ? 7 : b);  // mode 3: an index past the lines
        } else if (b < t.arrive + t.wait) {
            bar.Wait(b - t.arrive);
            outGm.SetValue(r * t.wait + (b - t.arrive), dataGm.GetValue(0));
        }
    }
}
"""


@pytest.fixture(scope="module")
def lib(tmp_path_factory: pytest.TempPathFactory) -> rt.KernelLibrary:
    src = Path(tmp_path_factory.mktemp("group_barrier")) / "bar_kernel.cpp"
    src.write_text(KERNEL)
    return rt.build_kernel(src, entry="bar_kernel")


def _run(lib: rt.KernelLibrary, mode: int, block_dim: int, threads: int = 2,
         arrive: int = ARRIVE, wait: int = WAIT,
         rounds: int = ROUNDS, misalign: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    words = max(arrive, wait) * LINE // 4
    whole = rt.gm_empty(words + 2 * LINE // 4, np.int32)  # a 512-byte aligned part (+ misalign)
    start = (-whole.ctypes.data % LINE + misalign) // 4
    ws = whole[start:start + words]
    ws[:] = 0
    data = rt.gm_empty(8, np.int32)
    data[:] = 0
    out = rt.gm_empty(max(rounds * wait + 1, 64), np.int32)
    out[:] = -1
    rt.launch(lib, "bar_kernel", {"ws": ws, "data": data, "out": out}, block_dim=block_dim,
              tiling=np.array([mode, arrive, wait, rounds], np.int32).tobytes(),
              max_threads=threads)
    return ws, data, out


@pytest.mark.parametrize("threads", [1, 2])
def test_each_wait_sees_every_arrival_of_its_round(lib: rt.KernelLibrary, threads: int) -> None:
    """Arrive.md / Wait.md: a waiting core goes on only once every core of the Arrive group has
    arrived in this round, so after round r each waiting core reads at least the arrive group's
    atomic adds of rounds 1..r (an arriving core adds its next round's data before its next
    Arrive, which waits for the Wait calls, not for the reads after them; so a read may also see
    later rounds). One round: exactly that round's adds. Blocks beyond the two groups take no
    part."""
    per_round = [sum((r + 1) * 10 + b for b in range(ARRIVE)) for r in range(ROUNDS)]
    _, data, out = _run(lib, 1, ARRIVE + WAIT + 2, threads)
    got = out[:ROUNDS * WAIT].reshape(ROUNDS, WAIT)
    assert (got >= np.cumsum(per_round)[:, None]).all(), got
    assert data[0] == sum(per_round)
    _, _, out = _run(lib, 1, ARRIVE + WAIT + 2, threads, rounds=1)
    np.testing.assert_array_equal(out[:WAIT], np.full(WAIT, per_round[0]))


def test_workspace_counts_as_the_implementation_lays_them_out(lib: rt.KernelLibrary) -> None:
    """GroupBarrier constructor (groupWorkspace: the user's zeroed GM) and GetWorkspaceLen: line
    i of max(arrive, wait) lines is 512 bytes at 512 * i; its first uint32 counts the Arrive
    calls and the one 64 bytes on the Wait calls."""
    ws, _, out = _run(lib, 1, ARRIVE + WAIT)
    lines = ws.reshape(max(ARRIVE, WAIT), LINE // 4)
    np.testing.assert_array_equal(lines[:, 0], np.full(WAIT, ARRIVE * ROUNDS))
    np.testing.assert_array_equal(lines[:, 16], np.full(WAIT, WAIT * ROUNDS))
    assert out[ROUNDS * WAIT] == max(ARRIVE, WAIT) * LINE


def test_a_wait_no_arrive_ends_is_a_deadlock(lib: rt.KernelLibrary) -> None:
    """Wait.md: Wait blocks until the Arrive group arrives; when it never does the hardware
    hangs, and the simulator reports the deadlock with the counts it waited for."""
    with pytest.raises(rt.SimulatorError) as err:
        _run(lib, 2, ARRIVE + WAIT)
    text = str(err.value)
    assert "GroupBarrier::Wait" in text and "deadlock" in text
    assert f"waiting for {ARRIVE}" in text


def test_an_index_past_the_lines_is_an_error(lib: rt.KernelLibrary) -> None:
    """Arrive.md (arriveIndex: the core's index in the Arrive group): an index past the
    barrier's lines would read past its workspace."""
    with pytest.raises(rt.SimulatorError, match=r"GroupBarrier::Arrive.*arriveIndex 7 is past"):
        _run(lib, 3, ARRIVE + WAIT)


def test_a_group_larger_than_the_launch_is_an_error(lib: rt.KernelLibrary) -> None:
    """GroupBarrier constructor: arriveSizeIn and waitSizeIn are counts of the launch's cores
    (asc-devkit asserts them against GetBlockNum())."""
    with pytest.raises(rt.SimulatorError, match=r"waitSizeIn is 9; it must be in \[1, 4\]"):
        _run(lib, 1, 4, wait=9)


def test_the_constructor_takes_the_last_1600_bytes_of_ub(lib: rt.KernelLibrary) -> None:
    """GroupBarrier constructor, constraints: the last 1600 bytes of the UB are taken (50
    blocks of 32 bytes, each starting with the 1 the counts are copied from); a kernel buffer
    there is overwritten, as on the hardware."""
    _, _, out = _run(lib, 4, 1, arrive=1, wait=1, rounds=1)
    want = np.zeros(64, np.int32)
    want[::8] = 1
    np.testing.assert_array_equal(out[:64], want)


def test_strict_mode_rejects_buffers_in_the_reserved_ub(lib: rt.KernelLibrary,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """GroupBarrier constructor, constraints (the last 1600 bytes of the UB are taken): under
    OPGEN_SIM_STRICT=1 a kernel whose buffers reach them is an error instead."""
    monkeypatch.setenv("OPGEN_SIM_STRICT", "1")
    with pytest.raises(rt.SimulatorError, match=r"GroupBarrier.*overwrites its last 1600"):
        _run(lib, 4, 1, arrive=1, wait=1, rounds=1)
    _run(lib, 1, ARRIVE + WAIT)  # buffers below the reserved bytes: no error


def test_strict_mode_checks_the_workspace_alignment(lib: rt.KernelLibrary,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """GroupBarrier constructor (groupWorkspace must be 512-byte aligned): aclrtMalloc promises
    64 and the hardware does not check, so a 64-byte aligned workspace runs; strict mode
    rejects it."""
    _run(lib, 1, ARRIVE + WAIT, misalign=64)
    monkeypatch.setenv("OPGEN_SIM_STRICT", "1")
    with pytest.raises(rt.SimulatorError, match=r"512-byte aligned .*it is 64 bytes past"):
        _run(lib, 1, ARRIVE + WAIT, misalign=64)
