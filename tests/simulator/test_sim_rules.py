"""Each hardware rule is reported as a SimulatorError naming kernel, block, API and values, and
the process goes on: the next launch of the same library succeeds."""

from __future__ import annotations

import re

import numpy as np
import pytest

import opgen_runtime as rt

# One kernel, one misbehaviour per `mode`, triggered on block `badBlock` only.
RULES_CPP = r"""
#include "kernel_operator.h"
#include <csignal>
#include <cstdlib>
using namespace AscendC;

struct RulesTilingData {
    int32_t mode;
    uint32_t n;
    uint32_t badBlock;
};
REGISTER_TILING_DEFAULT(RulesTilingData);

extern "C" __global__ __aicore__ void rules(GM_ADDR x, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    const int32_t mode = GetBlockIdx() == t.badBlock ? t.mode : 0;
    TPipe pipe;
    TQue<QuePosition::VECIN, 2> que;
    TBuf<QuePosition::VECCALC> buf;
    GlobalTensor<float> xGm, zGm;
    xGm.SetGlobalBuffer((__gm__ float*)x, t.n);
    zGm.SetGlobalBuffer((__gm__ float*)z, t.n);
    pipe.InitBuffer(que, 2, 256);
    pipe.InitBuffer(buf, 1024);
    if (mode == 1) {                       // Unified Buffer capacity
        TBuf<QuePosition::VECCALC> big;
        pipe.InitBuffer(big, 200 * 1024);
    }
    if (mode == 2) {                       // DataCopy length not a multiple of 32 bytes
        LocalTensor<float> a = que.AllocTensor<float>();
        Duplicate(a, -1.0f, 64);
        DataCopy(a, xGm, 10);
        DataCopy(zGm, a, 10);
        que.FreeTensor(a);
        return;
    }
    if (mode == 3) {                       // UB operand not 32-byte aligned
        LocalTensor<float> a = buf.Get<float>();
        Add(a[3], a[3], a[3], 8);
    }
    if (mode == 4) {                       // past the SetGlobalBuffer size
        LocalTensor<float> a = que.AllocTensor<float>();
        DataCopy(a, xGm[8], 16);
    }
    if (mode == 5) {                       // past the real GM buffer (no size given)
        GlobalTensor<float> raw;
        raw.SetGlobalBuffer((__gm__ float*)x);
        LocalTensor<float> a = que.AllocTensor<float>();
        DataCopy(a, raw[16], 64);
    }
    if (mode == 6) {                       // more live tensors than the queue holds
        LocalTensor<float> a = que.AllocTensor<float>();
        LocalTensor<float> b = que.AllocTensor<float>();
        LocalTensor<float> c = que.AllocTensor<float>();
    }
    if (mode == 7) {                       // DeQue on an empty queue
        LocalTensor<float> a = que.DeQue<float>();
    }
    if (mode == 8) {                       // use after FreeTensor
        LocalTensor<float> a = que.AllocTensor<float>();
        que.FreeTensor(a);
        Adds(a, a, 1.0f, 64);
    }
    if (mode == 9) {                       // Compare count not filling 256 bytes
        LocalTensor<float> a = buf.Get<float>();
        LocalTensor<uint8_t> m = que.AllocTensor<uint8_t>();
        Compare(m, a, a, CMPMODE::LT, 40);
    }
    if (mode == 10) {                      // a real crash: segfault
        *reinterpret_cast<volatile int*>(static_cast<uintptr_t>(t.n) - t.n) = 1;
    }
    if (mode == 11) {                      // a real crash: integer division by zero
        volatile int zero = 0;
        volatile int r = static_cast<int>(t.n) / zero;
        (void)r;
    }
    if (mode == 12) {                      // a real crash: abort
        std::abort();
    }
    if (mode == 13) {
        ASSERT(t.n == 12345);
    }
    if (mode == 15) {                      // a buffer past the Unified Buffer, used
        TBuf<QuePosition::VECCALC> big;
        pipe.InitBuffer(big, 200 * 1024);
        LocalTensor<float> b = big.Get<float>();
        Duplicate(b, 0.0f, 64);
    }
    if (mode == 14) {                      // DataCopy of an EnQue'd-twice tensor
        LocalTensor<float> a = que.AllocTensor<float>();
        que.EnQue(a);
        que.EnQue(a);
    }
    // mode 0: z = x + 1
    LocalTensor<float> a = que.AllocTensor<float>();
    DataCopy(a, xGm, t.n);
    Adds(a, a, 1.0f, t.n);
    DataCopy(zGm, a, t.n);
    que.FreeTensor(a);
}
"""

