"""The advanced Matmul API (lib/matmul_intf.h, opgen_sim/matmul.h): Matmul objects registered with
REGIST_MATMUL_OBJ and a TCubeTiling, run by IterateAll or by Iterate + GetTensorC (to GM, to UB
in sequential-write mode, asynchronously), split over cores by the tiling's singleCoreM/N with
SetTail for the last cores, with a bias, transposed A or B, half/float, int8_t/int32_t and
half/half types, against a numpy model of the simulator's documented accumulation (each K block
of one 32-byte fractal row summed in the accumulator type in order, each block's sum added to C
starting from the bias); and the misuse it reports."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import opgen_runtime as rt

KERNEL_CPP = r"""
#include "kernel_operator.h"
#include "lib/matmul_intf.h"
using namespace AscendC;

struct Args {
    int32_t mode;
    int32_t transA;
    int32_t transB;
    int32_t pad;
    TCubeTiling cube;
};

template <typename A, typename C, bool TA, bool TB>
__aicore__ inline void RunAll(GM_ADDR a, GM_ADDR b, GM_ADDR bias, GM_ADDR c, const TCubeTiling& t)
{
    using Acc = std::conditional_t<std::is_same_v<A, int8_t>, int32_t, float>;
    TPipe pipe;
    GlobalTensor<A> ag, bg;
    GlobalTensor<C> cg;
    GlobalTensor<Acc> biasg;
    ag.SetGlobalBuffer((__gm__ A*)a, t.M * t.Ka);
    bg.SetGlobalBuffer((__gm__ A*)b, t.Kb * t.N);
    cg.SetGlobalBuffer((__gm__ C*)c, t.M * t.N);
    biasg.SetGlobalBuffer((__gm__ Acc*)bias, t.N);
    matmul::Matmul<matmul::MatmulType<TPosition::GM, CubeFormat::ND, A, TB>,
                   matmul::MatmulType<TPosition::GM, CubeFormat::ND, A, TB>,
                   matmul::MatmulType<TPosition::GM, CubeFormat::ND, C>,
                   matmul::MatmulType<TPosition::GM, CubeFormat::ND, Acc>> mm;
    REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t);
    const int32_t mBlocks = (t.M + t.singleCoreM - 1) / t.singleCoreM;
    const int32_t mi = GetBlockIdx() % mBlocks, ni = GetBlockIdx() / mBlocks;
    int32_t tailM = t.M - mi * t.singleCoreM, tailN = t.N - ni * t.singleCoreN;
    tailM = tailM < t.singleCoreM ? tailM : t.singleCoreM;
    tailN = tailN < t.singleCoreN ? tailN : t.singleCoreN;
    if (GetBlockIdx() >= t.usedCoreNum) return;
    mm.SetTensorA(ag[TA ? mi * t.singleCoreM : mi * t.singleCoreM * t.Ka], TA);
    mm.SetTensorB(bg[TB ? ni * t.singleCoreN * t.Kb : ni * t.singleCoreN], TB);
    if (t.isBias) mm.SetBias(biasg[ni * t.singleCoreN]);
    mm.SetTail(tailM, tailN);
    mm.IterateAll(cg[mi * t.singleCoreM * t.N + ni * t.singleCoreN]);
    mm.End();
}

