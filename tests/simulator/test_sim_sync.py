"""Cross-core synchronisation (opgen_sim/sync.h, crosscore.h) and the memory model of deferred
copies (opgen_sim/deferred.h) around it. Every kernel is this file's own; each test names the
Ascend C API reference page (asc-devkit docs/zh/api/SIMD-API/基础API/...) whose behaviour it
checks."""

from __future__ import annotations

import ctypes
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

import opgen_runtime as rt

B = 8  # floats per block slot: 32 bytes

SYNC_CPP = r"""
#include "kernel_operator.h"
using namespace AscendC;

struct SyncTilingData {
    int32_t mode;
};
REGISTER_TILING_DEFAULT(SyncTilingData);

// x: input (blockNum * 8 floats), sync: int32 GM workspace (zeroed), z: output (2 * blockNum * 8)
extern "C" __global__ __aicore__ void sync_kernel(GM_ADDR x, GM_ADDR sync, GM_ADDR z,
                                                  GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    const int32_t mode = t.mode;
    const int32_t n = GetBlockNum();
    const int32_t b = GetBlockIdx();
    TPipe pipe;
    TBuf<TPosition::VECCALC> bufA, bufB, bufW;
    pipe.InitBuffer(bufA, 8 * sizeof(float));
    pipe.InitBuffer(bufB, 8 * sizeof(float));
    pipe.InitBuffer(bufW, 64 * 32);
    GlobalTensor<float> xGm, zGm;
    GlobalTensor<int32_t> syncGm;
    xGm.SetGlobalBuffer((__gm__ float*)x);
    zGm.SetGlobalBuffer((__gm__ float*)z);
    syncGm.SetGlobalBuffer((__gm__ int32_t*)sync);
    LocalTensor<float> a = bufA.Get<float>(), c = bufB.Get<float>();
    LocalTensor<int32_t> w = bufW.Get<int32_t>();
    if (mode == 1 || mode == 2) {  // two rounds: publish, barrier, read the neighbour's slot
        for (int32_t round = 0; round < 2; ++round) {
            Duplicate(a, float(b + 1 + 100 * round), 8);
            DataCopy(zGm[b * 8], a, 8);
            if (mode == 1) SyncAll(); else SyncAll(syncGm, w);
            DataCopy(c, zGm[((b + 1) % n) * 8], 8);
            DataCopy(zGm[(n + b) * 8], c, 8);
            if (mode == 1) SyncAll(); else SyncAll(syncGm, w);
        }
    } else if (mode == 3) {  // block 0 copies x, block 1 overwrites x in between: old x wins
        if (b == 0) DataCopy(a, xGm, 8);
        SyncAll();
        if (b == 1) {
            Duplicate(c, 7.0f, 8);
            DataCopy(xGm, c, 8);
        }
        SyncAll();
        if (b == 0) DataCopy(zGm, a, 8);
    } else if (mode == 4) {  // block 0 waits for block 1's result (IBSet/IBWait)
        if (b == 0) {
            IBWait(syncGm, w, 1, 0);
            DataCopy(a, zGm, 8);
            DataCopy(zGm[8], a, 8);
        } else if (b == 1) {
            DataCopy(a, xGm, 8);
            Muls(c, a, 2.0f, 8);
            DataCopy(zGm, c, 8);
            IBSet(syncGm, w, 1, 0);
        }
    } else if (mode == 5) {  // atomic sum of every block's x, then every block reads the sum
        DataCopy(a, xGm, 8);
        SetAtomicAdd<float>();
        DataCopy(zGm, a, 8);
        SetAtomicNone();
        CrossCoreSetFlag<0, PIPE_MTE3>(0);
        CrossCoreWaitFlag(0);
        DataCopy(c, zGm, 8);
        DataCopy(zGm[(b + 1) * 8], c, 8);
    } else if (mode == 6) {  // block 0 waits for an IBSet that block 1 never makes
        if (b == 0) IBWait(syncGm, w, 1, 0);
    } else if (mode == 7) {  // block 1 returns before the barrier
        if (b == 1) return;
        SyncAll();
    } else if (mode == 9) {  // a reference into UB taken before a copy into it
        const float& first = a(0);
        const float* second = &a(1);
        DataCopy(a, xGm, 8);
        zGm.SetValue(0, first);
        zGm.SetValue(1, *second);
    } else if (mode == 10) {  // CrossCoreSetFlag sixteen times without a wait
        for (int i = 0; i < 16; ++i) CrossCoreSetFlag<0, PIPE_MTE3>(3);
    } else if (mode == 11) {  // the small helpers
        static_assert(IsSameType<float, float>::value && !IsSameType<float, half>::value, "");
        static_assert(Std::is_same<Std::tuple_element<1, Std::tuple<int, float>>::type,
                                   float>::value, "");
        Std::tuple<int32_t, float> tp = Std::make_tuple(3, 2.5f);
        DataCacheCleanAndInvalid<float, CacheLine::SINGLE_CACHE_LINE, DcciDst::CACHELINE_OUT>(xGm);
        zGm.SetValue(0, float(AlignUp(33, 32)));
        zGm.SetValue(1, float(Std::max(Std::get<0>(tp), Std::get<1>(tp))));
        zGm.SetValue(2, Std::abs(-4.5f));
        zGm.SetValue(3, float(Std::min(7, 5)));
    }
}
"""


