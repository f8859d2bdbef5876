"""The advanced Matmul API (lib/matmul_intf.h, opgen_sim/matmul.h): Matmul objects registered with
REGIST_MATMUL_OBJ and a TCubeTiling, run by IterateAll or by Iterate + GetTensorC (to GM, to UB
in sequential-write mode, asynchronously), split over cores by the tiling's singleCoreM/N with
SetTail for the last cores, with a bias, transposed A or B, half/float, int8_t/int32_t and
half/half types, against a numpy model of the simulator's documented accumulation (each K block
of one 32-byte fractal row summed in the accumulator type in order, each block's sum added to C
starting from the bias); and the misuse it reports."""

from __future__ import annotations

import re
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


# The forms the asc-devkit Matmul samples use beyond Iterate/IterateAll: batched Matmul
# (IterateBatch over the NORMAL and BSNGD layouts, IterateNBatch into the workspace), a constant
# tiling (GetMatmulApiTiling, REGIST_MATMUL_OBJ with a null tiling), C in ND_ALIGN, a CopyA1
# callback, the upper-triangular policy, K split over two cores with atomic adds, and the misuse
# of the batched forms. The configuration names are written unqualified, as CANN declares them at
# global scope.
KERNEL2_CPP = r"""
#include "kernel_operator.h"
#include "lib/matmul_intf.h"
using namespace AscendC;

struct Args {
    int32_t mode;
    int32_t pad[3];
    TCubeTiling cube;
};

using AT = MatmulType<TPosition::GM, CubeFormat::ND, half>;
using CT = MatmulType<TPosition::GM, CubeFormat::ND, float>;

constexpr MatmulConfig CFG_NBATCH = GetMMConfig<MatmulConfigMode::CONFIG_NORM>(
    MatmulBatchParams{true, BatchMode::BATCH_LESS_THAN_L1, false});
constexpr MatmulShapeParams SHAPE_PARAMS = {32, 48, 64, 16, 16, 32};
constexpr MatmulApiStaticTiling CONST_TILING =
    GetMatmulApiTiling<AT, AT, CT, CT>(GetMMConfig<MatmulConfigMode::CONFIG_MDL>(SHAPE_PARAMS));
static_assert(CONST_TILING.singleCoreM == 32 && CONST_TILING.baseK == 32 &&
                  CONST_TILING.cfg.doMultiDataLoad,
              "GetMatmulApiTiling keeps the shape parameters");

// CopyA1: tile (row, col) of A [M, K] (rows of tilingPtr = K) read from dataPtr, 16 x 16 tiles.
__aicore__ inline void LoadATile(const LocalTensor<int8_t>& aMatrix, const __gm__ void* gm, int row,
                                 int col, int useM, int useK, const uint64_t tilingPtr,
                                 const uint64_t dataPtr)
{
    (void)gm;
    GlobalTensor<half> src;
    src.SetGlobalBuffer(reinterpret_cast<__gm__ half*>(dataPtr));
    Nd2NzParams p;
    p.ndNum = 1;
    p.nValue = useM;
    p.dValue = useK;
    p.srcNdMatrixStride = 0;
    p.srcDValue = static_cast<uint16_t>(tilingPtr);
    p.dstNzC0Stride = (useM + 15) / 16 * 16;
    p.dstNzNStride = 1;
    p.dstNzMatrixStride = 0;
    DataCopy(aMatrix.ReinterpretCast<half>(), src[row * 16 * tilingPtr + col * 16], p);
}

template <class A, class B, class C, class BIAS, const auto& CFG = CFG_NORM,
          class CB = MatmulCallBackFunc<nullptr, nullptr, nullptr>,
          template <const auto&, typename...> class POLICY = AscendC::Impl::Detail::MatmulPolicy>
using MM = Matmul<A, B, C, BIAS, CFG, CB, POLICY>;

extern "C" __global__ __aicore__ void mm2_test(GM_ADDR a, GM_ADDR b, GM_ADDR bias, GM_ADDR c,
                                               GM_ADDR workspace, GM_ADDR tiling)
{
    Args args;
    const uint32_t* words = reinterpret_cast<const uint32_t*>(tiling);
    uint32_t* dst = reinterpret_cast<uint32_t*>(&args);
    for (uint32_t i = 0; i < sizeof(Args) / 4; ++i) dst[i] = words[i];
    TCubeTiling& t = args.cube;
    TPipe pipe;
    GlobalTensor<half> ag, bg, hbias;
    GlobalTensor<float> cg, fbias;
    ag.SetGlobalBuffer((__gm__ half*)a);
    bg.SetGlobalBuffer((__gm__ half*)b);
    hbias.SetGlobalBuffer((__gm__ half*)bias);
    fbias.SetGlobalBuffer((__gm__ float*)bias);
    cg.SetGlobalBuffer((__gm__ float*)c);
    const int32_t mode = args.mode;
    if (mode == 20 || mode == 29) {  // NORMAL batches: A [2, M, K], B [4, K, N], bias [4, N]
        using L = MatmulType<TPosition::GM, CubeFormat::ND, half, false, LayoutMode::NORMAL>;
        using LC = MatmulType<TPosition::GM, CubeFormat::ND, float, false, LayoutMode::NORMAL>;
        MM<L, L, LC, CT> mm;
        REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t);
        mm.SetTensorA(ag);
        mm.SetTensorB(bg);
        mm.SetBias(fbias);
        mm.IterateBatch(cg, 2, mode == 20 ? 4 : 3, false);
    } else if (mode == 21 || mode == 22 || mode == 28) {  // BSNGD, B transposed
        using LA = MatmulType<TPosition::GM, CubeFormat::ND, half, false, LayoutMode::BSNGD>;
        using LB = MatmulType<TPosition::GM, CubeFormat::ND, half, true, LayoutMode::BSNGD>;
        using LC = MatmulType<TPosition::GM, CubeFormat::ND, float, false, LayoutMode::BSNGD>;
        if (mode == 21) {
            MM<LA, LB, LC, CT> mm;
            REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t);
            mm.SetTensorA(ag, false);
            mm.SetTensorB(bg, true);
            mm.IterateBatch(cg, 3, 3, false);
        } else if (mode == 22) {
            MM<LA, LB, LC, CT, CFG_NBATCH> mm;
            REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t);
            mm.SetTensorA(ag, false);
            mm.SetTensorB(bg, true);
            mm.SetWorkspace(cg);
            mm.IterateNBatch(2, 3, 3, false);
        } else {
            MM<LA, LB, LC, CT> mm;  // not isNBatch
            REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t);
            mm.SetTensorA(ag, false);
            mm.SetTensorB(bg, true);
            mm.SetWorkspace(cg);
            mm.IterateNBatch(2, 3, 3, false);
        }
    } else if (mode == 23) {  // constant tiling, no runtime tiling
        MM<AT, AT, CT, CT, CONST_TILING> mm;
        REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, (TCubeTiling*)nullptr);
        mm.SetOrgShape(32, 48, 64);
        mm.SetTensorA(ag);
        mm.SetTensorB(bg);
        mm.IterateAll(cg);
    } else if (mode == 24) {  // C in ND_ALIGN
        MM<AT, AT, MatmulType<TPosition::GM, CubeFormat::ND_ALIGN, float>, CT> mm;
        REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t);
        mm.SetTensorA(ag);
        mm.SetTensorB(bg);
        mm.IterateAll(cg);
    } else if (mode == 25) {  // CopyA1: A is in `bias`, `a` holds zeros
        MM<AT, AT, CT, CT, CFG_NORM, MatmulCallBackFunc<nullptr, LoadATile, nullptr>> mm;
        REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t);
        mm.SetUserDefInfo(t.Ka);
        mm.SetSelfDefineData(reinterpret_cast<uint64_t>(hbias.GetPhyAddr()));
        mm.SetTensorA(ag);
        mm.SetTensorB(bg);
        mm.IterateAll(cg);
    } else if (mode == 26) {  // upper triangle
        MM<AT, AT, CT, CT, CFG_NORM, MatmulCallBackFunc<nullptr, nullptr, nullptr>,
           AscendC::Impl::Detail::TrianUpperMatmulPolicy> mm;
        REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t);
        mm.SetTensorA(ag);
        mm.SetTensorB(bg);
        mm.IterateAll(cg);
    } else if (mode == 30) {  // A, B and C column-major
        using CM = MatmulType<TPosition::GM, CubeFormat::COLUMN_MAJOR, half>;
        MM<CM, CM, MatmulType<TPosition::GM, CubeFormat::COLUMN_MAJOR, float>, CT> mm;
        REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t);
        mm.SetTensorA(ag);
        mm.SetTensorB(bg);
        mm.IterateAll(cg);
    } else if (mode == 31) {  // SplitM: each AIV core gets half of every block's rows in UB
        MM<AT, AT, MatmulType<TPosition::VECIN, CubeFormat::ND, float>, CT, CFG_NORM,
           MatmulCallBackFunc<nullptr, nullptr, nullptr>,
           AscendC::Impl::Detail::SplitMMatmulPolicy> mm;
        REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t);
        mm.SetTensorA(ag);
        mm.SetTensorB(bg);
        TQue<TPosition::VECIN, 1> q;
        pipe.InitBuffer(q, 1, t.baseM / 2 * t.baseN * sizeof(float));
        const int32_t sub = GetSubBlockIdx();
        int32_t blk = 0;
        while (mm.Iterate()) {  // blocks down M (iterateOrder 0), one column of blocks
            LocalTensor<float> ub = q.AllocTensor<float>();
            mm.GetTensorC(ub, 0, true);
            q.EnQue(ub);
            ub = q.DeQue<float>();
            DataCopy(cg[(blk * t.baseM + sub * t.baseM / 2) * t.N], ub, t.baseM / 2 * t.N);
            q.FreeTensor(ub);
            ++blk;
        }
    } else if (mode == 27) {  // K split over the two cores, C added atomically
        const int32_t i = GetBlockIdx();
        // CANN's scalar Ceil, and its uint16_t CeilDiv (ops-math's add_lora calls it)
        if (i >= AscendC::Ceil(t.Ka, t.singleCoreK) || i >= CeilDiv(t.Ka, t.singleCoreK)) return;
        MM<AT, AT, CT, CT> mm;
        REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t);
        mm.SetTensorA(ag[i * t.singleCoreK]);
        mm.SetTensorB(bg[i * t.singleCoreK * t.N]);
        mm.IterateAll(cg, 1);
    }
}
"""


