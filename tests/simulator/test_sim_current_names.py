"""Names kernels written against today's asc-devkit use: the current names of the repeat
reductions (ReduceRepeat, ReduceDataBlock, ReducePairElem with a ReduceType argument, mask before
repeatTime), Conditional, GetSystemCycle and int4b_t. Each reduction gives what its former name
gives, a dst and src of two types is a compile error saying why, the system counter runs forward,
and int4b_t compiles where a kernel only names it and stops the build, saying why, where a tensor
of it would be used."""

from __future__ import annotations

import struct
from pathlib import Path

import numpy as np
import pytest

import opgen_runtime as rt

KERNEL = r"""
#include "kernel_operator.h"
using namespace AscendC;

extern "C" __global__ __aicore__ void names(GM_ADDR x, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
    const int32_t op = *reinterpret_cast<const int32_t*>(tiling);
    using T = typename Conditional<sizeof(DTYPE_X) == 4, float, half>::type;
    static_assert(std::is_same_v<T, DTYPE_X>);
    constexpr int32_t lanes = 256 / sizeof(T);
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 8 * 1024);
    LocalTensor<T> all = buf.Get<T>();
    const int32_t n = 4 * lanes;
    GlobalTensor<T> xGm, zGm;
    xGm.SetGlobalBuffer((__gm__ T*)x, n);
    zGm.SetGlobalBuffer((__gm__ T*)z, 2 * n);
    LocalTensor<T> src = all, dst = all[n];
    DataCopy(src, xGm, n);
    Duplicate(dst, static_cast<T>(0), n);
    uint64_t bits[2] = {0x0F0F0F0F0F0F0F0FULL, lanes > 64 ? 0xFFULL : 0ULL};
    const ReduceOrder only = ReduceOrder::ORDER_ONLY_VALUE;
    switch (op) {
        case 0: ReduceRepeat<ReduceType::SUM>(dst, src, lanes, 4, 1, 1, 8); break;
        case 1: WholeReduceSum(dst, src, lanes, 4, 1, 1, 8); break;
        case 2: ReduceRepeat<ReduceType::MAX>(dst, src, bits, 4, 1, 1, 8); break;
        case 3: WholeReduceMax(dst, src, bits, 4, 1, 1, 8); break;
        case 4: ReduceRepeat<ReduceType::MIN>(dst, src, 40, 4, 1, 1, 8, only); break;
        case 5: WholeReduceMin(dst, src, 40, 4, 1, 1, 8, only); break;
        case 6: ReduceDataBlock<ReduceType::SUM>(dst, src, bits, 4, 1, 1, 8); break;
        case 7: BlockReduceSum(dst, src, 4, bits, 1, 1, 8); break;
        case 8: ReduceDataBlock<ReduceType::MAX>(dst, src, lanes, 4, 1, 1, 8); break;
        case 9: BlockReduceMax(dst, src, 4, lanes, 1, 1, 8); break;
        case 10: ReducePairElem<ReduceType::SUM, T>(dst, src, lanes, 4, 1, 1, 8); break;
        case 11: PairReduceSum(dst, src, 4, lanes, 1, 1, 8); break;
        default: {
            const int64_t a = GetSystemCycle();
            for (int i = 0; i < 200; ++i) Adds(src, src, static_cast<T>(1), n);
            const int64_t b = GetSystemCycle();
            dst.SetValue(0, static_cast<T>(b > a ? 1 : 0));
            break;
        }
    }
    DataCopy(zGm, all, 2 * n);
}
"""


@pytest.fixture(scope="module")
def libs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, rt.KernelLibrary]:
    src = Path(tmp_path_factory.mktemp("names")) / "names.cpp"
    src.write_text(KERNEL)
    return {t: rt.build_kernel(src, entry="names", defines={"DTYPE_X": t})
            for t in ("float", "half")}


def _run(lib: rt.KernelLibrary, dtype: type, op: int) -> np.ndarray:
    lanes = 256 // np.dtype(dtype).itemsize
    x = rt.gm_empty(4 * lanes, dtype)
    x[...] = np.random.default_rng(5).standard_normal(4 * lanes).astype(dtype)
    z = rt.gm_empty(8 * lanes, dtype)
    rt.launch(lib, "names", {"x": x, "z": z}, block_dim=1, tiling=struct.pack("<i", op))
    return np.asarray(z).copy()