// Iterate + GetTensorC: each block to UB (sequential write), then whole to GM block after block
// (rows of cols rounded up to 8 floats), or (async) Iterate<false> then GetTensorC<false> to GM.
__aicore__ inline void RunBlocks(GM_ADDR a, GM_ADDR b, GM_ADDR c, const TCubeTiling& t, bool async)
{
    if (GetBlockIdx() >= t.usedCoreNum) return;
    TPipe pipe;
    GlobalTensor<half> ag, bg;
    GlobalTensor<float> cg;
    ag.SetGlobalBuffer((__gm__ half*)a, t.M * t.Ka);
    bg.SetGlobalBuffer((__gm__ half*)b, t.Kb * t.N);
    cg.SetGlobalBuffer((__gm__ float*)c, 4 * t.M * t.N);
    matmul::Matmul<matmul::MatmulType<TPosition::GM, CubeFormat::ND, half>,
                   matmul::MatmulType<TPosition::GM, CubeFormat::ND, half>,
                   matmul::MatmulType<TPosition::VECIN, CubeFormat::ND, float>> mm;
    REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t);
    mm.SetTensorA(ag);
    mm.SetTensorB(bg);
    if (async) {
        mm.template Iterate<false>();
        const int32_t mIter = (t.singleCoreM + t.baseM - 1) / t.baseM;
        const int32_t nIter = (t.singleCoreN + t.baseN - 1) / t.baseN;
        for (int32_t i = 0; i < mIter * nIter; ++i) {
            mm.template GetTensorC<false>(cg[i * t.baseM * t.baseN], 0, true);
        }
        mm.End();
        return;
    }
    TQue<TPosition::VECIN, 1> q;
    pipe.InitBuffer(q, 1, t.baseM * t.baseN * sizeof(float));
    uint32_t round = 0;
    while (mm.Iterate()) {
        LocalTensor<float> ub = q.AllocTensor<float>();
        mm.GetTensorC(ub, 0, true);
        q.EnQue(ub);
        ub = q.DeQue<float>();
        DataCopy(cg[round * t.baseM * t.baseN], ub, t.baseM * t.baseN);
        q.FreeTensor(ub);
        ++round;
    }
    mm.End();
}

__aicore__ inline void Misuse(GM_ADDR a, GM_ADDR b, GM_ADDR c, const TCubeTiling& t, int32_t mode)
{
    TPipe pipe;
    GlobalTensor<half> ag, bg;
    GlobalTensor<float> cg;
    ag.SetGlobalBuffer((__gm__ half*)a, t.M * t.Ka);
    bg.SetGlobalBuffer((__gm__ half*)b, t.Kb * t.N);
    cg.SetGlobalBuffer((__gm__ float*)c, t.M * t.N);
    matmul::Matmul<matmul::MatmulType<TPosition::GM, CubeFormat::ND, half>,
                   matmul::MatmulType<TPosition::GM, CubeFormat::ND, half>,
                   matmul::MatmulType<TPosition::GM, CubeFormat::ND, float>> mm;
    if (mode == 10) {  // no tiling
        mm.SetTensorA(ag);
        mm.SetTensorB(bg);
        mm.IterateAll(cg);
        return;
    }
    REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t);
    if (mode == 13) {  // GetTensorC before any Iterate
        mm.SetTensorA(ag);
        mm.SetTensorB(bg);
        mm.GetTensorC(cg);
        return;
    }
    if (mode != 11) mm.SetTensorA(ag);
    mm.SetTensorB(bg);
    mm.IterateAll(cg);  // 11: A not set; 12: A's GM argument too small; 14: isBias unset
}

extern "C" __global__ __aicore__ void mm_test(GM_ADDR a, GM_ADDR b, GM_ADDR bias, GM_ADDR c,
                                              GM_ADDR workspace, GM_ADDR tiling)
{
    Args args;
    const uint32_t* words = reinterpret_cast<const uint32_t*>(tiling);
    uint32_t* dst = reinterpret_cast<uint32_t*>(&args);
    for (uint32_t i = 0; i < sizeof(Args) / 4; ++i) dst[i] = words[i];
    const TCubeTiling& t = args.cube;
    switch (args.mode) {
        case 0:
            if (args.transA && args.transB) RunAll<half, float, true, true>(a, b, bias, c, t);
            else if (args.transA) RunAll<half, float, true, false>(a, b, bias, c, t);
            else if (args.transB) RunAll<half, float, false, true>(a, b, bias, c, t);
            else RunAll<half, float, false, false>(a, b, bias, c, t);
            break;
        case 1: RunAll<int8_t, int32_t, false, false>(a, b, bias, c, t); break;
        case 2: RunAll<half, half, false, false>(a, b, bias, c, t); break;
        case 3: RunBlocks(a, b, c, t, false); break;
        case 4: RunBlocks(a, b, c, t, true); break;
        default: Misuse(a, b, c, t, args.mode); break;
    }
}
"""


@pytest.fixture(scope="module")
def lib(tmp_path_factory: pytest.TempPathFactory) -> rt.KernelLibrary:
    src = Path(tmp_path_factory.mktemp("matmul")) / "mm_test.cpp"
    src.write_text(KERNEL_CPP)
    return rt.build_kernel(src, entry="mm_test")


def tiling(m: int, n: int, k: int, single_m: int, single_n: int, base: tuple[int, int, int],
           *, bias: bool = False, order: int = 0, cores: int = 1) -> np.ndarray:
    """A TCubeTiling's 50 fields (the ones the simulator reads; the rest 0)."""
    t = np.zeros(50, np.int32)
    t[0:8] = [cores, m, n, k, k, single_m, single_n, k]
    t[8:11] = base
    t[11:15] = [1, 1, 1, 1]  # depthA1, depthB1, stepM, stepN
    t[15] = int(bias)
    t[17] = order
    t[26:28] = [1, 1]  # stepKa, stepKb
    t[30:33] = [1, 1, 1]  # dbL0A, dbL0B, dbL0C
    return t