LAYOUT = rt.TilingLayout.from_fields(
    "RulesTilingData", [("mode", "int32_t"), ("n", "uint32_t"), ("badBlock", "uint32_t")]
)
N = 16


@pytest.fixture(scope="module")
def rules_lib(tmp_path_factory: pytest.TempPathFactory) -> rt.KernelLibrary:
    src = tmp_path_factory.mktemp("rules") / "rules.cpp"
    src.write_text(RULES_CPP)
    return rt.build_kernel(src, entry="rules")


def run(
    lib: rt.KernelLibrary, mode: int, *, block_dim: int = 2, bad_block: int = 1, **kw: object
) -> tuple[np.ndarray, np.ndarray, rt.LaunchProfile]:
    x = rt.gm_empty(N, np.float32)
    x[:] = np.arange(N, dtype=np.float32)
    z = rt.gm_empty(N, np.float32)
    z[:] = 7.0
    prof = rt.launch(
        lib,
        "rules",
        {"x": x, "z": z},
        block_dim=block_dim,
        tiling=LAYOUT.pack({"mode": mode, "n": N, "badBlock": bad_block}),
        **kw,  # type: ignore[arg-type]
    )
    return x, z, prof


def assert_still_works(lib: rt.KernelLibrary) -> None:
    x, z, _ = run(lib, 0)
    np.testing.assert_array_equal(z, x + 1)


CASES = [
    (
        15,
        rt.UnifiedBufferOverflow,
        "Duplicate",
        r"LocalTensor<float> at UB bytes \[1536, 206336\) lies past the Unified Buffer of "
        r"196608 bytes: TPipe::InitBuffer reserved more than the buffer holds \(206336 bytes\)",
    ),
    (
        2,
        rt.AlignmentError,
        "DataCopy(GM->UB)",
        r"10 x float = 40 bytes is not a multiple of 32 bytes; "
        r"the hardware silently copies only 32",
    ),
    (3, rt.AlignmentError, "Add", r"UB offset 524, which is not 32-byte aligned"),
    (
        5,  # x is 16 floats: a device allocation of 64 + 32 bytes
        rt.GlobalMemoryOutOfBounds,
        "DataCopy(GM->UB)",
        r"bytes \[64, 320\) run past the end of GM buffer 'x' \(96 bytes\)",
    ),
    (6, rt.QueueError, "TQue::AllocTensor", r"all 2 buffers of the queue are in use"),
    (7, rt.QueueError, "TQue::DeQue", r"DeQue on an empty queue"),
    (
        9,
        rt.VectorCountError,
        "Compare",
        r"count 40 x float = 160 bytes does not fill whole 256-byte repeats.*multiple of 64",
    ),
    (14, rt.QueueError, "TQue::EnQue", r"already in the queue"),
]


def test_use_after_free_tensor_is_an_error_in_strict_mode(
        rules_lib: rt.KernelLibrary, monkeypatch: pytest.MonkeyPatch) -> None:
    """A tensor used after FreeTensor: the NPU reads the buffer as it is (the default, see
    test_sim_queue.py), strict mode refuses it."""
    monkeypatch.setenv("OPGEN_SIM_STRICT", "1")
    with pytest.raises(rt.QueueError, match=r"kernel 'rules', block 1: Adds: LocalTensor used "
                                            r"after FreeTensor .*strict mode"):
        run(rules_lib, 8)
    assert_still_works(rules_lib)