NAMES = ["ReduceRepeat<SUM>", "ReduceRepeat<MAX>", "ReduceRepeat<MIN>", "ReduceDataBlock<SUM>",
         "ReduceDataBlock<MAX>", "ReducePairElem<SUM>"]


@pytest.mark.parametrize("dtype_name", ["float", "half"])
@pytest.mark.parametrize("pair", [(0, 1), (2, 3), (4, 5), (6, 7), (8, 9), (10, 11)], ids=NAMES)
def test_current_reduction_names_give_their_former_names_results(
        libs: dict[str, rt.KernelLibrary], dtype_name: str, pair: tuple[int, int]) -> None:
    dtype = np.float32 if dtype_name == "float" else np.float16
    new, old = (_run(libs[dtype_name], dtype, op) for op in pair)
    lanes = 256 // np.dtype(dtype).itemsize
    assert np.any(new[4 * lanes:] != 0)  # something was written
    assert new.tobytes() == old.tobytes()


def test_system_cycle_runs_forward(libs: dict[str, rt.KernelLibrary]) -> None:
    z = _run(libs["float"], np.float32, 99)
    assert z[256 // 4 * 4] == 1.0


def test_reduction_of_two_types_is_a_compile_error_naming_the_rule(tmp_path: Path) -> None:
    src = tmp_path / "mixed.cpp"
    src.write_text(r"""
#include "kernel_operator.h"
using namespace AscendC;
extern "C" __global__ __aicore__ void mixed(GM_ADDR x, GM_ADDR workspace, GM_ADDR tiling)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 1024);
    LocalTensor<float> d = buf.Get<float>();
    LocalTensor<half> s = buf.Get<half>()[256];
    ReduceRepeat<ReduceType::SUM>(d, s, 128, 1, 1, 1, 8);
}
""")
    with pytest.raises(rt.BuildError, match="dst and src must be one type"):
        rt.build_kernel(src, entry="mixed")


INT4 = r"""
#include "kernel_operator.h"
using namespace AscendC;
template <int scenario>
__aicore__ inline void Body(GM_ADDR x)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 1024);
    LocalTensor<int8_t> bytes = buf.Get<int8_t>();
    if constexpr (scenario == 0) {
        LocalTensor<int4b_t> nibbles = bytes.template ReinterpretCast<int4b_t>();
        (void)nibbles;
    }
    (void)x;
}
extern "C" __global__ __aicore__ void int4(GM_ADDR x, GM_ADDR workspace, GM_ADDR tiling)
{
    Body<SCENARIO>(x);
}
"""


def test_int4b_t_named_in_a_branch_not_taken_compiles(tmp_path: Path) -> None:
    src = tmp_path / "int4.cpp"
    src.write_text(INT4)
    rt.build_kernel(src, entry="int4", defines={"SCENARIO": "1"})


def test_a_tensor_of_int4b_t_is_a_compile_error_saying_it_is_not_simulated(tmp_path: Path) -> None:
    src = tmp_path / "int4.cpp"
    src.write_text(INT4)
    with pytest.raises(rt.BuildError, match=r"int4b_t \(4-bit\) tensors are not simulated yet"):
        rt.build_kernel(src, entry="int4", defines={"SCENARIO": "0"})


ASSERTS = r"""
#include "kernel_operator.h"
using namespace AscendC;
extern "C" __global__ __aicore__ void asserts(GM_ADDR x, GM_ADDR workspace, GM_ADDR tiling)
{
    const int32_t n = *reinterpret_cast<const int32_t*>(tiling);
    KERNEL_LOG(KERNEL_INFO, "n is %d", n);
    ASCENDC_ASSERT(n > 0, { KERNEL_LOG(KERNEL_ERROR, "n must be positive, got %d", n); });
    (void)x;
}
"""


def test_kernel_log_prints_and_a_failed_ascendc_assert_stops_the_kernel(
        tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "asserts.cpp"
    src.write_text(ASSERTS)
    lib = rt.build_kernel(src, entry="asserts")
    x = rt.gm_empty(8, np.float32)
    rt.launch(lib, "asserts", [x], block_dim=1, tiling=struct.pack("<i", 3))
    assert "[INFO][opgen-sim][block 0]" in capfd.readouterr().err
    with pytest.raises(rt.SimulatorError, match=r"assertion failed: n > 0 at .*asserts\.cpp:8"):
        rt.launch(lib, "asserts", [x], block_dim=1, tiling=struct.pack("<i", -2))
    assert "[ERROR][opgen-sim][block 0]" in capfd.readouterr().err


GM_SCALAR = r"""
#include "kernel_operator.h"
using namespace AscendC;
extern "C" __global__ __aicore__ void flags(GM_ADDR x, GM_ADDR workspace, GM_ADDR tiling)
{
    const int32_t at = *reinterpret_cast<const int32_t*>(tiling);
    __gm__ int32_t* flags = reinterpret_cast<__gm__ int32_t*>(x);
    WriteGmByPassDCache(flags + at, static_cast<int32_t>(GetBlockIdx()) + 10);
    DataSyncBarrier<MemDsbT::ALL>();
    const int32_t seen = ReadGmByPassDCache(flags + at);
    WriteGmByPassDCache(flags + at + 1, seen * 2);
}
"""


def test_gm_scalar_accesses_past_the_data_cache_write_read_and_check_their_address(
        tmp_path: Path) -> None:
    src = tmp_path / "flags.cpp"
    src.write_text(GM_SCALAR)
    lib = rt.build_kernel(src, entry="flags")
    x = rt.gm_empty(16, np.int32)
    x[...] = 0
    rt.launch(lib, "flags", [x], block_dim=1, tiling=struct.pack("<i", 4))
    assert list(np.asarray(x)[4:6]) == [10, 20]
    with pytest.raises(rt.SimulatorError, match="WriteGmByPassDCache"):
        rt.launch(lib, "flags", [x], block_dim=1, tiling=struct.pack("<i", 4096))


def test_a_float_past_the_data_cache_is_a_compile_error(tmp_path: Path) -> None:
    src = tmp_path / "fl.cpp"
    src.write_text(GM_SCALAR.replace("int32_t* flags", "float* flags")
                   .replace("static_cast<int32_t>(GetBlockIdx()) + 10", "1.0f")
                   .replace("const int32_t seen", "const float seen"))
    with pytest.raises(rt.BuildError, match="take int8_t, uint8_t, int16_t"):
        rt.build_kernel(src, entry="flags")


REDUCE_SUM0 = r"""
#include "kernel_operator.h"
using namespace AscendC;
extern "C" __global__ __aicore__ void rsum(GM_ADDR x, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
    using T = DTYPE_X;
    constexpr int32_t lanes = 256 / sizeof(T);
    const int32_t useBits = *reinterpret_cast<const int32_t*>(tiling);
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 8 * lanes * sizeof(T));
    GlobalTensor<T> xGm, zGm;
    xGm.SetGlobalBuffer((__gm__ T*)x, 4 * lanes);
    zGm.SetGlobalBuffer((__gm__ T*)z, 8 * lanes);
    LocalTensor<T> all = buf.Get<T>();
    LocalTensor<T> src = all, work = all[4 * lanes], dst = all[5 * lanes], acc = all[6 * lanes];
    DataCopy(src, xGm, 4 * lanes);
    Duplicate(all[4 * lanes], static_cast<T>(0), 4 * lanes);
    uint64_t bits[2] = {0xF0F0F0F0F0F0F0F0ULL, lanes > 64 ? 0x1ULL : 0ULL};
    if (useBits) ReduceSum(dst, src, work, bits, 3, 9);
    else ReduceSum(dst, src, work, 40, 3, 9);
    acc.SetValue(0, GetReduceRepeatSumSpr<T>());
    ReduceSum(dst[8 * sizeof(float) / sizeof(T)], src, work[lanes / 2], 3 * lanes + 5);
    acc.SetValue(1, GetAccVal<T>());
    DataCopy(zGm, all, 8 * lanes);
}
"""


def _tree(v: list[np.floating], t: type) -> np.floating:
    def add(a: np.floating, b: np.floating) -> np.floating:
        s = np.float32(a) + np.float32(b)
        out: np.floating = t(np.clip(s, -65504, 65504) if t is np.float16 else s)
        return out

    while len(v) > 1:
        v = [add(v[2 * i], v[2 * i + 1]) for i in range(len(v) // 2)]
    return v[0]


@pytest.mark.parametrize("dtype_name", ["float", "half"])
@pytest.mark.parametrize("use_bits", [False, True])
def test_reduce_sum_mask_form_and_the_sum_register(tmp_path: Path, dtype_name: str,
                                                   use_bits: bool) -> None:
    """The mask/repeat ReduceSum: each repeat's selected lanes summed as a tree into
    sharedTmpBuffer, then those sums reduced as the count form reduces values; the count and
    mask forms leave their sum where GetReduceRepeatSumSpr (GetAccVal) reads it."""
    t = np.float32 if dtype_name == "float" else np.float16
    lanes = 256 // np.dtype(t).itemsize
    src_path = tmp_path / "rsum.cpp"
    src_path.write_text(REDUCE_SUM0)
    lib = rt.build_kernel(src_path, entry="rsum", defines={"DTYPE_X": dtype_name})
    x0 = np.random.default_rng(2).standard_normal(4 * lanes).astype(t)
    x = rt.gm_empty(4 * lanes, t)
    x[...] = x0
    z = rt.gm_empty(8 * lanes, t)
    rt.launch(lib, "rsum", {"x": x, "z": z}, block_dim=1,
              tiling=struct.pack("<ii", int(use_bits), 0))
    got = np.asarray(z)
    bits = (0xF0F0F0F0F0F0F0F0 | (1 << 64 if lanes > 64 else 0)) if use_bits else (1 << 40) - 1
    partials = [_tree([x0[r * 9 * (lanes // 8) + lane] if bits >> lane & 1 else t(0)
                       for lane in range(lanes)], t) for r in range(3)]
    total = _tree(partials + [t(0)] * (lanes - 3), t)
    assert got[4 * lanes:4 * lanes + 3].tobytes() == np.array(partials, t).tobytes()
    assert got[5 * lanes].tobytes() == np.array([total], t).tobytes()
    assert got[6 * lanes].tobytes() == got[5 * lanes].tobytes()
    count_total = got[5 * lanes + 8 * 4 // np.dtype(t).itemsize]
    assert got[6 * lanes + 1].tobytes() == count_total.tobytes()


POLL = r"""
#include "kernel_operator.h"
using namespace AscendC;
extern "C" __global__ __aicore__ void poll(GM_ADDR x, GM_ADDR workspace, GM_ADDR tiling)
{
    const int32_t byPass = *reinterpret_cast<const int32_t*>(tiling);
    GlobalTensor<int32_t> flags;
    flags.SetGlobalBuffer((__gm__ int32_t*)x, 64);
    const int32_t me = static_cast<int32_t>(GetBlockIdx());
    constexpr CacheLine kLine = CacheLine::SINGLE_CACHE_LINE;
    constexpr DcciDst kOut = DcciDst::CACHELINE_OUT;
    if (me != 0) {  // blocks 1..n-1 raise their flag and end
        flags.SetValue(me * 8, me + 100);
        DataCacheCleanAndInvalid<int32_t, kLine, kOut>(flags);
        return;
    }
    for (int32_t b = 1; b < static_cast<int32_t>(GetBlockNum()); ++b) {  // block 0 waits for each
        for (;;) {
            int32_t seen;
            if (byPass) {
                seen = ReadGmByPassDCache(reinterpret_cast<__gm__ int32_t*>(x) + b * 8);
            } else {
                DataCacheCleanAndInvalid<int32_t, kLine, kOut>(flags);
                seen = flags.GetValue(b * 8);
            }
            if (seen == b + 100) break;
        }
    }
    flags.SetValue(0, 1);
}
"""


@pytest.mark.parametrize("by_pass", [False, True], ids=["dcci", "ReadGmByPassDCache"])
def test_a_block_polling_gm_for_later_blocks_sees_them_run(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, by_pass: bool) -> None:
    """On hardware every block runs at once; here a block that keeps polling GM while blocks
    remain unstarted starts a thread for them, so it does not spin until the launch times out."""
    monkeypatch.setenv("OPGEN_SIM_TIMEOUT", "20")
    src = tmp_path / "poll.cpp"
    src.write_text(POLL)
    lib = rt.build_kernel(src, entry="poll")
    x = rt.gm_empty(64, np.int32)
    x[...] = 0
    # one thread: block 0 runs first and polls while 1-3 wait unstarted
    rt.launch(lib, "poll", [x], block_dim=4, tiling=struct.pack("<i", int(by_pass)), max_threads=1)
    assert list(np.asarray(x)[[0, 8, 16, 24]]) == [1, 101, 102, 103]


TASK_SYNC = r"""
#include "kernel_operator.h"
using namespace AscendC;
extern "C" __global__ __aicore__ void tasks(GM_ADDR x, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 64 * sizeof(float));
    GlobalTensor<float> xGm, zGm;
    xGm.SetGlobalBuffer((__gm__ float*)x, 64);
    zGm.SetGlobalBuffer((__gm__ float*)z, 64);
    LocalTensor<float> v = buf.Get<float>();
    WaitPreTaskEnd();
    DataCopy(v, xGm, 64);
    Muls(v, v, 3.0f, 64);
    DataCopy(zGm, v, 64);
    SetNextTaskStart();
    SetNextTaskStart<PIPE_MTE3, PIPE_FIX, false>();
    WaitPreTaskEnd<false>();
}
"""


def test_superkernel_task_order_calls_outside_a_superkernel_change_nothing(
        tmp_path: Path) -> None:
    """WaitPreTaskEnd / SetNextTaskStart (superkernel early start): outside a superkernel they do
    nothing (asc-devkit's dav_c220 implementation), so the kernel computes what it would
    without them, and the template arguments the reference gives compile."""
    src = tmp_path / "tasks.cpp"
    src.write_text(TASK_SYNC)
    lib = rt.build_kernel(src, entry="tasks")
    x = rt.gm_empty(64, np.float32)
    x[...] = np.arange(64, dtype=np.float32)
    z = rt.gm_empty(64, np.float32)
    z[...] = 0
    rt.launch(lib, "tasks", [x, z], block_dim=1, tiling=b"\0" * 8)
    np.testing.assert_array_equal(z, np.arange(64, dtype=np.float32) * 3)


STD_TRAITS = r"""
#include "kernel_operator.h"
using namespace AscendC;
namespace S = AscendC::Std;
// asc-devkit's include/utils/std: the standard traits with their _t and _v forms, and its own
static_assert(S::is_same_v<S::remove_const_t<const int>, int>);
static_assert(S::is_same_v<S::add_pointer_t<int>, int*>);
static_assert(S::is_same_v<S::remove_cvref_t<const int&>, int>);
static_assert(S::is_same_v<S::decay_t<int[3]>, int*>);
static_assert(S::is_same_v<S::conditional_t<true, int, float>, int>);
static_assert(S::is_void_v<const void> && S::is_pointer_v<int*> && S::is_reference_v<int&&>);
static_assert(S::is_floating_point_v<half> && S::is_floating_point<const float>::value);
static_assert(!S::is_floating_point_v<float&> && !S::is_floating_point_v<int>);
static_assert(S::is_integral_v<S::integral_constant<int, 3>> && S::is_integral_v<volatile char>);
static_assert(!S::is_integral_v<wchar_t> && !S::is_integral_v<half>);
static_assert(S::is_one_of_v<half, float, half> && !S::is_one_of_v<int, float, half>);
static_assert(S::is_one_of_value_v<int, 3, 1, 2, 3> && !S::is_one_of_value_v<int, 4, 1, 2, 3>);
static_assert(S::is_constant<4, const S::integral_constant<int, 4>&>::value);
static_assert(!S::is_constant<5, S::integral_constant<int, 4>>::value);
extern "C" __global__ __aicore__ void traits(GM_ADDR x, GM_ADDR workspace, GM_ADDR tiling) {}
"""


def test_std_traits_as_asc_devkit_defines_them(tmp_path: Path) -> None:
    """AscendC::Std (asc-devkit include/utils/std/type_traits.h): every trait with its _t/_v form,
    half a floating-point type, an integral_constant integral, is_one_of(_value), is_constant;
    checked by static_assert, so a wrong trait stops the build."""
    src = tmp_path / "traits.cpp"
    src.write_text(STD_TRAITS)
    rt.build_kernel(src, entry="traits")