def run(lib: rt.KernelLibrary, mode: int, t: np.ndarray, a: np.ndarray, b: np.ndarray,
        bias: np.ndarray, c_dtype: type, c_count: int, *, trans: tuple[bool, bool] = (False, False),
        blocks: int = 1) -> np.ndarray:
    gm = [rt.gm_empty(x.size, x.dtype) for x in (a, b, bias)]
    for g, x in zip(gm, (a, b, bias), strict=True):
        g[...] = x.reshape(-1)
    c = rt.gm_empty(c_count, c_dtype)
    c[...] = 0
    head = np.array([mode, int(trans[0]), int(trans[1]), 0], np.int32)
    # a mix kernel (Matmul from the vector cores): 2 AIV cores a block, the tiling's cores
    rt.launch(lib, "mm_test", [*gm, c], block_dim=(blocks + 1) // 2,
              tiling=head.tobytes() + t.tobytes(), workspace_size=16 << 20)
    return np.asarray(c).copy()


def model(a: np.ndarray, b: np.ndarray, bias: np.ndarray | None, c0: int) -> np.ndarray:
    """C = bias + sum over K blocks of c0 of (the block's products summed in order), each block's
    sum added in order, in float32 (int32 for int8)."""
    acc = np.int32 if a.dtype == np.int8 else np.float32
    m, k = a.shape
    n = b.shape[1]
    out = np.zeros((m, n), acc) if bias is None else np.tile(bias.astype(acc), (m, 1))
    prods = a.astype(acc)[:, :, None] * b.astype(acc)[None, :, :]  # m x k x n
    for kb in range(0, k, c0):
        block = prods[:, kb:kb + c0, :]
        s = np.cumsum(block, axis=1, dtype=acc)[:, -1, :]  # summed in order
        out = (out + s).astype(acc)
    return out