RAW_CPP = r"""
#include "kernel_operator.h"
using namespace AscendC;

// A raw GM store after a copy of the same GM: the copy must keep the old value.
extern "C" __global__ __aicore__ void raw_store(GM_ADDR x, GM_ADDR z, GM_ADDR workspace,
                                                GM_ADDR tiling)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> bufA, bufB;
    pipe.InitBuffer(bufA, 8 * sizeof(float));
    pipe.InitBuffer(bufB, 8 * sizeof(float));
    GlobalTensor<float> xGm, zGm;
    xGm.SetGlobalBuffer((__gm__ float*)x);
    zGm.SetGlobalBuffer((__gm__ float*)z);
    LocalTensor<float> a = bufA.Get<float>(), c = bufB.Get<float>();
    __gm__ float* raw = (__gm__ float*)x;
    DataCopy(a, xGm, 8);
    raw[0] = 100.0f;
    Adds(c, a, 0.0f, 8);
    DataCopy(zGm, c, 8);
}
"""


def _defers(lib: rt.KernelLibrary) -> bool:
    return bool(ctypes.CDLL(str(lib.path)).opgen_sim_defers_copies())


@pytest.fixture(scope="module")
def lib(tmp_path_factory: pytest.TempPathFactory) -> rt.KernelLibrary:
    src = Path(tmp_path_factory.mktemp("sync")) / "sync_kernel.cpp"
    src.write_text(SYNC_CPP)
    return rt.build_kernel(src, entry="sync_kernel")


def _run(lib: rt.KernelLibrary, mode: int, block_dim: int, threads: int,
         x: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    if x is None:
        x = rt.gm_empty(block_dim * B, np.float32)
        x[:] = np.arange(block_dim * B, dtype=np.float32) + 1
    sync = rt.gm_empty(max(block_dim, 2) * B * 2, np.int32)
    sync[:] = 0
    z = rt.gm_empty(2 * (block_dim + 1) * B, np.float32)
    z[:] = 0
    rt.launch(lib, "sync_kernel", {"x": x, "sync": sync, "z": z}, block_dim=block_dim,
              tiling=np.array([mode], np.int32).tobytes(), max_threads=threads)
    return x, sync, z


@pytest.mark.parametrize("threads", [1, 2])
def test_hardware_syncall_48_blocks_on_few_threads(lib: rt.KernelLibrary, threads: int) -> None:
    """SyncAll.md (hardware prototype SyncAll<true>()): no block passes until all have
    arrived; 48 blocks on 1 or 2 host threads."""
    n = 48
    _, _, z = _run(lib, 1, n, threads)
    got = z[n * B:2 * n * B].reshape(n, B)
    want = (np.arange(n) + 1) % n + 1 + 100  # the second round's values
    np.testing.assert_array_equal(got, np.repeat(want[:, None], B, axis=1).astype(np.float32))


def _threads() -> int:
    return len(list(Path("/proc/self/task").iterdir()))


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="counts threads in /proc")
def test_barrier_helper_threads_serve_later_launches(lib: rt.KernelLibrary) -> None:
    """A barrier needs all 48 blocks live, so a SyncAll launch on two threads runs 46 blocks on
    helper threads. They are kept for the next launches (crosscore.h, HelperPool): launching
    again adds no thread, and of a larger launch's helpers at most 64 stay."""
    n = 48
    _run(lib, 1, n, 2)
    after_first = _threads()
    assert after_first >= n - 2  # the helpers stay (joined, the process had a few threads)
    for _ in range(3):
        _, _, z = _run(lib, 1, n, 2)
        assert _threads() == after_first
    want = (np.arange(n) + 1) % n + 1 + 100
    np.testing.assert_array_equal(z[n * B:2 * n * B].reshape(n, B)[:, 0], want)
    _run(lib, 1, 120, 2)  # 118 helpers at once; those beyond the 64 kept idle end
    deadline = time.monotonic() + 10
    while _threads() > after_first + 64 - 46 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert _threads() <= after_first + 64 - 46


