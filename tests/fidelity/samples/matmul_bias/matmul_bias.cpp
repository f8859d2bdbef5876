/* C = A x B + bias (half, half -> float) with the advanced Matmul API: a mix kernel whose two
 * vector cores per block each take their part of C by the tiling's core split (CalcOffsets), the
 * last cores' tails set with SetTail. */
#include "kernel_operator.h"
#include "lib/matmul_intf.h"

__aicore__ inline void CalcOffsets(int32_t core, const TCubeTiling& t, int32_t& a, int32_t& b,
                                   int32_t& c, int32_t& rows, int32_t& cols)
{
    const int32_t mCores = (t.M + t.singleCoreM - 1) / t.singleCoreM;
    const int32_t mi = core % mCores, ni = core / mCores;
    a = mi * t.singleCoreM * t.Ka;
    b = ni * t.singleCoreN;
    c = mi * t.singleCoreM * t.N + ni * t.singleCoreN;
    rows = t.M - mi * t.singleCoreM < t.singleCoreM ? t.M - mi * t.singleCoreM : t.singleCoreM;
    cols = t.N - ni * t.singleCoreN < t.singleCoreN ? t.N - ni * t.singleCoreN : t.singleCoreN;
}

extern "C" __global__ __aicore__ void matmul_bias(GM_ADDR a, GM_ADDR b, GM_ADDR bias, GM_ADDR c,
                                                  GM_ADDR workspace, GM_ADDR tilingGm)
{
    TCubeTiling t;
    auto* words = reinterpret_cast<__gm__ int32_t*>(tilingGm);
    auto* into = reinterpret_cast<int32_t*>(&t);
    for (uint32_t i = 0; i < sizeof(TCubeTiling) / sizeof(int32_t); ++i) into[i] = words[i];
    if (AscendC::GetBlockIdx() >= t.usedCoreNum) return;
    AscendC::TPipe pipe;
    AscendC::GlobalTensor<half> aGm, bGm;
    AscendC::GlobalTensor<float> cGm, biasGm;
    aGm.SetGlobalBuffer(reinterpret_cast<__gm__ half*>(a), t.M * t.Ka);
    bGm.SetGlobalBuffer(reinterpret_cast<__gm__ half*>(b), t.Kb * t.N);
    cGm.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(c), t.M * t.N);
    biasGm.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(bias), t.N);
    matmul::Matmul<matmul::MatmulType<AscendC::TPosition::GM, CubeFormat::ND, half>,
                   matmul::MatmulType<AscendC::TPosition::GM, CubeFormat::ND, half>,
                   matmul::MatmulType<AscendC::TPosition::GM, CubeFormat::ND, float>,
                   matmul::MatmulType<AscendC::TPosition::GM, CubeFormat::ND, float>> mm;
    REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t);
    int32_t offA = 0, offB = 0, offC = 0, rows = 0, cols = 0;
    CalcOffsets(AscendC::GetBlockIdx(), t, offA, offB, offC, rows, cols);
    mm.SetTensorA(aGm[offA]);
    mm.SetTensorB(bGm[offB]);
    mm.SetBias(biasGm[offB]);
    mm.SetTail(rows, cols);
    mm.IterateAll(cGm[offC]);
    mm.End();
}