def halves(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    return rng.standard_normal(shape).astype(np.float16)


@pytest.mark.parametrize(("m", "n", "k", "single", "base", "cores", "bias"), [
    (64, 64, 32, (64, 64), (32, 32, 32), 1, False),
    (100, 70, 40, (64, 40), (32, 32, 32), 4, True),  # tails in both directions, on 4 cores
    (33, 17, 50, (33, 17), (16, 16, 16), 1, True),  # K not a multiple of a fractal row
])
def test_iterate_all_matches_the_fractal_row_model(lib: rt.KernelLibrary, m: int, n: int, k: int,
                                                   single: tuple[int, int],
                                                   base: tuple[int, int, int], cores: int,
                                                   bias: bool) -> None:
    rng = np.random.default_rng(m * n + k)
    a, b = halves(rng, (m, k)), halves(rng, (k, n))
    bv = rng.standard_normal(n).astype(np.float32)
    t = tiling(m, n, k, *single, base, bias=bias, cores=cores)
    got = run(lib, 0, t, a, b, bv, np.float32, m * n, blocks=cores).reshape(m, n)
    want = model(a, b, bv if bias else None, 16)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("trans", [(True, False), (False, True), (True, True)])
def test_transposed_operands_are_read_as_stored(lib: rt.KernelLibrary,
                                                trans: tuple[bool, bool]) -> None:
    m, n, k = 48, 40, 36
    rng = np.random.default_rng(7)
    a, b = halves(rng, (m, k)), halves(rng, (k, n))
    stored_a = np.ascontiguousarray(a.T) if trans[0] else a
    stored_b = np.ascontiguousarray(b.T) if trans[1] else b
    t = tiling(m, n, k, m, n, (16, 16, 16))
    got = run(lib, 0, t, stored_a, stored_b, np.zeros(n, np.float32), np.float32, m * n,
              trans=trans).reshape(m, n)
    np.testing.assert_array_equal(got, model(a, b, None, 16))


def test_int8_accumulates_in_int32(lib: rt.KernelLibrary) -> None:
    m, n, k = 32, 48, 100
    rng = np.random.default_rng(3)
    a = rng.integers(-128, 128, (m, k)).astype(np.int8)
    b = rng.integers(-128, 128, (k, n)).astype(np.int8)
    bias = rng.integers(-1000, 1000, n).astype(np.int32)
    t = tiling(m, n, k, m, n, (32, 32, 64), bias=True)
    got = run(lib, 1, t, a, b, bias, np.int32, m * n).reshape(m, n)
    np.testing.assert_array_equal(got, a.astype(np.int64) @ b.astype(np.int64) + bias)


def test_half_output_is_the_float_result_rounded_to_nearest_even(lib: rt.KernelLibrary) -> None:
    m, n, k = 32, 32, 64
    rng = np.random.default_rng(5)
    a, b = halves(rng, (m, k)), halves(rng, (k, n))
    t = tiling(m, n, k, m, n, (32, 32, 32))
    got = run(lib, 2, t, a, b, np.zeros(n, np.float32), np.float16, m * n).reshape(m, n)
    np.testing.assert_array_equal(got, model(a, b, None, 16).astype(np.float16))


@pytest.mark.parametrize("order", [0, 1])
def test_iterate_gives_blocks_in_the_tilings_order(lib: rt.KernelLibrary, order: int) -> None:
    m, n, k, bm, bn = 64, 48, 32, 32, 16
    rng = np.random.default_rng(11)
    a, b = halves(rng, (m, k)), halves(rng, (k, n))
    t = tiling(m, n, k, m, n, (bm, bn, 32), order=order)
    got = run(lib, 3, t, a, b, np.zeros(n, np.float32), np.float32, 4 * m * n)
    want = model(a, b, None, 16)
    m_iter, n_iter = m // bm, n // bn
    for it in range(m_iter * n_iter):
        mi, ni = (it % m_iter, it // m_iter) if order == 0 else (it // n_iter, it % n_iter)
        block = got[it * bm * bn:(it + 1) * bm * bn].reshape(bm, bn)
        np.testing.assert_array_equal(block, want[mi * bm:(mi + 1) * bm, ni * bn:(ni + 1) * bn])


def test_async_iterate_then_get_tensor_c_hands_out_every_block(lib: rt.KernelLibrary) -> None:
    m, n, k, bm, bn = 64, 32, 16, 32, 32
    rng = np.random.default_rng(13)
    a, b = halves(rng, (m, k)), halves(rng, (k, n))
    t = tiling(m, n, k, m, n, (bm, bn, 16))
    got = run(lib, 4, t, a, b, np.zeros(n, np.float32), np.float32, 4 * m * n)
    want = model(a, b, None, 16)
    for it in range(2):  # ORDER_M: the two blocks down M
        np.testing.assert_array_equal(got[it * bm * bn:(it + 1) * bm * bn].reshape(bm, bn),
                                      want[it * bm:(it + 1) * bm])


@pytest.mark.parametrize(("mode", "error", "text"), [
    (10, rt.SimulatorError, "the Matmul has no tiling: register it with REGIST_MATMUL_OBJ"),
    (11, rt.SimulatorError, "A is not set: call SetTensorA first"),
    (12, rt.GlobalMemoryOutOfBounds, "Matmul::IterateAll"),
    (13, rt.SimulatorError, "no block to get: call Iterate first"),
    (14, rt.SimulatorError, "isBias = 1 but no bias is set"),
])
def test_matmul_misuse_is_reported(lib: rt.KernelLibrary, mode: int, error: type[Exception],
                                   text: str) -> None:
    m, n, k = 32, 32, 32
    rng = np.random.default_rng(1)
    t = tiling(m, n, k, m, n, (16, 16, 16), bias=mode == 14)
    a = halves(rng, (m // 2, k) if mode == 12 else (m, k))  # 12: half of A's rows in GM
    with pytest.raises(error, match=text.replace("(", r"\(")):
        run(lib, mode, t, a, halves(rng, (k, n)), np.zeros(n, np.float32), np.float32, m * n)