@pytest.fixture(scope="module")
def lib2(tmp_path_factory: pytest.TempPathFactory) -> rt.KernelLibrary:
    src = Path(tmp_path_factory.mktemp("matmul2")) / "mm2_test.cpp"
    src.write_text(KERNEL2_CPP)
    return rt.build_kernel(src, entry="mm2_test")


def run2(lib2: rt.KernelLibrary, mode: int, t: np.ndarray, a: np.ndarray, b: np.ndarray,
         extra: np.ndarray, c_count: int, fill: float = 0.0) -> np.ndarray:
    """One launch of mm2_test (one block: two AIV cores) with C filled with `fill` first."""
    gm = [rt.gm_empty(x.size, x.dtype) for x in (a, b, extra)]
    for g, x in zip(gm, (a, b, extra), strict=True):
        g[...] = x.reshape(-1)
    c = rt.gm_empty(c_count, np.float32)
    c[...] = fill
    head = np.array([mode, 0, 0, 0], np.int32)
    rt.launch(lib2, "mm2_test", [*gm, c], block_dim=1, tiling=head.tobytes() + t.tobytes(),
              workspace_size=16 << 20)
    return np.asarray(c).copy()


def layouts(t: np.ndarray, a: tuple[int, ...], b: tuple[int, ...], c: tuple[int, ...],
            batch: int) -> np.ndarray:
    t[33:38], t[38:43], t[43:48], t[48] = a, b, c, batch
    return t