def test_software_syncall_on_gm_workspace(lib: rt.KernelLibrary) -> None:
    """SyncAll.md (software prototype SyncAll(gmWorkspace, ubWorkspace, usedCores)): the
    zeroed GM workspace counts each block's arrivals (32 bytes per block)."""
    n = 40
    _, sync, z = _run(lib, 2, n, 2)
    got = z[n * B:2 * n * B].reshape(n, B)[:, 0]
    np.testing.assert_array_equal(got, ((np.arange(n) + 1) % n + 1 + 100).astype(np.float32))
    np.testing.assert_array_equal(sync[: n * B].reshape(n, B)[:, 0], np.full(n, 4))


def test_copy_before_syncall_reads_gm_as_it_was(lib: rt.KernelLibrary) -> None:
    """SyncAll.md: a copy issued before the barrier holds the data of that moment, whatever
    another core writes after the barrier (deferred copies are applied at the barrier)."""
    x = rt.gm_empty(2 * B, np.float32)
    x[:] = np.arange(2 * B) + 1
    old = x[:B].copy()
    _, _, z = _run(lib, 3, 2, 2, x)
    np.testing.assert_array_equal(x[:B], np.full(B, 7, np.float32))
    np.testing.assert_array_equal(z[:B], old)


@pytest.mark.parametrize("threads", [1, 2])
def test_ibset_ibwait_order(lib: rt.KernelLibrary, threads: int) -> None:
    """IBSet.md / IBWait.md: the waiting block (0) goes on only after block 1's IBSet, and
    IBWait puts the flag back to 0."""
    x, sync, z = _run(lib, 4, 2, threads)
    np.testing.assert_array_equal(z[B:2 * B], x[:B] * 2)
    assert not sync.any()


@pytest.mark.parametrize("n", [12, 72])  # 72: past the launch's in-place per-block state
def test_crosscore_flags_mode0(lib: rt.KernelLibrary, n: int) -> None:
    """CrossCoreSetFlag(ISASI).md / CrossCoreWaitFlag(ISASI).md, mode 0 (all AIV cores):
    after the wait every block sees all blocks' atomic adds (two threads: the waiting blocks
    start helper threads, which the launch joins)."""
    x = rt.gm_empty(B, np.float32)
    x[:] = np.arange(B) + 1
    sync = rt.gm_empty(2 * B, np.int32)
    sync[:] = 0
    z = rt.gm_empty((n + 1) * B, np.float32)
    z[:] = 0
    rt.launch(lib, "sync_kernel", {"x": x, "sync": sync, "z": z}, block_dim=n,
              tiling=np.array([5], np.int32).tobytes(), max_threads=2)
    for b in range(n):
        np.testing.assert_array_equal(z[(b + 1) * B:(b + 2) * B], x * n)


def test_crosscore_counter_overflow(lib: rt.KernelLibrary) -> None:
    """CrossCoreSetFlag(ISASI).md, flagId constraints: a flag's counter counts 0-15; more
    sets than waits beyond that stop the kernel."""
    with pytest.raises(rt.SimulatorError, match=r"CrossCoreSetFlag.*counter of flag 3"):
        _run(lib, 10, 1, 1)


def test_wait_for_finished_block_is_a_deadlock(lib: rt.KernelLibrary) -> None:
    """IBWait.md: IBSet and IBWait must pair, else the kernel hangs at IBWait; the simulator
    reports the deadlock instead, and the process goes on launching."""
    with pytest.raises(rt.SimulatorError) as err:
        _run(lib, 6, 2, 2)
    text = str(err.value)
    assert "IBWait" in text and "deadlock" in text and "block 0" in text
    assert "block 1 (finished)" in text
    _, _, z = _run(lib, 4, 2, 2)  # the next launch works
    assert z[B:2 * B].any()