@pytest.mark.parametrize(("mode", "exc", "api", "pattern"), CASES)
def test_rule_violation_is_reported_and_process_survives(
    rules_lib: rt.KernelLibrary, mode: int, exc: type[rt.SimulatorError], api: str, pattern: str
) -> None:
    with pytest.raises(exc) as info:
        run(rules_lib, mode)
    e = info.value
    assert e.kernel == "rules"
    assert e.block == 1
    assert e.api == api
    assert str(e).startswith(f"kernel 'rules', block 1: {api}: ")
    assert re.search(pattern, str(e)), str(e)
    assert_still_works(rules_lib)


def test_assert_is_checked_only_in_strict_builds(
    rules_lib: rt.KernelLibrary, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the NPU build expands ASSERT to nothing: a failing one changes nothing
    x, z, _ = run(rules_lib, 13)
    np.testing.assert_array_equal(z, x + 1)
    monkeypatch.setenv("OPGEN_SIM_STRICT", "1")
    strict = rt.build_kernel(rules_lib.source, entry="rules")
    assert strict.path != rules_lib.path
    with pytest.raises(rt.KernelAssertError) as info:
        run(strict, 13)
    assert info.value.block == 1
    assert info.value.api == "ASSERT"
    assert re.search(r"assertion failed: t.n == 12345 at .*\.cpp:\d+", str(info.value))


def test_ub_capacity_depends_on_soc(rules_lib: rt.KernelLibrary) -> None:
    with pytest.raises(rt.UnifiedBufferOverflow, match=r"SoC ascend910b: UB 196608 bytes"):
        run(rules_lib, 15, soc="ascend910b")
    run(rules_lib, 15, soc="ascend310p")  # 256 KiB: the same buffer fits


def test_buffer_past_the_ub_is_an_error_when_used_or_in_strict_mode(
    rules_lib: rt.KernelLibrary, monkeypatch: pytest.MonkeyPatch
) -> None:
    # TPipe::InitBuffer on the device only hands out addresses: an unused buffer past the end
    # of the UB goes unnoticed there (mode 1 reserves 200 KiB and never touches it)
    x, z, _ = run(rules_lib, 1)
    np.testing.assert_array_equal(z, x + 1)
    monkeypatch.setenv("OPGEN_SIM_STRICT", "1")
    with pytest.raises(rt.UnifiedBufferOverflow) as info:
        run(rules_lib, 1)
    assert info.value.api == "TPipe::InitBuffer"
    assert "needs 204800 bytes, 1536 of 196608 bytes are already in use" in str(info.value)


def test_datacopy_hardware_rounding_option(rules_lib: rt.KernelLibrary) -> None:
    x, z, _ = run(rules_lib, 2, block_dim=1, bad_block=0, strict_datacopy=False)
    np.testing.assert_array_equal(z[:8], x[:8])  # 32 of the 40 bytes were copied
    np.testing.assert_array_equal(z[8:], 7.0)  # the rest never arrived, as on hardware


def test_lowest_failing_block_is_reported(rules_lib: rt.KernelLibrary) -> None:
    with pytest.raises(rt.QueueError) as info:
        run(rules_lib, 7, block_dim=8, bad_block=5)
    assert info.value.block == 5


def test_tiling_shorter_than_struct(rules_lib: rt.KernelLibrary) -> None:
    x = rt.gm_empty(N, np.float32)
    with pytest.raises(
        rt.TilingError, match=r"passed 4 bytes of tiling data but the tiling struct is 12"
    ):
        rt.launch(rules_lib, "rules", [x, x], block_dim=1, tiling=b"\0\0\0\0")
    assert_still_works(rules_lib)


@pytest.mark.parametrize(("mode", "signal_name"), [(10, "SIGSEGV"), (11, "SIGFPE")])
def test_crash_in_isolated_mode_names_the_signal(
    rules_lib: rt.KernelLibrary, mode: int, signal_name: str
) -> None:
    with pytest.raises(rt.KernelCrash) as info:
        run(rules_lib, mode, isolated=True)
    assert info.value.signal_name == signal_name
    # a fault ends only its block (tests/simulator/test_sim_faults.py)
    assert str(info.value).startswith(f"kernel 'rules', block 1: {signal_name}: ")
    assert re.search(r" at .*rules\.cpp:\d+$", str(info.value)), str(info.value)
    assert_still_works(rules_lib)


@pytest.mark.parametrize("isolated", [False, True])
def test_abort_in_a_kernel_ends_only_its_block(rules_lib: rt.KernelLibrary,
                                               isolated: bool) -> None:
    with pytest.raises(rt.KernelAssertError) as info:
        run(rules_lib, 12, isolated=isolated)
    assert str(info.value).startswith("kernel 'rules', block 1: SIGABRT: abort() called in the "
                                      "kernel"), str(info.value)
    assert re.search(r" at .*rules\.cpp:\d+$", str(info.value)), str(info.value)
    assert_still_works(rules_lib)


@pytest.mark.parametrize(("mode", "signal_name"), [(10, "SIGSEGV"), (11, "SIGFPE")])
def test_a_fault_in_process_ends_only_its_block(
    rules_lib: rt.KernelLibrary, mode: int, signal_name: str
) -> None:
    with pytest.raises(rt.KernelCrash) as info:
        run(rules_lib, mode)
    assert (info.value.block, info.value.signal_name) == (1, signal_name)
    assert_still_works(rules_lib)


def test_isolated_mode_returns_outputs_and_errors(rules_lib: rt.KernelLibrary) -> None:
    x, z, prof = run(rules_lib, 0, isolated=True)
    np.testing.assert_array_equal(z, x + 1)
    assert prof.ub_to_gm_bytes == 2 * N * 4
    with pytest.raises(rt.QueueError, match=r"block 1: TQue::DeQue: DeQue on an empty queue"):
        run(rules_lib, 7, isolated=True)


def test_missing_entry_is_a_launch_error(rules_lib: rt.KernelLibrary) -> None:
    with pytest.raises(rt.LaunchError, match="no entry 'nope'"):
        rt.launch(rules_lib, "nope", [], block_dim=1, tiling=b"")


def test_the_global_tensor_size_binds_only_in_strict_mode(
        rules_lib: rt.KernelLibrary, monkeypatch: pytest.MonkeyPatch) -> None:
    # mode 4 reads elements [8, 24) of a GlobalTensor given 16: past its size, inside the
    # allocation. The hardware does not check the size given to SetGlobalBuffer.
    run(rules_lib, 4)
    monkeypatch.setenv("OPGEN_SIM_STRICT", "1")
    with pytest.raises(rt.GlobalMemoryOutOfBounds,
                       match=r"kernel 'rules', block 1: DataCopy\(GM->UB\): elements \[8, 24\) "
                             r"are outside the GlobalTensor<float> of 16 elements"):
        run(rules_lib, 4)
    assert_still_works(rules_lib)


def test_a_gm_buffer_is_a_device_allocation(rules_lib: rt.KernelLibrary) -> None:
    # An array that does not end on 32 bytes gets its allocation's tail, as aclrtMalloc rounds:
    # the kernel copies 16 floats in whole blocks from an array of 10 (40 bytes, a view with
    # nothing behind it), reading its padding; the array's own bytes are unchanged.
    x = np.arange(N, dtype=np.float32)[:10]
    z = np.zeros(N, np.float32)
    tiling = LAYOUT.pack({"mode": 0, "n": N, "badBlock": 1})
    rt.launch(rules_lib, "rules", {"x": x, "z": z}, block_dim=1, tiling=tiling)
    np.testing.assert_array_equal(z[:10], np.arange(10, dtype=np.float32) + 1)
    np.testing.assert_array_equal(x, np.arange(10, dtype=np.float32))
    # past the allocation (40 bytes: 96; 64 bytes: 96) is still an error
    assert rt.launcher.gm_allocation(40) == 96 and rt.launcher.gm_allocation(64) == 96
    with pytest.raises(rt.GlobalMemoryOutOfBounds, match=r"GM buffer 'x' \(96 bytes\)"):
        rt.launch(rules_lib, "rules", {"x": x, "z": z}, block_dim=1,
                  tiling=LAYOUT.pack({"mode": 0, "n": 32, "badBlock": 1}))


def test_a_prepared_launch_runs_on_new_arrays_each_time(rules_lib: rt.KernelLibrary) -> None:
    # Prepared (what launch() caches and the registry keeps) holds everything but the arrays;
    # its tiling copy outlives the launcher's tiling cache.
    from opgen_runtime.launcher import _TILING_CACHE, Prepared, gm_empty_at

    tiling = LAYOUT.pack({"mode": 0, "n": N, "badBlock": 1})
    prepared = Prepared(rules_lib, "rules", ("x", "z"), block_dim=2, tiling=tiling,
                        soc=rt.get_soc("ascend910b"))
    _TILING_CACHE.clear()
    for k in range(3):
        x = np.arange(N, dtype=np.float32) * (k + 1)
        z, address = gm_empty_at((N,), np.dtype(np.float32))
        prof = prepared.run([x], [(z, address)])
        np.testing.assert_array_equal(z, x + 1)
        assert prof.block_dim == 2 and prof.gm_to_ub_bytes == 2 * N * 4  # each block reads x
    # the arrays' names appear in its errors, as launch()'s do
    bad = LAYOUT.pack({"mode": 5, "n": N, "badBlock": 1})
    with pytest.raises(rt.GlobalMemoryOutOfBounds, match=r"GM buffer 'x' \(96 bytes\)"):
        Prepared(rules_lib, "rules", ("x", "z"), block_dim=2, tiling=bad,
                 soc=rt.get_soc("ascend910b")).run([rt.gm_empty(N, np.float32),
                                                    rt.gm_empty(N, np.float32)])


def test_a_view_of_a_gm_buffer_keeps_the_allocation_behind_it(
        rules_lib: rt.KernelLibrary) -> None:
    # a 40-byte view at the start of a gm_empty buffer of 64 bytes has the buffer's bytes and
    # padding behind it: the kernel's whole-block read of 16 floats stays inside, no copy
    buf = rt.gm_empty(16, np.float32)
    buf[:] = np.arange(16, dtype=np.float32)
    x = buf[:10]
    z = np.zeros(N, np.float32)
    rt.launch(rules_lib, "rules", {"x": x, "z": z}, block_dim=1,
              tiling=LAYOUT.pack({"mode": 0, "n": N, "badBlock": 1}))
    np.testing.assert_array_equal(z, np.arange(16, dtype=np.float32) + 1)
    # a view of a view: the buffer is found through both
    z[:] = 0
    rt.launch(rules_lib, "rules", {"x": buf.reshape(4, 4)[:2].reshape(-1)[:10], "z": z},
              block_dim=1, tiling=LAYOUT.pack({"mode": 0, "n": N, "badBlock": 1}))
    np.testing.assert_array_equal(z, np.arange(16, dtype=np.float32) + 1)
    # past the buffer's allocation (64 + 32 bytes) is an error
    with pytest.raises(rt.GlobalMemoryOutOfBounds, match=r"GM buffer 'x' \(96 bytes\)"):
        rt.launch(rules_lib, "rules", {"x": x, "z": np.zeros(32, np.float32)}, block_dim=1,
                  tiling=LAYOUT.pack({"mode": 0, "n": 32, "badBlock": 1}))