def small_ints(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    """Halves holding small integers: every product and sum is exact in float."""
    return rng.integers(-4, 5, shape).astype(np.float16)


def test_iterate_batch_normal_layout_repeats_the_fewer_batches(lib2: rt.KernelLibrary) -> None:
    m, n, k = 32, 16, 48
    rng = np.random.default_rng(20)
    a, b = halves(rng, (2, m, k)), halves(rng, (4, k, n))
    bias = rng.standard_normal((4, n)).astype(np.float32)
    t = tiling(m, n, k, m, n, (16, 16, 16), bias=True)
    got = run2(lib2, 20, t, a, b, bias, 4 * m * n).reshape(4, m, n)
    for c in range(4):  # batchA 2, batchB 4: C batch c takes A batch c // 2
        np.testing.assert_array_equal(got[c], model(a[c // 2], b[c], bias[c], 16))


def test_iterate_batch_bsngd_takes_one_d_slice_per_batch(lib2: rt.KernelLibrary) -> None:
    s1, s2, d, g = 32, 16, 32, 3
    rng = np.random.default_rng(21)
    a = halves(rng, (1, s1, 1, g, d))  # A batch j: [S1, D] rows of G * D
    b = halves(rng, (1, s2, 1, g, d))  # transposed B batch j: [S2, D]
    t = layouts(tiling(s1, s2, d, s1, s2, (16, 16, 16)), (1, s1, 1, g, d), (1, s2, 1, g, d),
                (1, s1, 1, g, s2), g)
    got = run2(lib2, 21, t, a, b, np.zeros(1, np.float32), s1 * g * s2).reshape(s1, g, s2)
    for j in range(g):
        np.testing.assert_array_equal(got[:, j, :], model(a[0, :, 0, j], b[0, :, 0, j].T, None, 16))


def test_iterate_n_batch_writes_every_call_into_the_workspace(lib2: rt.KernelLibrary) -> None:
    s1, s2, d, g = 16, 32, 16, 6
    rng = np.random.default_rng(22)
    a, b = halves(rng, (1, s1, 1, g, d)), halves(rng, (1, s2, 1, g, d))
    t = layouts(tiling(s1, s2, d, s1, s2, (16, 16, 16)), (1, s1, 1, g, d), (1, s2, 1, g, d),
                (1, s1, 1, g, s2), 3)
    # two calls of three batches: G slices 0-2, then 3-5
    got = run2(lib2, 22, t, a, b, np.zeros(1, np.float32), s1 * g * s2).reshape(s1, g, s2)
    for j in range(g):
        np.testing.assert_array_equal(got[:, j, :], model(a[0, :, 0, j], b[0, :, 0, j].T, None, 16))


def test_a_constant_tiling_needs_no_runtime_tiling(lib2: rt.KernelLibrary) -> None:
    m, n, k = 32, 48, 64  # the kernel's MatmulShapeParams
    rng = np.random.default_rng(23)
    a, b = halves(rng, (m, k)), halves(rng, (k, n))
    got = run2(lib2, 23, np.zeros(50, np.int32), a, b, np.zeros(1, np.float32), m * n)
    np.testing.assert_array_equal(got.reshape(m, n), model(a, b, None, 16))


def test_nd_align_c_pads_its_rows_to_32_bytes(lib2: rt.KernelLibrary) -> None:
    m, n, k = 32, 20, 32
    rng = np.random.default_rng(24)
    a, b = halves(rng, (m, k)), halves(rng, (k, n))
    t = tiling(m, n, k, m, n, (16, 16, 16))
    got = run2(lib2, 24, t, a, b, np.zeros(1, np.float32), m * 24, fill=7.0).reshape(m, 24)
    np.testing.assert_array_equal(got[:, :n], model(a, b, None, 16))
    np.testing.assert_array_equal(got[:, n:], 0)  # 20 floats padded to 24, the padding zero


def test_a_copy_a1_callback_supplies_a(lib2: rt.KernelLibrary) -> None:
    m, n, k = 48, 32, 40  # 16 x 16 tiles, the last K tile 8 wide
    rng = np.random.default_rng(25)
    a, b = halves(rng, (m, k)), halves(rng, (k, n))
    t = tiling(m, n, k, m, n, (16, 16, 16))
    got = run2(lib2, 25, t, np.zeros((m, k), np.float16), b, a, m * n)
    np.testing.assert_array_equal(got.reshape(m, n), model(a, b, None, 16))


def test_the_upper_triangular_policy_leaves_blocks_below_the_diagonal(
        lib2: rt.KernelLibrary) -> None:
    m, n, k = 48, 48, 32
    rng = np.random.default_rng(26)
    a, b = halves(rng, (m, k)), halves(rng, (k, n))
    t = tiling(m, n, k, m, n, (16, 16, 16))
    got = run2(lib2, 26, t, a, b, np.zeros(1, np.float32), m * n, fill=-5.0).reshape(m, n)
    want = model(a, b, None, 16)
    for mi in range(3):
        for ni in range(3):
            block = got[mi * 16:(mi + 1) * 16, ni * 16:(ni + 1) * 16]
            if mi > ni:
                np.testing.assert_array_equal(block, -5.0)
            else:
                np.testing.assert_array_equal(block, want[mi * 16:(mi + 1) * 16,
                                                          ni * 16:(ni + 1) * 16])


def test_column_major_operands_are_stored_by_columns(lib2: rt.KernelLibrary) -> None:
    m, n, k = 48, 32, 40
    rng = np.random.default_rng(30)
    a, b = halves(rng, (m, k)), halves(rng, (k, n))
    t = tiling(m, n, k, m, n, (16, 16, 16))
    got = run2(lib2, 30, t, np.asfortranarray(a).ravel(order="K"),
               np.asfortranarray(b).ravel(order="K"), np.zeros(1, np.float32), m * n)
    np.testing.assert_array_equal(got.reshape(n, m).T, model(a, b, None, 16))


def test_split_m_gives_each_vector_core_half_of_every_block(lib2: rt.KernelLibrary) -> None:
    m, n, k = 64, 16, 32  # two 32 x 16 blocks; each core gets 16 rows of each
    rng = np.random.default_rng(31)
    a, b = halves(rng, (m, k)), halves(rng, (k, n))
    t = tiling(m, n, k, m, n, (32, 16, 16))
    got = run2(lib2, 31, t, a, b, np.zeros(1, np.float32), m * n, fill=-1.0)
    np.testing.assert_array_equal(got.reshape(m, n), model(a, b, None, 16))


def test_k_split_over_cores_adds_atomically(lib2: rt.KernelLibrary) -> None:
    m, n, k = 32, 32, 64
    rng = np.random.default_rng(27)
    a, b = small_ints(rng, (m, k)), small_ints(rng, (k, n))
    t = tiling(m, n, k, m, n, (16, 16, 16))
    t[7] = k // 2  # singleCoreK: each core half of K
    got = run2(lib2, 27, t, a, b, np.zeros(1, np.float32), m * n, fill=1.0).reshape(m, n)
    want = a.astype(np.float64) @ b.astype(np.float64) + 1.0  # exact: small integers
    np.testing.assert_array_equal(got, want.astype(np.float32))


@pytest.mark.parametrize(("mode", "text"), [
    (28, "IterateNBatch needs MatmulConfig.isNBatch = true"),
    (29, "batchA 2 and batchB 3 must be positive and one a multiple of the other"),
])
def test_batched_misuse_is_reported(lib2: rt.KernelLibrary, mode: int, text: str) -> None:
    t = layouts(tiling(16, 16, 16, 16, 16, (16, 16, 16), bias=True), (1, 16, 1, 6, 16),
                (1, 16, 1, 6, 16), (1, 16, 1, 6, 16), 3)
    z = np.zeros(6 * 16 * 16, np.float16)
    with pytest.raises(rt.SimulatorError, match=re.escape(text)):
        run2(lib2, mode, t, z, z, np.zeros(6 * 16, np.float32), 6 * 16 * 16)


# The pure-cube unit (ASCENDC_CUBE_ONLY): IterateBatch takes its batch counts from SetBatchNum.
KERNEL3_CPP = r"""
#define ASCENDC_CUBE_ONLY
#include "kernel_operator.h"
#include "lib/matmul_intf.h"
using namespace AscendC;

extern "C" __global__ __aicore__ void mm3_test(GM_ADDR a, GM_ADDR b, GM_ADDR c, GM_ADDR workspace,
                                               GM_ADDR tiling)
{
    TCubeTiling t;
    const uint32_t* words = reinterpret_cast<const uint32_t*>(tiling);
    uint32_t* dst = reinterpret_cast<uint32_t*>(&t);
    for (uint32_t i = 0; i < sizeof(TCubeTiling) / 4; ++i) dst[i] = words[i];
    TPipe pipe;
    GlobalTensor<half> ag, bg;
    GlobalTensor<float> cg;
    ag.SetGlobalBuffer((__gm__ half*)a);
    bg.SetGlobalBuffer((__gm__ half*)b);
    cg.SetGlobalBuffer((__gm__ float*)c);
    using L = MatmulType<TPosition::GM, CubeFormat::ND, half, false, LayoutMode::NORMAL>;
    using LC = MatmulType<TPosition::GM, CubeFormat::ND, float, false, LayoutMode::NORMAL>;
    Matmul<L, L, LC> mm;
    REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t);
    mm.SetTensorA(ag);
    mm.SetTensorB(bg);
    mm.SetBatchNum(3, 1);  // B broadcast over A's three batches
    mm.IterateBatch(cg, false, 0, false);
}
"""


def test_pure_cube_iterate_batch_takes_the_counts_of_set_batch_num(
        tmp_path_factory: pytest.TempPathFactory) -> None:
    src = Path(tmp_path_factory.mktemp("matmul3")) / "mm3_test.cpp"
    src.write_text(KERNEL3_CPP)
    lib3 = rt.build_kernel(src, entry="mm3_test")
    m, n, k = 16, 32, 32
    rng = np.random.default_rng(32)
    a, b = halves(rng, (3, m, k)), halves(rng, (k, n))
    t = tiling(m, n, k, m, n, (16, 16, 16))
    t[48] = 5  # the tiling's BatchNum, which SetBatchNum replaces
    gm = [rt.gm_empty(x.size, x.dtype) for x in (a, b)]
    for g, x in zip(gm, (a, b), strict=True):
        g[...] = x.reshape(-1)
    c = rt.gm_empty(4 * m * n, np.float32)
    c[...] = -1.0
    rt.launch(lib3, "mm3_test", [*gm, c], block_dim=1, tiling=t.tobytes(),
              workspace_size=16 << 20)
    got = np.asarray(c).reshape(4, m, n)
    for i in range(3):
        np.testing.assert_array_equal(got[i], model(a[i], b, None, 16))
    np.testing.assert_array_equal(got[3], -1.0)  # three batches, not the tiling's five