def test_syncall_with_a_returned_block_is_a_deadlock(lib: rt.KernelLibrary) -> None:
    """SyncAll.md: every block of the launch must reach SyncAll."""
    with pytest.raises(rt.SimulatorError, match=r"SyncAll.*deadlock.*1 \(finished\)"):
        _run(lib, 7, 4, 1)


def test_raw_gm_store_after_datacopy(tmp_path: Path) -> None:
    """DataCopy.md: the copy reads GM when issued; a later store through a raw __gm__ pointer
    made from the kernel's GM_ADDR argument does not reach the copied data (the program's source
    stores through a pointer, so its copies are not deferred)."""
    src = tmp_path / "raw_store.cpp"
    src.write_text(RAW_CPP)
    raw = rt.build_kernel(src, entry="raw_store")
    assert not _defers(raw)
    x = rt.gm_empty(B, np.float32)
    x[:] = np.arange(B) + 1
    want = x.copy()
    z = rt.gm_empty(B, np.float32)
    rt.launch(raw, "raw_store", {"x": x, "z": z}, block_dim=1, tiling=b"")
    np.testing.assert_array_equal(z, want)
    assert x[0] == 100


def test_kernels_without_raw_stores_defer(lib: rt.KernelLibrary) -> None:
    """The scan lets the usual kernels defer (this file's sync kernel, the element_add spec)."""
    assert _defers(lib)
    spec = Path(__file__).resolve().parents[2] / "specs" / "element_add.cpp"
    add = rt.build_kernel(spec, entry="element_add", defines={"DTYPE_X": "float"})
    assert _defers(add)


_VERDICT_IN_A_FRESH_PROCESS = """
import ctypes, sys
print(ctypes.CDLL(sys.argv[1]).opgen_sim_defers_copies())
"""


def _fresh_defers(path: Path) -> bool:
    """The library's verdict, asked first in a new process (the verdict is computed once)."""
    out = subprocess.run([sys.executable, "-c", _VERDICT_IN_A_FRESH_PROCESS, str(path)],
                         capture_output=True, text=True, check=True, timeout=120)
    return out.stdout.strip() == "1"


@pytest.mark.parametrize("text,defers", [(SYNC_CPP, True), (RAW_CPP, False)])
def test_the_scan_verdict_is_compiled_in(tmp_path: Path, text: str, defers: bool) -> None:
    """The build scans the source while it is there: a cached kernel whose source was deleted,
    or replaced by one that scans the other way, keeps the verdict of the code it holds."""
    src = tmp_path / "kernel.cpp"
    src.write_text(text)
    lib = rt.build_kernel(src, entry="sync_kernel" if defers else "raw_store")
    src.unlink()
    assert _fresh_defers(lib.path) is defers
    src.write_text(RAW_CPP if defers else SYNC_CPP)
    assert _fresh_defers(lib.path) is defers


def test_a_unit_compiled_without_a_verdict_is_scanned_at_run_time(tmp_path: Path) -> None:
    """A kernel built outside opgen's build (no OPGEN_SIM_SOURCE_STORES_RAW) registers its
    source and is scanned at its first launch; a source gone by then counts as storing."""
    for text, want in ((SYNC_CPP, True), (RAW_CPP, False)):
        src = tmp_path / "own_build.cpp"
        src.write_text(text)
        out = tmp_path / f"own_build_{int(want)}.so"
        flags = [f for f in rt.build.BASE_FLAGS if f != "-O3"]
        subprocess.run([rt.build._compiler(), *flags, "-O0", f"-I{rt.build.include_dir()}",
                        "-o", str(out), str(src)], check=True, capture_output=True, timeout=600)
        assert _fresh_defers(out) is want
        src.unlink()
        assert _fresh_defers(out) is False


def test_ub_reference_taken_before_a_copy(lib: rt.KernelLibrary) -> None:
    """LocalTensor.md (operator() returns a reference): a reference and a pointer into UB
    taken before a DataCopy into it read the copied data."""
    x, _, z = _run(lib, 9, 1, 1)
    np.testing.assert_array_equal(z[:2], x[:2])


def test_kernel_helpers(lib: rt.KernelLibrary) -> None:
    """DataCacheCleanAndInvalid.md (typed forms), Utils-API CPP标准库 (Std::tuple, make_tuple,
    get, is_same, tuple_element, max, min, abs); AlignUp and IsSameType as asc-devkit has them."""
    _, _, z = _run(lib, 11, 1, 1)
    np.testing.assert_array_equal(z[:4], np.array([64, 3, 4.5, 5], np.float32))
