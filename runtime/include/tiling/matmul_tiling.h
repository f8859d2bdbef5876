// opgen host runtime: the host side of CANN's advanced Matmul API, as asc-devkit's
// adv_api/matmul/matmul_tiling.h, bmm_tiling.h, matmul_tiling_base.h and matmul_tilingdata.h
// declare it (tiling/tiling_api.h includes this): the tiling class optiling::TCubeTiling (the 50
// int32_t fields of the kernel's TCubeTiling, kernel_tiling/matmul_tiling_data.h, in its order, so
// SaveToBuffer writes that struct); namespace matmul_tiling with its enums (TPosition, CubeFormat,
// DataType, MatrixTraverse, MatrixMadType, DequantType, ScheduleType), MatmulApiTiling (one core)
// and MultiCoreMatmulTiling (SetDim cores) with their setters, GetTiling in its optiling:: and
// AscendC::tiling:: forms, GetBaseM/N/K, GetSingleShape and GetCoreNum.
//
// GetTiling makes the decisions of asc-devkit's host algorithm (impl/adv_api/tiling/matmul/
// matmul_tiling_algorithm.cpp, matmul_tiling_base.cpp, bmm_tiling.cpp, math_util.cpp), so a
// sample's kernel, which hard-codes offsets from singleCoreM/N and baseM/N, gets the split CANN
// gives: the cores split between M and N (the candidates' load sizes, or without SetShape on the
// A2/A3 the basic block's compute intensity), the per-core shapes in 16-row fractals, baseM/N/K
// from a search over the L0A/L0B/L0C sizes (SetFixSplit's baseM and baseN are kept; its baseK,
// which the reference page says must be -1, is only checked against L0A/L0B, as CANN does), the
// L1 plan (depthA1/B1, stepM/N/Ka/Kb: both matrices, one or neither held whole), iterateOrder,
// the L0 double buffers and the used sizes. The figures are the platform's: L1, L0A, L0B, L0C
// and UB from PlatformAscendC::GetCoreMemSize, the bias table 1 KiB on the A2/A3 and 310B (as in
// CANN's host algorithm); the default constructor takes CANN's A2 figures (L1 and UB less 256
// reserved bytes).
//
// A tiling GetTiling returns satisfies the reference page "TCubeTiling结构体" (table 2) for the
// simulated SoC: base blocks within L0A/L0B/L0C and the bias table, the L1 plan within L1,
// depthA1 = stepM * stepKa * db, baseM/baseN multiples of 16, baseK of A's C0 (the page's "<" read
// as "<=": its own recommended 128 x 256 block fills L0C exactly). A request that cannot be met
// (a fixed base block larger than L0A/L0B/L0C, a shape with nothing to plan, a base block the
// search cannot fit) returns -1 and prints the reason as the other tiling functions do; CANN
// logs it. Not modelled (an error naming it): MxMatmul (MatrixMadType::MXMODE), sparse A,
// ScheduleType::N_BUFFER_33; the 310P's UB ND2NZ (enVecND2NZ) and L1 cache of UB (enableL1CacheUB)
// plan as without them. EnableL1BankConflictOptimise is not declared.
#pragma once

#include <algorithm>
#include <array>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <iostream>  // the samples' tiling code prints with std::cout, which CANN's headers declare
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "../kernel_tiling/kernel_tiling.h"
#include "math_tmp_size.h"
#include "platform/platform_ascendc.h"
#if defined(OPGEN_ASC_SOURCE)
#include "../opgen_host/host_log.h"
#else
#include "../opgen_host/tiling_def.h"
#endif

namespace optiling {

BEGIN_TILING_DATA_DEF(TCubeTiling)
TILING_DATA_FIELD_DEF(int32_t, usedCoreNum);
TILING_DATA_FIELD_DEF(int32_t, M);
TILING_DATA_FIELD_DEF(int32_t, N);
TILING_DATA_FIELD_DEF(int32_t, Ka);
TILING_DATA_FIELD_DEF(int32_t, Kb);
TILING_DATA_FIELD_DEF(int32_t, singleCoreM);
TILING_DATA_FIELD_DEF(int32_t, singleCoreN);
TILING_DATA_FIELD_DEF(int32_t, singleCoreK);
TILING_DATA_FIELD_DEF(int32_t, baseM);
TILING_DATA_FIELD_DEF(int32_t, baseN);
TILING_DATA_FIELD_DEF(int32_t, baseK);
TILING_DATA_FIELD_DEF(int32_t, depthA1);
TILING_DATA_FIELD_DEF(int32_t, depthB1);
TILING_DATA_FIELD_DEF(int32_t, stepM);
TILING_DATA_FIELD_DEF(int32_t, stepN);
TILING_DATA_FIELD_DEF(int32_t, isBias);
TILING_DATA_FIELD_DEF(int32_t, transLength);
TILING_DATA_FIELD_DEF(int32_t, iterateOrder);
TILING_DATA_FIELD_DEF(int32_t, shareMode);
TILING_DATA_FIELD_DEF(int32_t, shareL1Size);
TILING_DATA_FIELD_DEF(int32_t, shareL0CSize);
TILING_DATA_FIELD_DEF(int32_t, shareUbSize);
TILING_DATA_FIELD_DEF(int32_t, batchM);
TILING_DATA_FIELD_DEF(int32_t, batchN);
TILING_DATA_FIELD_DEF(int32_t, singleBatchM);
TILING_DATA_FIELD_DEF(int32_t, singleBatchN);
TILING_DATA_FIELD_DEF(int32_t, stepKa);
TILING_DATA_FIELD_DEF(int32_t, stepKb);
TILING_DATA_FIELD_DEF(int32_t, depthAL1CacheUB);
TILING_DATA_FIELD_DEF(int32_t, depthBL1CacheUB);
TILING_DATA_FIELD_DEF(int32_t, dbL0A);
TILING_DATA_FIELD_DEF(int32_t, dbL0B);
TILING_DATA_FIELD_DEF(int32_t, dbL0C);
TILING_DATA_FIELD_DEF(int32_t, ALayoutInfoB);
TILING_DATA_FIELD_DEF(int32_t, ALayoutInfoS);
TILING_DATA_FIELD_DEF(int32_t, ALayoutInfoN);
TILING_DATA_FIELD_DEF(int32_t, ALayoutInfoG);
TILING_DATA_FIELD_DEF(int32_t, ALayoutInfoD);
TILING_DATA_FIELD_DEF(int32_t, BLayoutInfoB);
TILING_DATA_FIELD_DEF(int32_t, BLayoutInfoS);
TILING_DATA_FIELD_DEF(int32_t, BLayoutInfoN);
TILING_DATA_FIELD_DEF(int32_t, BLayoutInfoG);
TILING_DATA_FIELD_DEF(int32_t, BLayoutInfoD);
TILING_DATA_FIELD_DEF(int32_t, CLayoutInfoB);
TILING_DATA_FIELD_DEF(int32_t, CLayoutInfoS1);
TILING_DATA_FIELD_DEF(int32_t, CLayoutInfoN);
TILING_DATA_FIELD_DEF(int32_t, CLayoutInfoG);
TILING_DATA_FIELD_DEF(int32_t, CLayoutInfoS2);
TILING_DATA_FIELD_DEF(int32_t, BatchNum);
TILING_DATA_FIELD_DEF(int32_t, mxTypePara);
END_TILING_DATA_DEF;

}  // namespace optiling

// The 50 fields, in order, for copying a plan into either TCubeTiling.
#define OPGEN_TCUBE_TILING_FIELDS(X)                                                              \
    X(usedCoreNum) X(M) X(N) X(Ka) X(Kb) X(singleCoreM) X(singleCoreN) X(singleCoreK) X(baseM)   \
    X(baseN) X(baseK) X(depthA1) X(depthB1) X(stepM) X(stepN) X(isBias) X(transLength)           \
    X(iterateOrder) X(shareMode) X(shareL1Size) X(shareL0CSize) X(shareUbSize) X(batchM)         \
    X(batchN) X(singleBatchM) X(singleBatchN) X(stepKa) X(stepKb) X(depthAL1CacheUB)              \
    X(depthBL1CacheUB) X(dbL0A) X(dbL0B) X(dbL0C) X(ALayoutInfoB) X(ALayoutInfoS) X(ALayoutInfoN) \
    X(ALayoutInfoG) X(ALayoutInfoD) X(BLayoutInfoB) X(BLayoutInfoS) X(BLayoutInfoN)               \
    X(BLayoutInfoG) X(BLayoutInfoD) X(CLayoutInfoB) X(CLayoutInfoS1) X(CLayoutInfoN)              \
    X(CLayoutInfoG) X(CLayoutInfoS2) X(BatchNum) X(mxTypePara)

namespace matmul_tiling {

// Element sizes in bytes, and the fractal's 16 rows of 32 bytes.
constexpr int32_t UINT8_BYTES = 1, INT8_BYTES = 1, FP16_BYTES = 2, FP32_BYTES = 4;
constexpr int32_t C0_SIZE = 16, C0_BYTE_SIZE = 32, BITS_PER_BYTE = 8;

// CANN's numbering (matmul_tiling_base.h), which differs from ge::DataType's.
enum class DataType : int32_t {
    DT_FLOAT = 0,
    DT_FLOAT16 = 1,
    DT_INT8 = 2,
    DT_INT32 = 3,
    DT_UINT8 = 4,
    DT_INT16 = 6,
    DT_UINT16 = 7,
    DT_UINT32 = 8,
    DT_INT64 = 9,
    DT_UINT64 = 10,
    DT_DOUBLE = 11,
    DT_BOOL = 12,
    DT_STRING = 13,
    DT_DUAL_SUB_INT8 = 14,
    DT_DUAL_SUB_UINT8 = 15,
    DT_COMPLEX64 = 16,
    DT_COMPLEX128 = 17,
    DT_QINT8 = 18,
    DT_QINT16 = 19,
    DT_QINT32 = 20,
    DT_QUINT8 = 21,
    DT_QUINT16 = 22,
    DT_RESOURCE = 23,
    DT_STRING_REF = 24,
    DT_DUAL = 25,
    DT_VARIANT = 26,
    DT_BF16 = 27,
    DT_UNDEFINED = 28,
    DT_INT4 = 29,
    DT_UINT1 = 30,
    DT_INT2 = 31,
    DT_UINT2 = 32,
    DT_BFLOAT16 = 33,
    DT_HIFLOAT8 = 34,
    DT_FLOAT8_E4M3FN = 35,
    DT_FLOAT8_E5M2 = 36,
    DT_FLOAT4_E2M1 = 37,
    DT_FLOAT8_E8M0 = 38,
    DT_FLOAT4_E1M2 = 39,
    DT_MAX = 40,
};

enum class TPosition : int32_t {
    GM,
    A1,
    A2,
    B1,
    B2,
    C1,
    C2,
    CO1,
    CO2,
    VECIN,
    VECOUT,
    VECCALC,
    LCM = VECCALC,
    SPM,
    SHM = SPM,
    TSCM,
    MAX,
};

enum class TilingPolicy : int32_t { FIXED_A_TSCM, FIXED_B_TSCM, FIXED_A_B_TSCM, NO_POLICY };

enum class CubeFormat : int32_t {
    ND = 0,
    NZ,
    ZN,
    ZZ,
    NN,
    ND_ALIGN,
    SCALAR,
    VECTOR,
    ROW_MAJOR = ND,
    COLUMN_MAJOR = 8,
};

// FIRSTM: along M first (iterateOrder 0); FIRSTN: along N first (1); NOSET: the tiling chooses.
enum class MatrixTraverse : int32_t { NOSET = 0, FIRSTM = 1, FIRSTN = 2 };
enum class MatrixMadType : int32_t { NORMAL = 0, HF32 = 1, MXMODE = 2 };
enum class DequantType : int32_t { SCALAR = 0, TENSOR = 1 };
enum class ScheduleType : int32_t { INNER_PRODUCT = 0, OUTER_PRODUCT = 1, N_BUFFER_33 = 2 };

struct SysTilingTempBufSize {
    int32_t ubSize = 0;
    int32_t l1Size = 0;
    int32_t l0cSize = 0;
};

struct MatTilingType {
    TPosition pos = TPosition::GM;
    CubeFormat type = CubeFormat::ND;
    DataType dataType = DataType::DT_FLOAT;
    bool isTrans = false;
    bool isDB = false;
    bool hasSetScaleType = false;
    TPosition scalePos = TPosition::GM;
    CubeFormat scaleType = CubeFormat::ND;
    bool isScaleTrans = false;
};

// The buffer sizes a plan may use (bytes), and the granules SetBufferSpace rounds them to.
struct BufferPool {
    int32_t l1Size = 0, l0CSize = 0, ubSize = 0, l0ASize = 0, l0BSize = 0, btSize = 0;
    int32_t l1AlignSize = 0, l0CAlignSize = 0, l0AAlignSize = 0, l0BAlignSize = 0,
            ubAlignSize = 0;
};

struct PlatformInfo {
    platform_ascendc::SocVersion socVersion = platform_ascendc::SocVersion::ASCEND910B;
    uint64_t l1Size = 0, l0CSize = 0, ubSize = 0, l0ASize = 0, l0BSize = 0;
};

struct MatmulConfigParams {
    int32_t mmConfigType;
    bool enableL1CacheUB;
    ScheduleType scheduleType;
    MatrixTraverse traverse;
    bool enVecND2NZ;
    MatmulConfigParams(int32_t mmConfigTypeIn = 1, bool enableL1CacheUBIn = false,
                       ScheduleType scheduleTypeIn = ScheduleType::INNER_PRODUCT,
                       MatrixTraverse traverseIn = MatrixTraverse::NOSET, bool enVecND2NZIn = false)
        : mmConfigType(mmConfigTypeIn),
          enableL1CacheUB(enableL1CacheUBIn),
          scheduleType(scheduleTypeIn),
          traverse(traverseIn),
          enVecND2NZ(enVecND2NZIn) {}
};

namespace plan_detail {

constexpr int32_t kFractalBytes = C0_SIZE * C0_BYTE_SIZE;  // one 16 x 32-byte fractal: 512
constexpr int32_t kL0cFractalBytes = C0_SIZE * C0_SIZE * FP32_BYTES;  // 16 x 16 float: 1024
constexpr int32_t kDbOn = 2;
constexpr int32_t kDbOff = 1;
constexpr int32_t kBiasTableBytes = 1024;  // the A2/A3 and 310B bias table
constexpr int32_t kA2L1Bytes = 512 * 1024 - 256;  // CANN's A2 defaults, 256 bytes reserved
constexpr int32_t kA2UbBytes = 192 * 1024 - 256;

// The bits of an element; 0 for a type the Matmul API does not take.
inline int32_t TypeBits(DataType t) {
    switch (t) {
        case DataType::DT_FLOAT: case DataType::DT_INT32: case DataType::DT_UINT32: return 32;
        case DataType::DT_FLOAT16: case DataType::DT_BF16: case DataType::DT_BFLOAT16:
        case DataType::DT_INT16: case DataType::DT_UINT16: return 16;
        case DataType::DT_INT8: case DataType::DT_UINT8: case DataType::DT_HIFLOAT8:
        case DataType::DT_FLOAT8_E4M3FN: case DataType::DT_FLOAT8_E5M2:
        case DataType::DT_FLOAT8_E8M0: return 8;
        case DataType::DT_INT4: case DataType::DT_FLOAT4_E2M1: case DataType::DT_FLOAT4_E1M2:
            return 4;
        case DataType::DT_INT64: case DataType::DT_UINT64: return 64;
        default: return 0;
    }
}
// The bytes of an element, a 4-bit type counting one.
inline int32_t TypeBytes(DataType t) { return TypeBits(t) == 4 ? 1 : TypeBits(t) / 8; }

inline int64_t CeilDiv(int64_t a, int64_t b) { return b == 0 ? 0 : (a + b - 1) / b; }
inline int32_t CeilDiv32(int32_t a, int32_t b) { return static_cast<int32_t>(CeilDiv(a, b)); }
inline int32_t RoundUp(int32_t a, int32_t b) { return CeilDiv32(a, b) * b; }
inline int32_t RoundDown(int32_t a, int32_t b) { return b == 0 ? 0 : a / b * b; }
// A 64-bit intermediate back in int32_t range (CANN's int32_t arithmetic overflows there).
inline int32_t Clamp32(int64_t v) {
    return static_cast<int32_t>(std::min<int64_t>(INT32_MAX, std::max<int64_t>(INT32_MIN, v)));
}

// The power-of-two length CANN's host algorithm plans a length of fractals as: below 16 it
// stays; otherwise the power of two strictly below it (1024 at most), doubled when rounding up.
// 16 itself maps to 1024 (2048 rounded up), as CANN's search does.
inline int32_t SnapToPowerOfTwo(int32_t shape, bool roundUp = true) {
    if (shape < 16) return shape;
    int32_t pow2 = 16;
    while (pow2 < 1024 && !(pow2 < shape && 2 * pow2 >= shape)) pow2 *= 2;
    return roundUp ? 2 * pow2 : pow2;
}

// The divisors of `shape` in [from, to].
inline int32_t DivisorCount(int32_t shape, int32_t from, int32_t to) {
    int32_t n = 0;
    for (int32_t i = from; i <= to && i <= shape; ++i) {
        if (shape % i == 0) ++n;
    }
    return n;
}

// The most divisors any divisor of `shape` in [from, to] has.
inline int32_t MostDivisors(int32_t shape, int32_t from, int32_t to) {
    int32_t best = 0;
    for (int32_t f = to; f >= from; --f) {
        if (f > 0 && shape % f == 0) best = std::max(best, DivisorCount(f, 1, f + 1));
    }
    return best;
}

// A per-core length (in fractals) the L0/L1 search can split well: at most 8, or with more than 2
// divisor-rich factors up to 64 (and more than 4 up to 128 past 128).
inline bool SplitsWell(int32_t dim) {
    if (dim <= 8) return true;
    const int32_t l0 = MostDivisors(dim, 1, 64);
    const int32_t l1 = dim > 128 ? MostDivisors(dim, 65, 128) : 0;
    return !(l0 <= 2 || (dim > 128 && l0 + l1 <= 4));
}

// A core's share of `ori` fractals, walked from the even share toward the share of the mapped shape
// until it splits well; K takes the even share of whichever divides.
inline int32_t BestShare(int32_t ori, int32_t mapped, int32_t cores, bool isK) {
    if (isK) return CeilDiv32(ori % cores == 0 ? ori : mapped, cores);
    if (cores == 1 && SplitsWell(ori)) return ori;
    int32_t share = CeilDiv32(ori, cores);
    const int32_t target = CeilDiv32(mapped, cores);
    while (share != target) {
        if (SplitsWell(share)) return share;
        share += share < target ? 1 : -1;
    }
    return share;
}

// The smallest divisor of `dim` above `base` (at most upper), then the largest ones at or below
// `base`, two in all ({1, 1} for a dim of 1).
inline std::array<int32_t, 2> TwoFactors(int32_t base, int32_t dim, int32_t upper) {
    if (dim == 1) return {1, 1};
    std::vector<int32_t> picks;
    const int32_t top = std::min(upper, dim);
    int32_t above = base + 1;
    while (above <= top && dim % above != 0) ++above;
    if (above <= top) picks.push_back(above);
    for (int32_t below = base; below >= 1 && picks.size() < 2; --below) {
        if (dim % below == 0) picks.push_back(below);
    }
    picks.resize(2, 0);  // missing factors read 0
    return {picks[0], picks[1]};
}

// The largest power of two at most `base` (1 to 4096).
inline int32_t PowerOfTwoBelow(int32_t base) {
    int32_t v = 1;
    while (v < 4096 && 2 * v <= base) v *= 2;
    return v;
}

// Distinct values, largest first, as the reference's candidate lists are walked.
inline std::vector<int32_t> Descending(std::vector<int32_t> v) {
    std::sort(v.rbegin(), v.rend());
    v.erase(std::unique(v.begin(), v.end()), v.end());
    return v;
}

// a * b, or 0 when either is not positive or the product leaves int32_t.
inline int32_t PositiveProduct(int32_t a, int32_t b) {
    if (a <= 0 || b <= 0 || a > INT32_MAX / b) return 0;
    return a * b;
}

// The shape in fractal units: m and n in 16 rows, k in 32 bytes of A.
struct Fractals {
    int64_t oriM = 1, oriN = 1, oriKa = 1, oriKb = 1;
    int32_t batch = 1, m = 1, k = 1, n = 1;
    int32_t batchSnap = 1, mSnap = 1, kSnap = 1, nSnap = 1;
    bool kUneven = false;
};

// One core's share: its fractals and the core counts along each axis.
struct CoreShare {
    int32_t batch = 1, m = 1, k = 1, n = 1;
    int32_t batchCores = 1, mDim = 1, nDim = 1, kCores = 1;
};

// The base block in fractals: mBlk x nBlk of 16 rows, kBlk of 32 bytes.
struct L0Plan {
    int32_t mBlk = 1, nBlk = 1, kBlk = 1;
    int32_t dbL0A = 1, dbL0B = 1, dbL0C = 1;
    int32_t biasBytes = 0;
};

// The L1 plan: K fractals of A and B held, base blocks along M and N, buffers.
struct L1Plan {
    int32_t kHeldA = 1, kHeldB = 1, mBlocksA = 1, nBlocksB = 1, bufA = 1, bufB = 1;
    int32_t roomA = 0, roomB = 0, kStepsA = 1, kStepsB = 1, kStepsAll = 1;
    int32_t gmLoad = 0;
    int32_t capMBlocks = 1, capNBlocks = 1, capKStepsA = 1, capKStepsB = 1;
    bool bothHeldWhole = false, aHeldWhole = false, bHeldWhole = false;
    int32_t biasRows = 0;
    void Set(int32_t ka, int32_t kb, int32_t ma, int32_t nb, int32_t dba, int32_t dbb) {
        kHeldA = ka;
        kHeldB = kb;
        mBlocksA = ma;
        nBlocksB = nb;
        bufA = dba;
        bufB = dbb;
    }
};

// One of the four L1 modes' result (one row of the four-mode table).
struct L1Choice {
    int32_t kHeldA = 0, mBlocksA = 0, bufA = 0, kHeldB = 0, nBlocksB = 0, bufB = 0, gmLoad = 0;
};

// How the cores are split: the A2/A3 split of M x N without SetShape (a large or a small
// one), or the general search (a split keeping K whole is never chosen).
enum class Scenario { SplitMN, SplitSmallMN, Generic };

struct BaseBlock {
    int32_t baseM = 0, baseN = 0, baseK = 0;
};

class Planner;

}  // namespace plan_detail

class MatmulApiTilingBase {
public:
    MatmulApiTilingBase() { InitCommon(); }
    explicit MatmulApiTilingBase(const platform_ascendc::PlatformAscendC& ascendcPlatform) {
        InitCommon();
        socVersion = ascendcPlatform.GetSocVersion();
        using Mem = platform_ascendc::CoreMemType;
        // the platform's sizes, in the order ResetBuffers takes them
        const Mem kinds[] = {Mem::L1, Mem::L0_C, Mem::UB, Mem::L0_A, Mem::L0_B};
        std::array<uint64_t, 5> bytes{};
        for (size_t i = 0; i < bytes.size(); ++i) {
            ascendcPlatform.GetCoreMemSize(kinds[i], bytes[i]);
        }
        ResetBuffers(bytes[0], bytes[1], bytes[2], bytes[3], bytes[4]);
        coreCount_ = static_cast<int32_t>(
            std::max(ascendcPlatform.GetCoreNumAic(), ascendcPlatform.GetCoreNumAiv()));
    }
    explicit MatmulApiTilingBase(const PlatformInfo& platform) {
        InitCommon();
        socVersion = platform.socVersion;
        ResetBuffers(platform.l1Size, platform.l0CSize, platform.ubSize, platform.l0ASize,
                     platform.l0BSize);
    }
    virtual ~MatmulApiTilingBase() = default;

    // The operands' place, layout and element type (A and B also transposed or not).
    int32_t SetAType(TPosition pos, CubeFormat type, DataType dataType, bool isTrans = false) {
        return Describe(aType_, pos, type, dataType, isTrans);
    }
    int32_t SetBType(TPosition pos, CubeFormat type, DataType dataType, bool isTrans = false) {
        return Describe(bType_, pos, type, dataType, isTrans);
    }
    int32_t SetCType(TPosition pos, CubeFormat type, DataType dataType) {
        return Describe(cType_, pos, type, dataType, cType_.isTrans);
    }
    int32_t SetBiasType(TPosition pos, CubeFormat type, DataType dataType) {
        return Describe(biasType_, pos, type, dataType, biasType_.isTrans);
    }
    // The MX scale matrices' description (kept; MXMODE itself is not modelled).
    int32_t SetScaleAType(TPosition scalePos, CubeFormat scaleType, bool isScaleTrans = false) {
        return DescribeScale(aType_, scalePos, scaleType, isScaleTrans);
    }
    int32_t SetScaleBType(TPosition scalePos, CubeFormat scaleType, bool isScaleTrans = true) {
        return DescribeScale(bType_, scalePos, scaleType, isScaleTrans);
    }
    int32_t SetDequantType(DequantType dequantType) {
        deqType = dequantType;
        return 0;
    }
    // The shape computed; the original shape too while SetOrgShape has not been called.
    virtual int32_t SetShape(int32_t m, int32_t n, int32_t k) {
        std::tie(singleM, singleN, singleK) = std::make_tuple(m, n, k);
        const bool noOrigin = std::max({orgM, orgN, orgKa, orgKb}) == -1 &&
                              std::min({orgM, orgN, orgKa, orgKb}) == -1;
        return noOrigin ? SetOrgShape(m, n, k) : 0;
    }
    int32_t SetOrgShape(int32_t orgMIn, int32_t orgNIn, int32_t orgKIn) {
        return SetOrgShape(orgMIn, orgNIn, orgKIn, orgKIn);
    }
    int32_t SetOrgShape(int32_t orgMIn, int32_t orgNIn, int32_t orgKaIn, int32_t orgKbIn) {
        std::tie(orgM, orgN, orgKa, orgKb) = std::make_tuple(orgMIn, orgNIn, orgKaIn, orgKbIn);
        return 0;
    }
    // The BSNGD layouts of A, B and C, copied into the tiling as given.
    int32_t SetALayout(int32_t b, int32_t s, int32_t n, int32_t g, int32_t d) {
        std::tie(aLayoutInfoB, aLayoutInfoS, aLayoutInfoN, aLayoutInfoG, aLayoutInfoD) =
            std::make_tuple(b, s, n, g, d);
        return 0;
    }
    int32_t SetBLayout(int32_t b, int32_t s, int32_t n, int32_t g, int32_t d) {
        std::tie(bLayoutInfoB, bLayoutInfoS, bLayoutInfoN, bLayoutInfoG, bLayoutInfoD) =
            std::make_tuple(b, s, n, g, d);
        return 0;
    }
    int32_t SetCLayout(int32_t b, int32_t s, int32_t n, int32_t g, int32_t d) {
        std::tie(cLayoutInfoB, cLayoutInfoS1, cLayoutInfoN, cLayoutInfoG, cLayoutInfoS2) =
            std::make_tuple(b, s, n, g, d);
        return 0;
    }
    // The NORMAL layout's batches: A [batchA, m, k], B [batchB, k, n], C [max, m, n].
    int32_t SetBatchInfoForNormal(int32_t batchA, int32_t batchB, int32_t m, int32_t n, int32_t k) {
        SetALayout(batchA, m, 1, 1, k);
        SetBLayout(batchB, n, 1, 1, k);
        SetCLayout(std::max(batchA, batchB), m, 1, 1, n);
        isBMNKBmm = true;
        return 0;
    }
    int32_t SetBatchNum(int32_t batch) {
        batchNum = batch;
        return 0;
    }
    int32_t EnableBias(bool isBiasIn = false) {
        isBias = isBiasIn;
        return 0;
    }
    int32_t SetBias(bool isBiasIn = false) { return EnableBias(isBiasIn); }
    // SetFixSplit.md: baseM and baseN multiples of 16, baseK of A's C0 (the page supports only
    // -1 for it; CANN keeps a valid one for its L0A/L0B check and plans baseK itself). -1 leaves
    // a value to the tiling; a bad one is reported and returns -1, keeping those set before it.
    int32_t SetFixSplit(int32_t baseMIn = -1, int32_t baseNIn = -1, int32_t baseKIn = -1) {
        constexpr const char* api = "SetFixSplit";
        if (baseMIn == 0 || baseNIn == 0 || baseKIn == 0) {
            return Reject(api, "a base of 0: give a multiple of 16, or -1 for the tiling's");
        }
        if (baseMIn != -1) {
            if (baseMIn % C0_SIZE != 0) {
                return Reject(api, "baseM " + std::to_string(baseMIn) + " is not a multiple of 16");
            }
            baseM = baseMIn;
            adjust_.maxBaseM = adjust_.minBaseM = baseMIn;
        }
        if (baseNIn != -1) {
            if (baseNIn % C0_SIZE != 0) {
                return Reject(api, "baseN " + std::to_string(baseNIn) + " is not a multiple of 16");
            }
            baseN = baseNIn;
            adjust_.maxBaseN = adjust_.minBaseN = baseNIn;
        }
        const int32_t bits = plan_detail::TypeBits(aType_.dataType);
        const int32_t kTile = bits == 0 ? 0 : C0_BYTE_SIZE * BITS_PER_BYTE / bits;
        if (baseKIn != -1) {
            if (kTile == 0 || baseKIn % kTile != 0) {
                return Reject(api, "baseK " + std::to_string(baseKIn) + " is not a multiple of " +
                                       std::to_string(kTile) + ", the C0 of A's type");
            }
            baseK = baseKIn;
            adjust_.maxBaseK = adjust_.minBaseK = baseKIn;
        }
        return 0;
    }
    // The L1/L0C/UB/bias-table bytes the Matmul may use: -1 keeps the current size; a size past
    // it is reported and returns -1; the others round down to 32 bytes.
    int32_t SetBufferSpace(int32_t l1Size = -1, int32_t l0CSize = -1, int32_t ubSize = -1,
                           int32_t btSize = -1) {
        constexpr const char* api = "SetBufferSpace";
        const auto bad = [](int32_t v, int32_t limit) { return v < -1 || v > limit; };
        const BufferPool& pool = bufferPool_;
        if (bad(l1Size, pool.l1Size)) return Reject(api, OutOfRange("l1Size", l1Size, pool.l1Size));
        if (bad(l0CSize, pool.l0CSize)) {
            return Reject(api, OutOfRange("l0CSize", l0CSize, pool.l0CSize));
        }
        if (bad(ubSize, pool.ubSize)) return Reject(api, OutOfRange("ubSize", ubSize, pool.ubSize));
        if (bad(btSize, pool.btSize)) return Reject(api, OutOfRange("btSize", btSize, pool.btSize));
        if (l1Size != -1) bufferPool_.l1Size = l1Size - l1Size % bufferPool_.l1AlignSize;
        if (l0CSize != -1) bufferPool_.l0CSize = l0CSize - l0CSize % bufferPool_.l0CAlignSize;
        if (ubSize != -1) bufferPool_.ubSize = ubSize - ubSize % bufferPool_.ubAlignSize;
        if (btSize != -1) bufferPool_.btSize = btSize;
        return 0;
    }
    int32_t SetTraverse(MatrixTraverse traverse) {
        traverse_ = traverse;
        return 0;
    }
    int32_t SetMadType(MatrixMadType madType) {
        madType_ = madType;
        return 0;
    }
    // Bounds for a base the tiling chooses (rounded down to 16); CANN's algorithm keeps them
    // without using them, and so does this one.
    int32_t SetSplitRange(int32_t maxBaseM = -1, int32_t maxBaseN = -1, int32_t maxBaseK = -1,
                          int32_t minBaseM = -1, int32_t minBaseN = -1, int32_t minBaseK = -1) {
        const auto keep = [](int32_t fixed, int32_t v, int32_t& dst) {
            if (fixed == -1 && v != -1) dst = v - v % C0_SIZE;
        };
        keep(baseM, maxBaseM, adjust_.maxBaseM);
        keep(baseM, minBaseM, adjust_.minBaseM);
        keep(baseN, maxBaseN, adjust_.maxBaseN);
        keep(baseN, minBaseN, adjust_.minBaseN);
        keep(baseK, maxBaseK, adjust_.maxBaseK);
        keep(baseK, minBaseK, adjust_.minBaseK);
        return 0;
    }
    // A reserved API (SetDoubleBuffer.md): accepted, no effect.
    int32_t SetDoubleBuffer(bool a, bool b, bool c, bool bias, bool transND2NZ = true,
                            bool transNZ2ND = true) {
        (void)a, (void)b, (void)c, (void)bias, (void)transND2NZ, (void)transNZ2ND;
        return 0;
    }
    void SetMatmulConfigParams(int32_t mmConfigTypeIn = 1, bool enableL1CacheUBIn = false,
                               ScheduleType scheduleTypeIn = ScheduleType::INNER_PRODUCT,
                               MatrixTraverse traverseIn = MatrixTraverse::NOSET,
                               bool enVecND2NZIn = false) {
        std::tie(mmConfigType, enableL1CacheUB, scheduleType, traverse_, enVecND2NZ) =
            std::make_tuple(mmConfigTypeIn, enableL1CacheUBIn, scheduleTypeIn, traverseIn,
                            enVecND2NZIn);
    }
    void SetMatmulConfigParams(const MatmulConfigParams& configParams) {
        SetMatmulConfigParams(configParams.mmConfigType, configParams.enableL1CacheUB,
                              configParams.scheduleType, configParams.traverse,
                              configParams.enVecND2NZ);
    }
    int32_t SetSparse(bool isSparseIn = false) {
        isSparse_ = isSparseIn;
        return 0;
    }
    // After GetTiling, the base block it chose (before, a fixed one or -1).
    int32_t GetBaseM() const { return baseM; }
    int32_t GetBaseN() const { return baseN; }
    int32_t GetBaseK() const { return baseK; }

    virtual int64_t GetTiling(optiling::TCubeTiling& tiling) = 0;
    virtual int64_t GetTiling(AscendC::tiling::TCubeTiling& tiling) = 0;

public:
    optiling::TCubeTiling tiling_;

    MatTilingType aType_;
    MatTilingType bType_;
    MatTilingType cType_;
    MatTilingType biasType_;
    bool isBias = false;
    bool isSupportL0c2Out = true;
    int32_t blockDim = 1;
    int32_t orgM = -1;
    int32_t orgN = -1;
    int32_t orgKa = -1;
    int32_t orgKb = -1;

    int32_t aLayoutInfoB = 0;
    int32_t aLayoutInfoS = 0;
    int32_t aLayoutInfoN = 0;
    int32_t aLayoutInfoG = 0;
    int32_t aLayoutInfoD = 0;
    int32_t bLayoutInfoB = 0;
    int32_t bLayoutInfoS = 0;
    int32_t bLayoutInfoN = 0;
    int32_t bLayoutInfoG = 0;
    int32_t bLayoutInfoD = 0;
    int32_t cLayoutInfoB = 0;
    int32_t cLayoutInfoS1 = 0;
    int32_t cLayoutInfoN = 0;
    int32_t cLayoutInfoG = 0;
    int32_t cLayoutInfoS2 = 0;
    int32_t batchNum = 0;

    int32_t singleM = -1;
    int32_t singleN = -1;
    int32_t singleK = -1;

    int32_t singleCoreM = -1;
    int32_t singleCoreN = -1;
    int32_t singleCoreK = -1;

    int32_t baseM = -1;
    int32_t baseN = -1;
    int32_t baseK = -1;
    int32_t batchM = 1;
    int32_t batchN = 1;
    int32_t singleBatchM = 1;
    int32_t singleBatchN = 1;
    int32_t alignSingleM = 1;
    int32_t alignSingleN = 1;
    int32_t alignSingleK = 1;

    struct MnmAdjust {
        int32_t maxBaseM;
        int32_t maxBaseN;
        int32_t maxBaseK;
        int32_t minBaseM;
        int32_t minBaseN;
        int32_t minBaseK;
    } adjust_{INT32_MAX, INT32_MAX, INT32_MAX, C0_SIZE, C0_SIZE, C0_SIZE};

    BufferPool oriBufferPool_;
    BufferPool bufferPool_;
    MatrixTraverse traverse_ = MatrixTraverse::NOSET;
    MatrixMadType madType_ = MatrixMadType::NORMAL;
    ScheduleType scheduleType = ScheduleType::INNER_PRODUCT;
    bool transND2NZ_ = false;
    bool transNZ2ND_ = false;
    bool isSparse_ = false;

    int32_t maxSingleM = 0;
    int32_t maxSingleN = 0;
    int32_t maxSingleK = 0;
    int32_t minSingleM = 0;
    int32_t minSingleN = 0;
    int32_t minSingleK = 0;
    DequantType deqType = DequantType::SCALAR;
    bool enableSplitK_ = false;
    platform_ascendc::SocVersion socVersion = platform_ascendc::SocVersion::ASCEND910B;
    int32_t mmConfigType = 1;  // 0: Norm; 1: MDL
    bool enableL1CacheUB = false;
    bool enVecND2NZ = false;
    bool isBMNKBmm = false;

protected:
    // CheckSetParam and the algorithm; 0 planned (tiling_ holds the plan), -1 not.
    int64_t Compute(const char* api);
    void SetFinalTiling(optiling::TCubeTiling& tiling) const;
    void SetFinalTiling(AscendC::tiling::TCubeTiling& tiling) const;

    static int32_t Reject(const char* api, const std::string& why) {
        ::AscendC::math_tmp_detail::Report(api, why);
        return -1;
    }

    int32_t coreCount_ = 0;  // the platform's cores (0: not known), usedCoreNum's bound

private:
    friend class plan_detail::Planner;
    void InitCommon() {
        for (MatTilingType* operand : {&aType_, &bType_, &cType_, &biasType_}) operand->isDB = true;
        ResetBuffers(kDefaultL1, 128 * 1024, kDefaultUb, 64 * 1024, 64 * 1024);
    }
    static constexpr int32_t kDefaultL1 = plan_detail::kA2L1Bytes;
    static constexpr int32_t kDefaultUb = plan_detail::kA2UbBytes;
    // The platform's buffers (bytes) as the pool a plan starts from; every granule 32 bytes.
    void ResetBuffers(uint64_t l1, uint64_t l0c, uint64_t ub, uint64_t l0a, uint64_t l0b) {
        BufferPool fresh;
        const std::pair<int32_t BufferPool::*, uint64_t> sizes[] = {
            {&BufferPool::l1Size, l1}, {&BufferPool::l0CSize, l0c}, {&BufferPool::ubSize, ub},
            {&BufferPool::l0ASize, l0a}, {&BufferPool::l0BSize, l0b}};
        for (const auto& entry : sizes) fresh.*entry.first = static_cast<int32_t>(entry.second);
        for (int32_t BufferPool::*granule :
             {&BufferPool::l1AlignSize, &BufferPool::l0CAlignSize, &BufferPool::l0AAlignSize,
              &BufferPool::l0BAlignSize, &BufferPool::ubAlignSize}) {
            fresh.*granule = C0_BYTE_SIZE;
        }
        // the bias table exists on the A2/A3 and the 310B only
        const bool hasBiasTable = socVersion == platform_ascendc::SocVersion::ASCEND910B ||
                                  socVersion == platform_ascendc::SocVersion::ASCEND310B;
        fresh.btSize = hasBiasTable ? plan_detail::kBiasTableBytes : 0;
        oriBufferPool_ = fresh;
        bufferPool_ = fresh;
    }
    static int32_t Describe(MatTilingType& operand, TPosition pos, CubeFormat format,
                            DataType dataType, bool transposed) {
        std::tie(operand.pos, operand.type) = std::make_pair(pos, format);
        std::tie(operand.dataType, operand.isTrans) = std::make_pair(dataType, transposed);
        return 0;
    }
    static int32_t DescribeScale(MatTilingType& operand, TPosition pos, CubeFormat format,
                                 bool transposed) {
        operand.hasSetScaleType = true;
        std::tie(operand.scalePos, operand.scaleType, operand.isScaleTrans) =
            std::make_tuple(pos, format, transposed);
        return 0;
    }
    static std::string OutOfRange(const char* what, int32_t v, int32_t limit) {
        return std::string(what) + " " + std::to_string(v) +
               " is out of range: -1 (keep) or 0 to " + std::to_string(limit) + " bytes";
    }
};

// One core's Matmul (MatmulApiTiling): the whole SetShape on the core.
class MatmulApiTiling : public MatmulApiTilingBase {
public:
    MatmulApiTiling() {}
    explicit MatmulApiTiling(const platform_ascendc::PlatformAscendC& ascendcPlatform)
        : MatmulApiTilingBase(ascendcPlatform) {}
    explicit MatmulApiTiling(const PlatformInfo& platform) : MatmulApiTilingBase(platform) {}
    ~MatmulApiTiling() override = default;

    int64_t GetTiling(optiling::TCubeTiling& tiling) override { return Run(tiling); }
    int64_t GetTiling(AscendC::tiling::TCubeTiling& tiling) override { return Run(tiling); }

private:
    template <typename Tiling>
    int64_t Run(Tiling& tiling) {
        const int64_t ret = Compute("MatmulApiTiling::GetTiling");
        if (ret == -1) return -1;
        SetFinalTiling(tiling);
        return ret;
    }
};

// A batched Matmul on one core (BatchMatmulTiling, bmm_tiling.h): CANN plans it with the same
// algorithm as MatmulApiTiling (bmm_tiling.cpp); the layouts and the batch count set with
// SetALayout/SetBLayout/SetCLayout/SetBatchInfoForNormal/SetBatchNum go into the tiling.
class BatchMatmulTiling : public MatmulApiTilingBase {
public:
    BatchMatmulTiling() {}
    explicit BatchMatmulTiling(const platform_ascendc::PlatformAscendC& ascendcPlatform)
        : MatmulApiTilingBase(ascendcPlatform) {}
    explicit BatchMatmulTiling(const PlatformInfo& platform) : MatmulApiTilingBase(platform) {}
    ~BatchMatmulTiling() override = default;

    int64_t GetTiling(optiling::TCubeTiling& tiling) override { return Run(tiling); }
    int64_t GetTiling(AscendC::tiling::TCubeTiling& tiling) override { return Run(tiling); }
    // The cores of the last GetTiling, the M and N splits, and the batch splits (1: one core).
    int32_t GetCoreNum(int32_t& dim, int32_t& mDim, int32_t& nDim, int32_t& batchCoreM,
                       int32_t& batchCoreN) {
        dim = lastUsedCores;
        mDim = lastSingleM > 0 ? (lastM + lastSingleM - 1) / lastSingleM : 0;
        nDim = lastSingleN > 0 ? (lastN + lastSingleN - 1) / lastSingleN : 0;
        batchCoreM = 1;
        batchCoreN = 1;
        return 0;
    }

private:
    template <typename Tiling>
    int64_t Run(Tiling& tiling) {
        const int64_t ret = Compute("BatchMatmulTiling::GetTiling");
        if (ret == -1) return -1;
        SetFinalTiling(tiling);
        AscendC::tiling::TCubeTiling k{};
        SetFinalTiling(k);
        lastUsedCores = k.usedCoreNum;
        lastM = k.M;
        lastN = k.N;
        lastSingleM = k.singleCoreM;
        lastSingleN = k.singleCoreN;
        return ret;
    }
    int32_t lastUsedCores = 0, lastM = 0, lastN = 0, lastSingleM = 0, lastSingleN = 0;
};

// A Matmul split over SetDim cores (MultiCoreMatmulTiling).
class MultiCoreMatmulTiling : public MatmulApiTilingBase {
public:
    MultiCoreMatmulTiling() {}
    explicit MultiCoreMatmulTiling(const platform_ascendc::PlatformAscendC& ascendcPlatform)
        : MatmulApiTilingBase(ascendcPlatform) {}
    explicit MultiCoreMatmulTiling(const PlatformInfo& platform) : MatmulApiTilingBase(platform) {}

    // SetDim.md: the cores the tiling may use (AIV cores for a mix kernel of the A2/A3's
    // separated architecture); usedCoreNum is what it uses.
    int32_t SetDim(int32_t dim) {
        blockDim = dim;
        return 0;
    }
    // As the base's, but a -1 leaves that axis of the original shape unset.
    int32_t SetShape(int32_t m, int32_t n, int32_t k) override {
        return MatmulApiTilingBase::SetShape(m, n, k);
    }
    // One core's shape, given: the tiling then plans that core alone (usedCoreNum = SetDim).
    virtual int32_t SetSingleShape(int32_t singleMIn = -1, int32_t singleNIn = -1,
                                   int32_t singleKIn = -1) {
        if (singleMIn > 0) singleCoreM = singleMIn;
        if (singleNIn > 0) singleCoreN = singleNIn;
        if (singleKIn > 0) singleCoreK = singleKIn;
        return 0;
    }
    virtual int32_t SetSingleRange(int32_t maxM = -1, int32_t maxN = -1, int32_t maxK = -1,
                                   int32_t minM = -1, int32_t minN = -1, int32_t minK = -1) {
        std::tie(maxSingleM, maxSingleN, maxSingleK) = std::make_tuple(maxM, maxN, maxK);
        std::tie(minSingleM, minSingleN, minSingleK) = std::make_tuple(minM, minN, minK);
        return 0;
    }
    int32_t SetAlignSplit(int32_t alignM, int32_t alignN, int32_t alignK) {
        if (alignM > 0) alignSingleM = alignM;
        if (alignN > 0) alignSingleN = alignN;
        if (alignK > 0) alignSingleK = alignK;
        return 0;
    }
    int64_t GetTiling(optiling::TCubeTiling& tiling) override { return Run(tiling); }
    int64_t GetTiling(AscendC::tiling::TCubeTiling& tiling) override { return Run(tiling); }
    // After GetTiling: one core's share.
    int32_t GetSingleShape(int32_t& shapeM, int32_t& shapeN, int32_t& shapeK) {
        shapeM = tiling_.get_singleCoreM();
        shapeN = tiling_.get_singleCoreN();
        shapeK = tiling_.get_singleCoreK();
        return 0;
    }
    // After GetTiling: the cores used and their split along M and N (of SetShape's m and n, or
    // of the original shape where SetShape was not called).
    int32_t GetCoreNum(int32_t& dim, int32_t& mDim, int32_t& nDim) {
        dim = tiling_.get_usedCoreNum();
        const int32_t m = singleM != -1 ? singleM : orgM;
        const int32_t n = singleN != -1 ? singleN : orgN;
        mDim = plan_detail::CeilDiv32(m, tiling_.get_singleCoreM());
        nDim = plan_detail::CeilDiv32(n, tiling_.get_singleCoreN());
        return 0;
    }
    // Split K over cores too (the kernel then accumulates C atomically in GM).
    void EnableMultiCoreSplitK(bool flag) { enableSplitK_ = flag; }
    void SetSplitK(bool flag) { EnableMultiCoreSplitK(flag); }

private:
    template <typename Tiling>
    int64_t Run(Tiling& tiling) {
        const int64_t ret = Compute("MultiCoreMatmulTiling::GetTiling");
        if (ret == -1) return -1;
        SetFinalTiling(tiling);
        return ret;
    }
};

namespace plan_detail {

// The planner of one GetTiling call (Run), making CANN's host algorithm's decisions. Shapes
// are counted in fractals (M and N in 16 rows, K in 32 bytes of A), L0/L1 factors in
// fractals, sizes in bytes.
class Planner {
public:
    Planner(MatmulApiTilingBase& t, const char* api) : t_(t), api_(api) {}

    int64_t Run() {
        if (!Supported()) return -1;
        PreprocessL0Db();
        if (!FixedBaseFits()) return -1;
        Fractals p;
        ReadShape(p);
        if (!ShapeSet(p)) return -1;
        CoreShare core;
        if (cores_ != 1) {
            SnapAwkwardDims(p);
            if (TrySplitMN(p, core)) return Validate() ? 0 : -1;
            core = CoreShare{};
            SplitCores(p, core);
        } else {
            core.m = BestShare(p.m, p.mSnap, 1, false);
            core.k = BestShare(p.k, p.kSnap, 1, false);
            core.n = BestShare(p.n, p.nSnap, 1, false);
        }
        if (cores_ != 1 && t_.bType_.pos == TPosition::TSCM && !coreSplitFound_) {
            return Fail("no split over the cores holds B (TSCM) whole in L1");
        }
        L0Plan l0 = ChooseL0(core);
        if (l0.mBlk == 0 || l0.nBlk == 0 || l0.kBlk == 0) {
            std::string why =
                "no base block fits L0A/L0B/L0C for one core's " + Dims(core) + " of C";
            if (t_.baseM != -1 || t_.baseN != -1) {
                // the search's bounds, and its rule keeping 16 fractals of a wide N
                why += " with " + FixedBases() + ": a base block stays within one core's M and N "
                       "(rounded up to 16) and L0C, and its baseN at least 256 (128 for float) "
                       "where a core's N reaches that";
            }
            return Fail(why);
        }
        L1Plan l1;
        ChooseL1(core, l0, l1);
        if (WritePlan(p, core, l0, l1) == -1) return -1;
        if (!PlanWithinBuffers()) return -1;
        return Validate() ? 0 : -1;
    }

private:
    MatmulApiTilingBase& t_;
    const char* api_;
    int32_t cores_ = 1;  // SetDim, or 1 with a single-core shape given
    bool singleShapeGiven_ = false;
    bool coreSplitFound_ = false;
    int32_t l0aBuffers_ = kDbOn, l0bBuffers_ = kDbOn;  // L0C stays single-buffered

    int32_t Fail(const std::string& why) const {
        ::AscendC::math_tmp_detail::Report(api_, why);
        return -1;
    }
    bool Bad(const std::string& why) const {
        Fail(why);
        return false;
    }
    std::string FixedBases() const {
        return "SetFixSplit(" + std::to_string(t_.baseM) + ", " + std::to_string(t_.baseN) + ")";
    }
    static std::string Dims(const CoreShare& c) {
        return std::to_string(c.m * C0_SIZE) + " x " + std::to_string(c.n * C0_SIZE);
    }

    bool A2OrV300() const {
        return t_.socVersion == platform_ascendc::SocVersion::ASCEND910B ||
               t_.socVersion == platform_ascendc::SocVersion::ASCEND310B;
    }
    bool V100OrV200() const {
        return t_.socVersion == platform_ascendc::SocVersion::ASCEND910 ||
               t_.socVersion == platform_ascendc::SocVersion::ASCEND310P;
    }
    int32_t BitsA() const { return TypeBits(t_.aType_.dataType); }
    int32_t BitsB() const { return TypeBits(t_.bType_.dataType); }
    bool AFloat() const { return t_.aType_.dataType == DataType::DT_FLOAT; }
    bool BFloat() const { return t_.bType_.dataType == DataType::DT_FLOAT; }
    // A's elements in 32 bytes: the K unit (float 8, half 16, int8 32, int4 64)
    int32_t ReduceSize() const { return C0_BYTE_SIZE * BITS_PER_BYTE / BitsA(); }
    // As ReduceSize, but by A's exact type (other 8-bit types count 16)
    int32_t C0OfA() const {
        switch (t_.aType_.dataType) {
            case DataType::DT_FLOAT: return 8;
            case DataType::DT_INT8: return 32;
            case DataType::DT_INT4: return 64;
            default: return 16;
        }
    }
    // SetSingleShape's per-core M, N and K, SetShape's where one was not given.
    std::array<int32_t, 3> GivenCoreShape() const {
        const auto pick = [](int32_t perCore, int32_t whole) {
            return perCore != -1 ? perCore : whole;
        };
        return {pick(t_.singleCoreM, t_.singleM), pick(t_.singleCoreN, t_.singleN),
                pick(t_.singleCoreK, t_.singleK)};
    }
    int32_t ShapeM() const { return t_.singleM != -1 ? t_.singleM : t_.orgM; }
    int32_t ShapeN() const { return t_.singleN != -1 ? t_.singleN : t_.orgN; }
    int32_t ShapeK() const { return t_.singleK != -1 ? t_.singleK : t_.orgKa; }

    // What the simulator's tiling does not model, and types the Matmul API does not take.
    bool Supported() const {
        if (t_.madType_ == MatrixMadType::MXMODE) {
            return Bad("MatrixMadType::MXMODE (MxMatmul) is not modelled by the simulator");
        }
        if (t_.isSparse_) return Bad("a sparse A (SetSparse) is not modelled by the simulator");
        if (t_.scheduleType == ScheduleType::N_BUFFER_33) {
            return Bad("ScheduleType::N_BUFFER_33 is not modelled by the simulator");
        }
        if (BitsA() == 0 || BitsB() == 0 || TypeBits(t_.cType_.dataType) == 0) {
            return Bad("A, B and C must be numeric types the cube takes (DT_FLOAT16, DT_BF16, "
                       "DT_FLOAT, DT_INT8, DT_INT4, DT_INT32, ...); SetAType/SetBType/SetCType");
        }
        if (t_.isBias && TypeBits(t_.biasType_.dataType) == 0) {
            return Bad("the bias must be a numeric type (SetBiasType)");
        }
        if (t_.blockDim < 1) {
            return Bad("SetDim(" + std::to_string(t_.blockDim) + "): at least one core");
        }
        return true;
    }

    bool ShapeSet(const Fractals& p) const {
        if (p.m > 0 && p.n > 0 && p.k > 0) return true;
        return Bad("the shape is not set or is empty (M " + std::to_string(p.oriM) + ", N " +
                   std::to_string(p.oriN) + ", K " + std::to_string(p.oriKa) +
                   "): call SetOrgShape and SetShape with positive sizes");
    }

    // Double-buffer L0A (L0B) unless a fixed baseM (baseN) row of 32 bytes per element row takes
    // more than half of it; L0C stays single-buffered (the template's default).
    void PreprocessL0Db() {
        if (t_.baseM != -1 && t_.baseM * C0_BYTE_SIZE > t_.bufferPool_.l0ASize / kDbOn) {
            l0aBuffers_ = kDbOff;
        }
        if (t_.baseN != -1 && t_.baseN * C0_BYTE_SIZE > t_.bufferPool_.l0BSize / kDbOn) {
            l0bBuffers_ = kDbOff;
        }
    }

    // The A2/A3's bias table holds 256 values of a base row; a fixed baseM/baseN must leave L0C
    // room for a 16-wide block and L0A/L0B room for one 32-byte K column.
    bool FixedBaseFits() const {
        const BufferPool& b = t_.bufferPool_;
        if (A2OrV300() && t_.isBias && t_.baseN > 16 * C0_SIZE && t_.isSupportL0c2Out) {
            return Bad("baseN " + std::to_string(t_.baseN) + " with a bias: the bias table " +
                       "takes at most 256 values of a base row");
        }
        bool ok = true;
        if (t_.baseM != -1 && t_.baseN != -1) {
            ok = t_.baseM * t_.baseN * FP32_BYTES <= b.l0CSize &&
                 t_.baseM * C0_BYTE_SIZE <= b.l0ASize && t_.baseN * C0_BYTE_SIZE <= b.l0BSize;
        } else if (t_.baseM != -1) {
            ok = t_.baseM * C0_SIZE * FP32_BYTES <= b.l0CSize &&
                 t_.baseM * C0_BYTE_SIZE <= b.l0ASize;
        } else if (t_.baseN != -1) {
            ok = t_.baseN * C0_SIZE * FP32_BYTES <= b.l0CSize &&
                 t_.baseN * C0_BYTE_SIZE <= b.l0BSize;
        }
        if (ok) return true;
        return Bad("the fixed base block of " + FixedBases() + " does not fit L0C (" +
                   std::to_string(b.l0CSize) + " bytes) or L0A/L0B");
    }

    // The shape planned (SetSingleShape's, which plans one core, or SetShape's and else the
    // original one) in fractals, and the power-of-two shapes it maps to.
    void ReadShape(Fractals& p) {
        std::tie(p.oriM, p.oriN) = std::make_pair(t_.orgM, t_.orgN);
        std::tie(p.oriKa, p.oriKb) = std::make_pair(t_.orgKa, t_.orgKb);
        singleShapeGiven_ = t_.singleCoreM != -1 || t_.singleCoreN != -1 || t_.singleCoreK != -1;
        cores_ = singleShapeGiven_ ? 1 : t_.blockDim;
        const std::array<int32_t, 3> whole{ShapeM(), ShapeN(), ShapeK()};
        const std::array<int32_t, 3> mnk = singleShapeGiven_ ? GivenCoreShape() : whole;
        const int32_t m = mnk[0], n = mnk[1], k = mnk[2];
        p.k = m > 0 && n > 0 && k > 0 ? CeilDiv32(k, ReduceSize()) : 0;
        p.m = m > 0 ? CeilDiv32(m, C0_SIZE) : 0;
        p.n = n > 0 ? CeilDiv32(n, C0_SIZE) : 0;
        p.mSnap = SnapToPowerOfTwo(p.m, true);
        p.kSnap = SnapToPowerOfTwo(p.k, true);
        p.nSnap = SnapToPowerOfTwo(p.n, true);
    }

    // With several cores, M and N (and a batch with few divisors) map to powers of two; with K
    // split over cores, a K of few divisors maps down to one.
    void SnapAwkwardDims(Fractals& p) const {
        p.batchSnap = p.batch;
        p.mSnap = p.m;
        p.kSnap = p.k;
        p.nSnap = p.n;
        if (t_.enableSplitK_) {
            const int32_t upTo64 = DivisorCount(p.k, 1, 64);
            const int32_t upTo128 = DivisorCount(p.k, 65, 128);
            if ((p.k > 64 && upTo64 <= 2) || (p.k > 128 && upTo64 + upTo128 <= 4)) {
                p.kSnap = SnapToPowerOfTwo(p.k, false);
            }
        } else {
            if (p.batch > 1 && DivisorCount(p.batch, 1, cores_) <= 2) {
                p.batchSnap = SnapToPowerOfTwo(p.batch);
            }
            p.mSnap = SnapToPowerOfTwo(p.m);
            p.nSnap = SnapToPowerOfTwo(p.n);
        }
    }

    // ---- the multi-core split without SetShape on the A2/A3 ----

    // Only without SetShape (and without split K) on the A2/A3: a large M x N (M at least 128, more
    // than 128 x 256 x 0.8 a core) or a small one.
    Scenario GetScenario() const {
        if (t_.socVersion != platform_ascendc::SocVersion::ASCEND910B &&
            t_.socVersion != platform_ascendc::SocVersion::ASCEND950) {
            return Scenario::Generic;
        }
        if (t_.enableSplitK_ || t_.singleM != -1 || t_.singleN != -1) return Scenario::Generic;
        constexpr int64_t kMnLimit = 26214;  // 128 * 256 * 0.8
        const int64_t mn = static_cast<int64_t>(t_.orgM) * t_.orgN;
        if (t_.orgM >= 128 && mn > kMnLimit * cores_) return Scenario::SplitMN;
        if (mn < kMnLimit * cores_) return Scenario::SplitSmallMN;
        return Scenario::Generic;
    }

    // The A2/A3 split's base block: 128 x 256 x (128 bytes of A), 256 rows on a 256 KiB L0C,
    // SetFixSplit's baseM/baseN kept; with both A and B transposed 256 x 128.
    BaseBlock MultiCoreBasicBlock() const {
        const int32_t rows = t_.bufferPool_.l0CSize == 262144 ? 256 : 128;
        BaseBlock b{rows, 256, 128 * BITS_PER_BYTE / BitsA()};
        if (t_.baseM != -1) b.baseM = t_.baseM;
        if (t_.baseN != -1) b.baseN = t_.baseN;
        if (t_.aType_.isTrans && t_.bType_.isTrans) {
            if (t_.baseM == -1) b.baseM = 256;
            if (t_.baseN == -1) b.baseN = 128;
        }
        return b;
    }

    // A core's share of `org`, rounded up to `align` when asked unless that would leave the last
    // core nothing; false when it could not be aligned.
    static bool AlignShare(bool need, int32_t org, int32_t factor, int32_t align, int32_t& share) {
        share = CeilDiv32(org, factor);
        if (!need || align == 0 || factor <= 1) return true;
        const int32_t aligned = RoundUp(share, align);
        if (aligned >= CeilDiv32(org, factor - 1)) return false;
        share = aligned;
        return true;
    }
    static bool DividesAny(int32_t org, int32_t align, bool small) {
        if (align == 0) return false;
        if (!small) return org % align == 0;
        for (int32_t v : {128, 192, 256, 320, 384, 448, 512}) {
            if (org % v == 0) return true;
        }
        return false;
    }
    // The GM bandwidth ratio of a row of that many elements.
    static bool BandRatio(int32_t cols, float& ratio) {
        switch (cols) {
            case 256: case 512: ratio = 1.0f; return true;
            case 384: ratio = 1.5f; return true;
            case 448: ratio = 1.7f; return true;
            case 320: case 128: ratio = 2.0f; return true;
            case 192: ratio = 2.7f; return true;
            default: return false;
        }
    }
    float BlockCycles(int32_t m, int32_t n, int32_t k) const {
        const int32_t reduce = C0_BYTE_SIZE * BITS_PER_BYTE / BitsA();
        return static_cast<float>(m * n * k) / (C0_SIZE * C0_SIZE * reduce);
    }
    float BlockTraffic(int32_t m, int32_t n, int32_t k, float aRatio, float bRatio) const {
        const float a = aRatio * m * k * BitsA() / BITS_PER_BYTE;
        const float b = bRatio * n * k * BitsB() / BITS_PER_BYTE;
        return a + b;
    }
    // The cycles and GM traffic of one core's base blocks (whole ones, then the N tail, the M tail
    // and the corner).
    void CyclesAndTraffic(std::pair<int32_t, int32_t> coreM, std::pair<int32_t, int32_t> coreN,
                          const BaseBlock& b, float ratio, float aRatio, float bRatio,
                          float& cycles, float& traffic) const {
        cycles = 0;
        traffic = 0;
        const auto add = [&](int32_t m, int32_t n, int32_t count) {
            cycles += BlockCycles(m, n, b.baseK) * count;
            traffic += ratio * BlockTraffic(m, n, b.baseK, aRatio, bRatio) * count;
        };
        if (coreM.first > 0 && coreN.first > 0) {
            add(b.baseM, b.baseN, Clamp32(int64_t{coreM.first} * coreN.first));
        }
        if (coreM.first > 0 && coreN.second > 0) add(b.baseM, coreN.second, coreM.first);
        if (coreM.second > 0 && coreN.first > 0) add(coreM.second, b.baseN, coreN.first);
        if (coreM.second > 0 && coreN.second > 0) add(coreM.second, coreN.second, 1);
    }
    static std::pair<int32_t, int32_t> MainAndTail(int32_t v, int32_t d) {
        return d == 0 ? std::make_pair(0, 0) : std::make_pair(v / d, v % d);
    }
    float BandRatioOf(int32_t mDim, int32_t nDim, const BaseBlock& b) const {
        return static_cast<float>((cores_ - mDim) * b.baseM + (cores_ - nDim) * b.baseN) /
               static_cast<float>((b.baseM + b.baseN) * cores_);
    }

    struct Intensity {
        int32_t mDim = 1, nDim = 1;
        float cycles = 0, avg = 0, band = 0, traffic = 0;
        BaseBlock block;
        void CopySplit(CoreShare& core) const {
            std::tie(core.mDim, core.nDim) = std::tie(mDim, nDim);
        }
    };

    // One mDim x nDim split's cycles per byte of GM traffic (doubled when the shares cannot be
    // 256-byte aligned).
    Intensity SplitIntensity(const Fractals& p, const BaseBlock& b, int32_t mDim,
                             int32_t nDim) const {
        const int32_t aAlign = 256 * BITS_PER_BYTE / BitsA();
        const int32_t bAlign = 256 * BITS_PER_BYTE / BitsB();
        int32_t coreM = 0, coreN = 0;
        const int32_t oriM = static_cast<int32_t>(p.oriM), oriN = static_cast<int32_t>(p.oriN);
        const bool okA = AlignShare(t_.aType_.isTrans && DividesAny(oriM, aAlign, false), oriM,
                                    mDim, aAlign, coreM);
        const bool okB = AlignShare(!t_.bType_.isTrans && DividesAny(oriN, bAlign, false), oriN,
                                    nDim, bAlign, coreN);
        Intensity r;
        r.mDim = mDim;
        r.nDim = nDim;
        r.band = BandRatioOf(mDim, nDim, b);
        CyclesAndTraffic(MainAndTail(coreM, b.baseM), MainAndTail(coreN, b.baseN), b,
                         okA && okB ? 1.0f : 2.0f, 1.0f, 1.0f, r.cycles, r.traffic);
        r.avg = r.traffic > 0 ? r.cycles / r.traffic : 0;
        return r;
    }

    // A small share's base block: 128 rows of M at most, 256 of N (384 with a short K and M), baseK
    // at most K rounded up to 32.
    static void SmallBaseBlock(const Fractals& p, int32_t coreM, int32_t coreN, BaseBlock& b) {
        b.baseK = std::min(b.baseK, RoundUp(int32_t(p.oriKa), 32));
        b.baseM = coreM >= 128 ? 128 : RoundUp(coreM, 16);
        const int32_t maxN = b.baseK <= 32 && b.baseM <= 64 ? 384 : 256;
        b.baseN = coreN >= maxN ? maxN : RoundUp(coreN, 16);
    }

    // A small split's GM traffic first (shares the table's bandwidth ratios penalise), then its
    // band ratio and intensity.
    Intensity SmallIntensity(const Fractals& p, int32_t mDim, int32_t nDim, BaseBlock& b) const {
        const int32_t aAlign = 256 * BITS_PER_BYTE / BitsA();
        const int32_t bAlign = 256 * BITS_PER_BYTE / BitsB();
        int32_t coreM = 0, coreN = 0;
        const bool okA = AlignShare(t_.aType_.isTrans && DividesAny(int32_t(p.oriM), aAlign, true),
                                    int32_t(p.oriM), mDim, aAlign, coreM);
        const bool okB = AlignShare(!t_.bType_.isTrans && DividesAny(int32_t(p.oriN), bAlign, true),
                                    int32_t(p.oriN), nDim, bAlign, coreN);
        SmallBaseBlock(p, coreM, coreN, b);
        float aRatio = okA ? 1.0f : 4.0f;
        float bRatio = okB ? 1.0f : 4.0f;
        float tab = 0;
        if (!okA && BandRatio(coreM, tab)) aRatio = tab;
        if (!okB && BandRatio(coreN, tab)) bRatio = tab;
        int32_t band = mDim * nDim;
        if (coreM < 32 && coreN < 32 && band > 20) band = 20;
        if (band == 0) band = 1;
        Intensity r;
        r.mDim = mDim;
        r.nDim = nDim;
        r.band = BandRatioOf(mDim, nDim, b);
        CyclesAndTraffic(MainAndTail(coreM, b.baseM), MainAndTail(coreN, b.baseN), b,
                         static_cast<float>(mDim * nDim) / static_cast<float>(band), aRatio,
                         bRatio, r.cycles, r.traffic);
        r.avg = r.traffic > 0 ? r.cycles / r.traffic : 0;
        r.block = b;
        return r;
    }

    static std::vector<std::pair<int32_t, int32_t>> FactorPairs(int32_t num) {
        std::vector<std::pair<int32_t, int32_t>> v;
        for (int32_t i = 1; i <= num; ++i) {
            if (num % i == 0) v.emplace_back(i, num / i);
        }
        return v;
    }

    // The split of all cores between M and N with the highest compute intensity, base blocks of
    // MultiCoreBasicBlock, and L1 from SplitL1Evenly.
    bool TrySplitMN(const Fractals& p, CoreShare& core) {
        const Scenario s = GetScenario();
        if (s != Scenario::SplitMN && s != Scenario::SplitSmallMN) return false;
        BaseBlock b = MultiCoreBasicBlock();
        core = CoreShare{};
        if (s == Scenario::SplitMN) {
            std::vector<Intensity> all;
            for (const auto& f : FactorPairs(cores_)) {
                all.push_back(SplitIntensity(p, b, f.first, f.second));
            }
            std::sort(all.begin(), all.end(), [](const Intensity& x, const Intensity& y) {
                if (std::fabs(x.avg - y.avg) > 1.0E-4F) return x.avg > y.avg;
                if (std::fabs(x.cycles - y.cycles) < 0.01f * y.cycles) return x.band > y.band;
                return x.cycles < y.cycles;
            });
            all.front().CopySplit(core);
        } else {
            SmallSplit(p, b, core);
        }
        const int32_t kFractals = b.baseK / ReduceSize();
        const L0Plan l0{b.baseM / C0_SIZE, b.baseN / C0_SIZE, kFractals, kDbOn, kDbOn, kDbOff, 0};
        int32_t depthA1 = 0, depthB1 = 0, stepKa = 0, stepKb = 0;
        SplitL1Evenly(b, depthA1, depthB1, stepKa, stepKb);
        // a side is double-buffered when its depth holds two rounds of its K steps
        const auto buffers = [](int32_t depth, int32_t steps) {
            return depth >= steps * kDbOn ? kDbOn : kDbOff;
        };
        L1Plan l1;
        l1.Set(kFractals * stepKa, kFractals * stepKb, 1, 1, buffers(depthA1, stepKa),
               buffers(depthB1, stepKb));
        return WritePlan(p, core, l0, l1, true) == 0;
    }

    // A short M over a wide N goes all along N (and the other way round); else the split (of any
    // core count) with the least GM traffic. baseK then fills half of L0A/L0B.
    void SmallSplit(const Fractals& p, BaseBlock& b, CoreShare& core) const {
        if (p.oriM <= 128 && p.oriN >= static_cast<int64_t>(128) * cores_) {
            core.mDim = 1;
            core.nDim = cores_;
            SmallBaseBlock(p, int32_t(p.oriM), int32_t(p.oriN) / cores_, b);
        } else if (p.oriN <= 256 && p.oriM >= static_cast<int64_t>(128) * cores_) {
            core.mDim = cores_;
            core.nDim = 1;
            SmallBaseBlock(p, int32_t(p.oriM) / cores_, int32_t(p.oriN), b);
        } else {
            std::vector<Intensity> all;
            for (int32_t i = cores_; i >= 1; --i) {
                for (const auto& f : FactorPairs(i)) {
                    all.push_back(SmallIntensity(p, f.first, f.second, b));
                }
            }
            std::sort(all.begin(), all.end(), [](const Intensity& x, const Intensity& y) {
                if (std::fabs(y.traffic - x.traffic) > 0.05F * x.traffic) {
                    return x.traffic < y.traffic;
                }
                if (std::fabs(x.cycles - y.cycles) < 0.01f * y.cycles) return x.band > y.band;
                return x.avg > y.avg;
            });
            all.front().CopySplit(core);
            b = all.front().block;
        }
        const int32_t half = 64 * 1024 / kDbOn * BITS_PER_BYTE / BitsA();
        b.baseK = std::min(half / b.baseM, half / b.baseN);
        b.baseK = std::min(RoundDown(b.baseK, C0OfA()), RoundUp(int32_t(p.oriKa), C0OfA()));
    }

    // The rows of a base block in L1: float rows and 8/4-bit transposed K rows pad to their
    // fractal.
    int32_t AHeight(int32_t h) const {
        if (AFloat()) return RoundUp(h, 16);
        if ((BitsA() == 8 || BitsA() == 4) && t_.aType_.isTrans) {
            return RoundUp(h, C0OfType(t_.aType_.dataType));
        }
        return h;
    }
    int32_t AWidth(int32_t w) const {
        if (AFloat() && t_.aType_.isTrans) return RoundUp(w, 16);
        if (AFloat() || BitsA() == 8 || BitsA() == 4) {
            return RoundUp(w, C0OfType(t_.aType_.dataType));
        }
        return w;
    }
    int32_t BHeight(int32_t h) const {
        if (BFloat() && !t_.bType_.isTrans) return RoundUp(h, 16);
        if (BitsB() == 8 || BitsB() == 4) return RoundUp(h, C0OfType(t_.bType_.dataType));
        return h;
    }
    int32_t BWidth(int32_t w) const {
        if (BFloat() || ((BitsB() == 8 || BitsB() == 4) && !t_.bType_.isTrans)) {
            return RoundUp(w, C0OfType(t_.bType_.dataType));
        }
        return w;
    }
    static int32_t C0OfType(DataType d) {
        if (d == DataType::DT_FLOAT) return 8;
        if (TypeBits(d) == 8) return 32;
        if (TypeBits(d) == 4) return 64;
        return 16;
    }

    // A K step not covering K keeps its bytes a multiple of 512 (past 512) or 256 (past 256) where
    // the base's bytes divide that.
    void TrimStepK(const BaseBlock& b, int32_t& stepsK) const {
        if (stepsK * b.baseK >= ShapeK()) return;
        const int32_t baseBytes = b.baseK * BitsA() / BITS_PER_BYTE;
        for (int32_t unit : {512, 256}) {
            if (stepsK * baseBytes <= unit) continue;
            if ((stepsK * baseBytes) % unit != 0 && unit % baseBytes == 0) {
                while ((stepsK * baseBytes) % unit != 0 && stepsK > 1) --stepsK;
            }
            return;
        }
    }

    // As many base blocks of A and of B as half of L1 holds each (one of them halved when both do
    // not fit with the bias), double-buffered; the K steps divide each other.
    void SplitL1Evenly(const BaseBlock& b, int32_t& depthA1, int32_t& depthB1, int32_t& stepKa,
                      int32_t& stepKb) const {
        const int32_t l1 = t_.bufferPool_.l1Size;
        int32_t dA = (l1 / kDbOn / b.baseM / b.baseK) * BITS_PER_BYTE / BitsA();
        int32_t dB = ((l1 + 256) / kDbOn / b.baseN / b.baseK) * BITS_PER_BYTE / BitsB();
        const int32_t biasRowBytes =
            t_.isBias ? b.baseN * TypeBits(t_.biasType_.dataType) / BITS_PER_BYTE : 0;
        const int32_t aBytes = AHeight(b.baseM) * AWidth(b.baseK) * BitsA() / BITS_PER_BYTE;
        const int32_t bBytes = BHeight(b.baseK) * BWidth(b.baseN) * BitsB() / BITS_PER_BYTE;
        const int64_t wanted = int64_t{dA} * aBytes + int64_t{dB} * bBytes;
        if (wanted > l1 - biasRowBytes) {
            if (AHeight(b.baseM) <= BWidth(b.baseN)) {
                dA /= kDbOn;
            } else {
                dB /= kDbOn;
            }
        }
        std::array<int32_t, 2> steps{dA / kDbOn, dB / kDbOn};  // A's, B's
        for (int32_t& st : steps) TrimStepK(b, st);
        // the larger step (A's on a tie, unless B's is 0) drops to a multiple of the other
        const bool aLeads = steps[0] >= steps[1] && steps[1] != 0;
        int32_t& larger = aLeads ? steps[0] : steps[1];
        const int32_t smaller = aLeads ? steps[1] : steps[0];
        if (smaller != 0) larger -= larger % smaller;
        std::tie(stepKa, stepKb) = std::make_pair(steps[0], steps[1]);
        std::tie(depthA1, depthB1) = std::make_pair(steps[0] * kDbOn, steps[1] * kDbOn);
    }

    // ---- the general multi-core split (SplitCores) ----

    struct DimSearch {
        int32_t bestBatchCut = 1, bestMCut = 1, bestNCut = 1, bestKCut = 1;
        int64_t leastLoad = INT_MAX;
        int32_t coresUsed = 1;
        int32_t l0Steps = INT_MAX;
        bool wideShares = false;
        int64_t kRowBytes = 0;
        int64_t aRowsAll = 0, bColsAll = 0, aRowsCore = 0, bColsCore = 0;
        int64_t loadTotal = 0;
        std::vector<int32_t> batchCuts, mCuts, nCuts, kCuts;
    };

    // A shape whose fractals are fewer than the cores and fit L0 whole runs on few cores: N and M
    // split in 32-fractal pieces of their mapped shapes.
    bool MiniShape(CoreShare& core, Fractals& p) const {
        const int32_t l0cLimit = t_.bufferPool_.l0CSize / (C0_SIZE * C0_SIZE) / FP32_BYTES;
        const int32_t l0abLimit = t_.bufferPool_.l0ASize / kFractalBytes;
        const bool kOverCores = t_.enableSplitK_;
        bool special = false;
        if (p.n > 32) special = special || (kOverCores && (p.nSnap & 31) != 0);
        if (p.m > 32) special = special || (kOverCores && (p.mSnap & 31) != 0);
        const int64_t m = p.m, n = p.n, k = p.k;
        if (!(p.batch * n * m <= cores_ && m * k <= l0abLimit && n * k <= l0abLimit &&
              m * n <= l0cLimit && !special)) {
            return false;
        }
        core.batchCores = p.batch;
        core.nDim = p.n <= 32 ? 1 : p.nSnap / 32;
        core.mDim = p.m <= 32 ? 1 : p.mSnap / 32;
        const std::array<int32_t, 2> kc = TwoFactors(core.kCores, p.k, cores_);
        core.kCores = (p.k <= 32 || !kOverCores) ? 1 : (kc[1] > 1 ? kc[1] : kc[0]);
        core.batch = 1;
        core.n = core.nDim == 1 ? p.n : CeilDiv32(p.nSnap, core.nDim);
        core.m = core.mDim == 1 ? p.m : CeilDiv32(p.mSnap, core.mDim);
        core.k = core.kCores == 1 ? p.k : CeilDiv32(p.kSnap, core.kCores);
        p.kUneven = core.kCores == 0 ? false : p.k % core.kCores != 0;
        return true;
    }

    // The probe block the core-split search measures a share with: N up to 16 fractals, M up
    // to 16 within 128 fractals of C, K up to 64 fractals of either side.
    struct Probe {
        int32_t m, n, k;
    };
    static int32_t ProbeK(int32_t m, int32_t n, int32_t k) {
        return (m != 0 && n != 0) ? std::min({64 / m, 64 / n, k}) : k;
    }
    static Probe ProbeBlock(const CoreShare& c) {
        const int32_t n = std::min(16, c.n);
        const int32_t m = n == 0 ? 0 : std::min({16, c.m, 128 / n});
        return {m, n, ProbeK(m, n, c.k)};
    }

    // The fractals of A and B all cores load from GM under the best L1 plan the per-core shares
    // allow (both held whole, one whole and the other's K whole, ...). The loads kept are the
    // smallest total seen, its two parts replacing the shares' sizes the later tests weigh.
    void GmLoadFractals(int32_t fm, int32_t fn, const CoreShare& core, const Fractals& p,
                        DimSearch& s) const {
        const int64_t l1 = t_.bufferPool_.l1Size;
        s.loadTotal = INT_MAX;
        const auto keep = [&s](int64_t first, int64_t second) {
            if (first + second >= s.loadTotal) return;
            s.loadTotal = first + second;
            std::tie(s.aRowsCore, s.bColsCore) = std::make_pair(first, second);
        };
        const Probe probe = ProbeBlock(core);
        const int64_t mp = probe.m, np = probe.n;
        const int64_t kb = s.kRowBytes;  // the bytes of one fractal row of the share's K
        // a probe's K panel of A (of B), in bytes
        const int64_t aPanel = mp * probe.k * kFractalBytes, bPanel = np * probe.k * kFractalBytes;
        const int64_t aRows = s.aRowsCore, bCols = s.bColsCore;
        // the passes over A (B) when B (A) streams in probe-wide pieces
        const int64_t aPasses = CeilDiv(p.n, np), bPasses = CeilDiv(p.m, mp);
        // one share whole with two probe rows of the other (or both shares) fit: each loads once
        if (std::min({aRows + 2 * np, bCols + 2 * mp, aRows + bCols}) * kb <= l1) {
            keep(s.aRowsAll * fn, s.bColsAll * fm);
            return;
        }
        // not even a probe row and the other side's panel, double-buffered: probe-sized passes
        if (2 * (np * kb + aPanel) > l1 && 2 * (mp * kb + bPanel) > l1) {
            keep(s.aRowsAll * aPasses, s.bColsAll * bPasses);
            return;
        }
        // two K rows of both probes fit: as many rows of one side as the rest of L1 takes
        if (2 * (mp + np) * kb <= l1) {
            const int64_t mHeld = CeilDiv(l1 - 2 * np * kb, 2 * kb * mp) * mp;
            const int64_t nHeld = CeilDiv(l1 - 2 * mp * kb, 2 * kb * np) * np;
            const int64_t bAgain = s.bColsAll * CeilDiv(p.m, mHeld);
            const int64_t aAgain = s.aRowsAll * CeilDiv(p.n, nHeld);
            if (s.aRowsAll * fn + bAgain < s.bColsAll * fm + aAgain) {
                keep(s.aRowsAll * fn, bAgain);
            } else {
                keep(aAgain, s.bColsAll * fm);
            }
            return;
        }
        // else A's share (B's) whole against B's (A's) probe panels; the second test reads the
        // sizes the first may have replaced, as CANN's host algorithm does
        if (std::min(s.aRowsCore, 2 * mp) * kb + 2 * bPanel <= l1) {
            keep(s.aRowsAll * fn, s.bColsAll * bPasses);
        }
        if (std::min(s.bColsCore, 2 * np) * kb + 2 * aPanel <= l1) {
            keep(s.bColsAll * fm, s.aRowsAll * aPasses);
        }
    }

    // The L0 steps of a core's share with probe blocks refined from both sides (64 fractals a
    // side at most).
    static int32_t LoopsToL0(const CoreShare& c) {
        const auto fit = [](int32_t len, int32_t other) {
            return other == 0 ? 0 : std::min({len, 128 / other, 64});
        };
        int32_t nTile = std::min(16, c.n);
        int32_t mTile = fit(c.m, nTile);
        nTile = fit(c.n, mTile);
        mTile = fit(c.m, nTile);
        const int32_t kTile = ProbeK(mTile, nTile, c.k);
        return Clamp32(CeilDiv(c.m, mTile) * CeilDiv(c.n, nTile) * CeilDiv(c.k, kTile));
    }

    // 2 to take a split outright (no split yet with 16 fractals of the outer axis a core), 1 to
    // refuse it (it would break such a split), 0 to weigh it.
    int32_t BigPackage(const CoreShare& c, const DimSearch& s, const Fractals& p) const {
        if (t_.bType_.isTrans && !t_.aType_.isTrans) return 0;
        bool flag = true;
        if (!t_.bType_.isTrans && p.n >= 16 && c.n < 16) flag = false;
        if (t_.aType_.isTrans && p.m >= 16 && c.m < 16) flag = false;
        if (!s.wideShares) return flag ? 2 : 0;
        return flag ? 0 : 1;
    }

    // B (in TSCM) whole, a small A block and the bias fit L1.
    bool PolicyAllows(const CoreShare& c, const DimSearch& s) const {
        if (t_.bType_.pos != TPosition::TSCM) return true;
        const Probe probe = ProbeBlock(c);
        const int32_t nGranule = CeilDiv32(t_.alignSingleN, C0_SIZE);
        if (c.n < nGranule) return false;
        const int64_t alignN = RoundUp(c.n, nGranule);
        const int64_t bSize = alignN * s.kRowBytes * 2;
        const int64_t aSize = static_cast<int64_t>(probe.m) * probe.k * kFractalBytes;
        int64_t bias = 0;
        if (t_.isSupportL0c2Out && t_.isBias) {
            bias = alignN * C0_SIZE * TypeBytes(t_.biasType_.dataType);
        }
        return bSize + aSize + bias <= t_.bufferPool_.l1Size;
    }

    // Weigh one batch x m x k x n split of the cores.
    void Weigh(int32_t fb, int32_t fm, int32_t fk, int32_t fn, CoreShare& c, DimSearch& s,
               const Fractals& p) {
        int64_t kElems = fk == 0 ? 0 : static_cast<int64_t>(p.k / fk) * C0_SIZE * 16;
        s.kRowBytes = kElems * 2;
        c.batch = CeilDiv32(p.batch, fb);
        c.m = CeilDiv32(p.m, fm);
        c.n = CeilDiv32(p.n, fn);
        c.k = fk == 0 ? 0 : p.k / fk;
        if (t_.enableSplitK_ && p.kSnap != p.k) c.k = p.kSnap / fk * 2;
        s.aRowsAll = static_cast<int64_t>(p.batch) * p.m;
        s.bColsAll = p.n;
        s.aRowsCore = static_cast<int64_t>(c.batch) * c.m;
        s.bColsCore = c.n;
        GmLoadFractals(fm, fn, c, p, s);
        if (t_.enableSplitK_) s.loadTotal *= c.k;
        const int32_t big = BigPackage(c, s, p);
        const int32_t loops = LoopsToL0(c);
        const int32_t use = fb * fm * fk * fn;
        const bool byCores = big == 0 && (loops < s.l0Steps ||
                                          (use > s.coresUsed && loops == s.l0Steps));
        const bool byLoad = !byCores && use == s.coresUsed && s.loadTotal < s.leastLoad;
        const bool byN = !byCores && use == s.coresUsed && s.loadTotal == s.leastLoad &&
                         (s.bestNCut * s.bestMCut < fm * fn ||
                          (s.bestNCut * s.bestMCut == fm * fn && s.bestBatchCut < fb));
        if ((big == 2 || byCores || byLoad || byN) && PolicyAllows(c, s) && big != 1) {
            std::tie(s.bestBatchCut, s.bestMCut, s.bestNCut, s.bestKCut) =
                std::make_tuple(fb, fm, fn, fk);
            std::tie(s.leastLoad, s.coresUsed, s.l0Steps) =
                std::make_tuple(s.loadTotal, use, loops);
            s.wideShares = (!t_.bType_.isTrans ? c.n >= 16 : true) &&
                           (t_.aType_.isTrans ? c.m >= 16 : true) && fn * fm * fk > 1;
            coreSplitFound_ = true;
        }
    }

    static void InsertSorted(std::vector<int32_t>& v, int32_t f) {
        v.push_back(f);
        std::sort(v.begin(), v.end());
        v.erase(std::unique(v.begin(), v.end()), v.end());
    }
    // 1..upper dividing the shape, its mapped shape or the core count.
    static std::vector<int32_t> BlockFactors(int32_t ori, int32_t mapped, int32_t cores,
                                             int32_t upper) {
        std::vector<int32_t> v;
        for (int32_t i = 1; i <= upper; ++i) {
            if (ori % i == 0 || mapped % i == 0 || cores % i == 0) v.push_back(i);
        }
        return v;
    }

    // The split of the cores over batch, M, N (and K when split) whose per-core shares
    // load the least from GM, preferring more cores used and fewer L0 steps.
    void SplitCores(Fractals& p, CoreShare& core) {
        if (MiniShape(core, p)) {
            core.batchCores = CeilDiv32(p.batch, core.batch);
            core.nDim = CeilDiv32(p.n, core.n);
            core.mDim = CeilDiv32(p.m, core.m);
            core.kCores = CeilDiv32(p.k, core.k);
            ReserveBForTscm(core);
            coreSplitFound_ = true;
            return;
        }
        DimSearch s;
        s.batchCuts = BlockFactors(p.batch, p.batchSnap, cores_, std::min(cores_, p.batch));
        s.mCuts = BlockFactors(p.m, p.mSnap, cores_, std::min(cores_, p.m));
        s.nCuts = BlockFactors(p.n, p.nSnap, cores_, std::min(cores_, p.n));
        if (!t_.enableSplitK_) {
            s.kCuts.push_back(1);
            p.kSnap = p.k;
        } else {
            s.kCuts = BlockFactors(p.k, p.kSnap, cores_, cores_);
        }
        // The split that keeps a core's M:N like the whole's
        const int32_t coresPerBatch = CeilDiv32(cores_, p.batch);
        if (coresPerBatch > 1) {
            const float opt = static_cast<float>(std::sqrt((p.m + 0.0f) / p.n * coresPerBatch));
            const int32_t mGuess = static_cast<int32_t>(std::ceil(opt));
            const int32_t nGuess = static_cast<int32_t>(std::ceil(coresPerBatch / opt));
            InsertSorted(s.mCuts, mGuess);
            InsertSorted(s.mCuts, nGuess == 0 ? 1 : coresPerBatch / nGuess);
            InsertSorted(s.nCuts, nGuess);
            InsertSorted(s.nCuts, mGuess == 0 ? 1 : coresPerBatch / mGuess);
        }
        const auto invalid = [this](int64_t f) { return f > cores_ || f <= 0; };
        for (int32_t fb : s.batchCuts) {
            for (int32_t fn : s.nCuts) {
                if (invalid(static_cast<int64_t>(fb) * fn)) continue;
                for (int32_t fm : s.mCuts) {
                    if (invalid(static_cast<int64_t>(fb) * fn * fm)) continue;
                    for (int32_t fk : s.kCuts) {
                        if (invalid(static_cast<int64_t>(fb) * fn * fm * fk)) continue;
                        Weigh(fb, fm, fk, fn, core, s, p);
                    }
                }
            }
        }
        core.batch = CeilDiv32(p.batch, s.bestBatchCut);
        core.n = CeilDiv32(p.n, s.bestNCut);
        core.m = CeilDiv32(p.m, s.bestMCut);
        core.k = CeilDiv32(p.k, s.bestKCut);
        // Shares the L0/L1 search can divide well, if the cores still suffice
        const int32_t n = BestShare(p.n, p.nSnap, s.bestNCut, false);
        const int32_t m = BestShare(p.m, p.mSnap, s.bestMCut, false);
        const int32_t k = BestShare(p.k, p.kSnap, s.bestKCut, true);
        const int64_t need = CeilDiv(p.batch, core.batch) * CeilDiv(p.n, n) * CeilDiv(p.m, m) *
                             CeilDiv(p.k, k);
        if (!invalid(need)) {
            core.n = n;
            core.m = m;
            core.k = k;
        }
        p.kUneven = p.k != p.kSnap;
        // The cores each axis then takes
        core.batchCores = std::min(CeilDiv32(p.batch, core.batch), cores_);
        core.nDim = std::min(CeilDiv32(p.n, core.n), cores_);
        core.mDim = std::min(CeilDiv32(p.m, core.m), cores_);
        core.kCores = t_.enableSplitK_ ? std::min(CeilDiv32(p.k, core.k), cores_) : s.bestKCut;
        ReserveBForTscm(core);
    }

    // B in TSCM keeps its share of L1 for the rest of the plan.
    void ReserveBForTscm(const CoreShare& c) {
        if (t_.bType_.pos != TPosition::TSCM) return;
        const int64_t n = RoundUp(c.n, CeilDiv32(t_.alignSingleN, C0_SIZE));
        const int64_t bSize = n * c.k * kFractalBytes * 2;
        t_.bufferPool_.l1Size =
            static_cast<int32_t>(std::max<int64_t>(INT32_MIN, t_.bufferPool_.l1Size - bSize));
    }

    // ---- L0: the base block ----

    struct L0Best {
        int32_t m = 0, k = 0, n = 0;
        int32_t load = INT_MAX;
        float l0cUse = 0;
        int32_t mul = 0;
        int32_t mte1Issues = INT_MAX;
        int32_t mte1Cycles = 0;
        bool usingMte1 = false;
    };

    // The fractals a core loads from L1 into L0 with mBlk x nBlk x kBlk blocks.
    int32_t L0LoadSize(const CoreShare& c, int32_t mBlk, int32_t nBlk, int32_t kBlk) const {
        const bool aWhole = int64_t{c.m} * c.k * kFractalBytes <= t_.bufferPool_.l0ASize;
        const bool bWhole = int64_t{c.n} * c.k * kFractalBytes <= t_.bufferPool_.l0BSize;
        const int64_t m = c.m, n = c.n;
        if (aWhole || bWhole) return Clamp32(m + n);
        if (kBlk >= c.k) {
            return Clamp32(std::min(n + CeilDiv(n, nBlk) * m, m + CeilDiv(m, mBlk) * n));
        }
        return Clamp32(CeilDiv(m, mBlk) * n + CeilDiv(n, nBlk) * m);
    }

    // One base block of A and B (and the bias row, the dequant row) fit L1.
    bool BaseFitsL1(int32_t mBlk, int32_t nBlk, int32_t kBlk) const {
        int64_t a = static_cast<int64_t>(mBlk) * kBlk * kFractalBytes;
        int64_t b = static_cast<int64_t>(nBlk) * kBlk * kFractalBytes;
        int64_t bias = A2OrV300() ? int64_t{nBlk} * C0_SIZE * TypeBytes(t_.biasType_.dataType) : 0;
        const int64_t deq = t_.deqType == DequantType::TENSOR ? int64_t{nBlk} * C0_SIZE * 8 : 0;
        if (t_.aType_.pos == TPosition::TSCM) a = 0;
        if (t_.bType_.pos == TPosition::TSCM) b = 0;
        if (t_.biasType_.pos == TPosition::TSCM || !t_.isBias) bias = 0;
        return a + b + bias + deq <= t_.bufferPool_.l1Size;
    }

    bool FloatNz() const {
        return (AFloat() && t_.aType_.type == CubeFormat::NZ && t_.aType_.isTrans) ||
               (BFloat() && t_.bType_.type == CubeFormat::NZ && !t_.bType_.isTrans);
    }

    // Keep mBlk x nBlk x kBlk if it loads less, or loads as much with more MACs a block (and L0C
    // use), or fewer MTE1 loads; once MTE1 can keep up with the cube, only blocks where it still
    // does.
    void Consider(const CoreShare& c, int32_t mBlk, int32_t nBlk, int32_t kBlk,
                  L0Best& best) const {
        const float l0cUse = static_cast<float>(mBlk * nBlk * kDbOff * kL0cFractalBytes * 1.0 /
                                                t_.bufferPool_.l0CSize);
        const int32_t mte1 = std::max(2 * 3, mBlk * kBlk * kFractalBytes / 256) +
                             std::max(2 * 3, kBlk * nBlk * kFractalBytes / 128);
        const int32_t mad = mBlk * kBlk * nBlk;
        const int32_t load = L0LoadSize(c, mBlk, nBlk, kBlk);
        const int32_t mte1Issues = (nBlk != 1 ? kBlk : 1) + (kBlk != 1 ? mBlk : 1);
        const bool better = best.m == 0 || load < best.load || (mte1 < mad && !best.usingMte1) ||
                            (load == best.load && mad > best.mul &&
                             mad * l0cUse >= best.mul * best.l0cUse) ||
                            (mad == best.mul && load == best.load && mte1Issues < best.mte1Issues);
        const bool pipelined = (mte1 < mad && best.usingMte1) || !best.usingMte1;
        const int32_t lastReduce = (AFloat() || BFloat()) ? 8 : 16;
        const bool wideN = t_.baseN != -1 || !(c.n >= lastReduce && nBlk < lastReduce);
        const bool kEven = !FloatNz() || kBlk % 2 == 0;
        if (better && pipelined && BaseFitsL1(mBlk, nBlk, kBlk) && wideN && kEven) {
            const bool pipelinedNow = best.usingMte1 || mte1 < mad;
            best = L0Best{mBlk, kBlk, nBlk, load, l0cUse, mad, mte1Issues, mte1, pipelinedNow};
        }
    }

    // The candidates of one axis (TwoFactors around a point, of the shape and of the power of
    // two below it), or the fixed value.
    static std::vector<int32_t> Candidates(int32_t point, int32_t dim, int32_t upper) {
        const std::array<int32_t, 2> a = TwoFactors(point, dim, upper);
        const std::array<int32_t, 2> b = TwoFactors(point, PowerOfTwoBelow(dim), upper);
        return {a[0], a[1], b[0], b[1]};
    }

    // The base-block search for one major axis (0: M, 1: N): walk the major axis's candidates, the
    // minor's within L0C, then K's within L0A/L0B.
    void SearchL0(const CoreShare& c, int32_t axis, L0Best& best) const {
        const BufferPool& pool = t_.bufferPool_;
        const int32_t l0cFractals = pool.l0CSize / (C0_SIZE * C0_SIZE) / FP32_BYTES;
        const bool biasInTable = t_.isSupportL0c2Out && t_.isBias;
        const int32_t btN = A2OrV300() ? pool.btSize / C0_SIZE / FP32_BYTES : 64;
        const int32_t maxN = biasInTable ? btN : 64;
        // the most mBlk * kBlk (nBlk * kBlk) fractals L0A (L0B) holds, 64 for a matrix in TSCM
        const int32_t capAK = t_.aType_.pos == TPosition::TSCM
                                  ? 64
                                  : std::min(pool.l1Size, pool.l0ASize / l0aBuffers_) /
                                        kFractalBytes;
        const int32_t capBK = t_.bType_.pos == TPosition::TSCM
                                  ? 64
                                  : std::min(pool.l1Size, pool.l0BSize / l0bBuffers_) /
                                        kFractalBytes;
        constexpr int32_t kAxisNum = 64;
        constexpr int32_t kAxisPoint = 11;
        const bool int8B = BitsB() == 8 || BitsB() == 4;
        const int32_t l0bAlign = int8B ? 2 : 1;
        const int32_t majorLen = axis == 0 ? c.m : RoundUp(c.n, l0bAlign);
        const int32_t minorLen = axis == 0 ? RoundUp(c.n, l0bAlign) : c.m;
        const int32_t majorK = axis == 0 ? capAK : capBK;
        const int32_t minorK = axis == 0 ? capBK : capAK;
        const auto alignL0b = [&](std::vector<int32_t>& v) {
            if (int8B) {
                for (int32_t& x : v) x = RoundUp(x, 2);
            }
        };

        std::vector<int32_t> majors;
        if (t_.baseN != -1 && axis != 0) {
            majors = {CeilDiv32(t_.baseN, C0_SIZE)};
        } else if (t_.baseM != -1 && axis == 0) {
            majors = {CeilDiv32(t_.baseM, C0_SIZE)};
        } else {
            const bool nBias = axis != 0 && biasInTable;
            majors = Candidates(nBias ? std::min(kAxisPoint, maxN) : kAxisPoint, majorLen,
                                nBias ? std::min(kAxisNum, maxN) : kAxisNum);
            if (axis != 0) alignL0b(majors);
        }
        for (int32_t major : Descending(majors)) {
            if (major == 0 || major > l0cFractals || major > majorK || major > majorLen) continue;
            const int32_t minorMax = std::min(l0cFractals / major, minorK);
            std::vector<int32_t> minors;
            if (t_.baseN != -1 && axis == 0) {
                minors = {CeilDiv32(t_.baseN, C0_SIZE)};
            } else if (t_.baseM != -1 && axis != 0) {
                minors = {CeilDiv32(t_.baseM, C0_SIZE)};
            } else {
                const bool nBias = axis == 0 && biasInTable;
                minors = Candidates(nBias ? std::min(minorMax, maxN) : minorMax, minorLen,
                                    nBias ? std::min(minorMax, maxN) : minorMax);
                if (axis == 0) alignL0b(minors);
            }
            for (int32_t minor : Descending(minors)) {
                if (minor == 0 || minor * major > l0cFractals || minor > minorK ||
                    minor > minorLen || minor > majorK) {
                    continue;
                }
                // the bias table: a base row of at most 64 fractals of N
                const int32_t nFractals = axis != 0 ? major : minor;
                if (nFractals > 64 && biasInTable) continue;
                const int32_t kFit = std::min(majorK / major, minorK / minor);
                const std::array<int32_t, 2> a = TwoFactors(kFit, c.k, kFit);
                const std::array<int32_t, 2> b = TwoFactors(kFit, PowerOfTwoBelow(c.k), kAxisNum);
                for (int32_t kTile : Descending({a[0], a[1], b[0], b[1]})) {
                    if (kTile == 0 || minor * kTile > minorK || major * kTile > majorK) continue;
                    if (FloatNz() && kTile == 1) kTile = 2;  // a float NZ K of 8 takes two fractals
                    const int32_t mBlk = axis == 0 ? major : minor;
                    const int32_t nBlk = axis == 0 ? minor : major;
                    if (!L0BuffersFit(mBlk, nBlk, kTile)) continue;
                    Consider(c, mBlk, nBlk, kTile, best);
                }
            }
        }
    }

    // Float and 8/4-bit blocks double-buffered in L0A/L0B, with their transposed paddings.
    bool L0BuffersFit(int32_t mBlk, int32_t nBlk, int32_t kTile) const {
        int64_t l0a = 0, l0b = 0;
        const int64_t unit = static_cast<int64_t>(C0_BYTE_SIZE) * C0_SIZE * kDbOn;
        if (AFloat()) {
            l0a = (t_.aType_.isTrans ? RoundUp(kTile, 2) : kTile) * unit * mBlk;
            const bool evenK = t_.aType_.isTrans || !t_.bType_.isTrans;
            l0b = (evenK ? RoundUp(kTile, 2) : kTile) * unit * nBlk;
        } else if (BitsA() == 8 || BitsA() == 4) {
            l0a = kTile * unit * (t_.aType_.isTrans ? RoundUp(mBlk, 2) : mBlk);
            l0b = kTile * unit * (t_.bType_.isTrans ? nBlk : RoundUp(nBlk, 2));
        } else {
            return true;
        }
        return l0a <= t_.bufferPool_.l0ASize && l0b <= t_.bufferPool_.l0BSize;
    }

    // The M-major search, then the N-major one, whose block wins if it found one (L0C
    // single-buffered, as the default template).
    L0Plan ChooseL0(const CoreShare& c) const {
        L0Best m, n;
        SearchL0(c, 0, m);
        SearchL0(c, 1, n);
        const L0Best& best = n.m != 0 && n.k != 0 && n.n != 0 ? n : m;
        const int32_t biasBytes = t_.isBias ? TypeBytes(t_.biasType_.dataType) : 0;
        return L0Plan{best.m, best.n, best.k, l0aBuffers_, l0bBuffers_, kDbOff, biasBytes};
    }

    // ---- L1: what A1/B1 hold ----

    // A float matrix, or an int8 one transposed into its K fractals, takes twice the fractals in L1
    bool NeedAlignA() const {
        return AFloat() || (t_.aType_.dataType == DataType::DT_INT8 && t_.aType_.isTrans);
    }
    bool NeedAlignB() const {
        return BFloat() || (t_.bType_.dataType == DataType::DT_INT8 && !t_.bType_.isTrans);
    }
    // A float K takes even fractals where it is the transposed side.
    void KAlign(int32_t& ka, int32_t& kb) const {
        ka = kb = 1;
        if (AFloat() || BFloat()) {
            ka = t_.aType_.isTrans ? 2 : 1;
            kb = (t_.aType_.isTrans || !t_.bType_.isTrans) ? 2 : 1;
        }
    }

    // The L1 bytes of an L1 plan (0 when a factor is not positive or overflows).
    int32_t L1Bytes(const L1Plan& l1, const L0Plan& l0) const {
        const int32_t aConst = kFractalBytes * l1.bufA * (NeedAlignA() ? 2 : 1);
        const int32_t bConst = kFractalBytes * l1.bufB * (NeedAlignB() ? 2 : 1);
        const int32_t chConst = l1.biasRows * C0_SIZE * l1.bufB * l0.biasBytes;
        int32_t ka = 1, kb = 1;
        KAlign(ka, kb);
        int32_t a = PositiveProduct(PositiveProduct(PositiveProduct(l1.mBlocksA, l0.mBlk), aConst),
                                    RoundUp(l1.kHeldA, ka));
        int32_t b = PositiveProduct(PositiveProduct(PositiveProduct(l1.nBlocksB, l0.nBlk), bConst),
                                    RoundUp(l1.kHeldB, kb));
        if (a == 0 || b == 0) return 0;
        int32_t ch = 0;
        if (l1.biasRows > 0) {
            ch = PositiveProduct(PositiveProduct(l1.nBlocksB, l0.nBlk), chConst);
            if (ch == 0) return 0;
        }
        const int32_t deq = DequantBytes(l1, l0);
        if (t_.aType_.pos == TPosition::TSCM) a = 0;
        if (t_.bType_.pos == TPosition::TSCM) b = 0;
        if (t_.biasType_.pos == TPosition::TSCM) ch = 0;
        const int64_t total = static_cast<int64_t>(a) + b + ch + deq;
        return total > INT_MAX ? INT_MAX : static_cast<int32_t>(total);
    }

    enum class Axis { KA, KB, MA, NB };
    // The most K fractals (or base blocks along M/N) `bytes` of L1 hold. (0 where a factor is 0:
    // CANN divides by zero there)
    static int32_t MaxLen(int32_t bytes, const L1Plan& l1, const L0Plan& l0, int32_t align,
                          Axis axis) {
        const auto over = [](int32_t b, int32_t d) { return d <= 0 ? 0 : b / d; };
        switch (axis) {
            case Axis::KA:
                return RoundDown(over(bytes, l1.mBlocksA * l0.mBlk * l1.bufA * kFractalBytes),
                                 align);
            case Axis::KB:
                return RoundDown(over(bytes, l1.nBlocksB * l0.nBlk * l1.bufB * kFractalBytes),
                                 align);
            case Axis::MA:
                return over(bytes, RoundUp(l1.kHeldA, align) * l0.mBlk * l1.bufA * kFractalBytes);
            default:
                return over(bytes, RoundUp(l1.kHeldB, align) * l0.nBlk * l1.bufB * kFractalBytes +
                                       l1.biasRows * l0.nBlk * kFractalBytes);
        }
    }
    // The largest divisor of `base` at most `factor`.
    static void NearestFactor(int32_t base, int32_t& factor) {
        while (factor > base || (factor > 0 && base % factor != 0)) --factor;
    }
    int32_t DequantBytes(const L1Plan& l1, const L0Plan& l0) const {
        return t_.deqType == DequantType::TENSOR ? l1.nBlocksB * l0.nBlk * C0_SIZE * 8 : 0;
    }
    int32_t BiasBytes(const L1Plan& l1, const L0Plan& l0) const {
        return l1.biasRows * l1.nBlocksB * l0.nBlk * C0_SIZE * l0.biasBytes * l1.bufB;
    }

    // Mode 1: A and B whole in L1.
    void BothFull(const CoreShare& c, const L0Plan& l0, L1Plan& l1, L1Choice& out) const {
        l1.kHeldA = CeilDiv32(l1.kHeldA, l0.kBlk) * l0.kBlk;
        l1.kHeldB = CeilDiv32(l1.kHeldB, l0.kBlk) * l0.kBlk;
        const int32_t size = L1Bytes(l1, l0);
        const bool tscm = t_.aType_.pos == TPosition::TSCM && t_.bType_.pos == TPosition::TSCM;
        if ((size > 0 && size <= t_.bufferPool_.l1Size && t_.bufferPool_.ubSize >= 0) || tscm) {
            l1.bothHeldWhole = true;
            l1.gmLoad = (t_.aType_.pos == TPosition::TSCM ? 0 : c.m) +
                          (t_.bType_.pos == TPosition::TSCM ? 0 : c.n);
            out = {l1.kHeldA, l1.mBlocksA, l1.bufA, l1.kHeldB, l1.nBlocksB, l1.bufB, l1.gmLoad};
        }
    }

    // Mode 2: A whole, B in K steps (its whole K: as many N blocks as fit).
    void AFull(const CoreShare& c, const L0Plan& l0, L1Plan& l1, L1Choice& out) const {
        if (t_.bType_.pos == TPosition::TSCM) return;
        const BufferPool& pool = t_.bufferPool_;
        const int32_t mBlocksAll = CeilDiv32(c.m, l0.mBlk);
        const int32_t nBlocksAll = CeilDiv32(c.n, l0.nBlk);
        int32_t ka = 1, kb = 1;
        KAlign(ka, kb);
        l1.kHeldA = CeilDiv32(l1.kHeldA, l0.kBlk) * l0.kBlk;
        const int32_t size = L1Bytes(l1, l0);
        if (!(size > 0 && size <= pool.l1Size && 0 < pool.ubSize)) return;
        l1.aHeldWhole = true;
        l1.roomA = Clamp32(int64_t{std::max(RoundUp(c.k, ka), RoundUp(l1.kHeldA, ka))} *
                             std::max(l1.mBlocksA * l0.mBlk, c.m) * kFractalBytes);
        l1.roomB = t_.aType_.pos == TPosition::TSCM ? pool.l1Size : pool.l1Size - l1.roomA;
        l1.bufB = kDbOn;
        if (L1Bytes(l1, l0) > pool.l1Size) l1.bufB = kDbOff;
        const int32_t bias = BiasBytes(l1, l0);
        const int32_t room = l1.roomB - bias - DequantBytes(l1, l0);
        l1.kHeldB = std::min(MaxLen(room, l1, l0, kb, Axis::KB), c.k);
        l1.kStepsB = std::min(l1.kHeldB / l0.kBlk, l1.capKStepsB);
        NearestFactor(l1.kStepsAll, l1.kStepsB);
        l1.kHeldB = l1.kStepsB * l0.kBlk;
        if (l1.kHeldB == c.k) {
            l1.nBlocksB = std::min(MaxLen(l1.roomB, l1, l0, kb, Axis::NB), l1.capNBlocks);
            NearestFactor(nBlocksAll, l1.nBlocksB);
        }
        const bool invalid = l1.nBlocksB == 0 || l1.kHeldB == 0;
        const int32_t repeat = l1.kHeldB == c.k ? 1 : mBlocksAll;
        l1.gmLoad = invalid ? INT32_MAX
                              : Clamp32((t_.aType_.pos == TPosition::TSCM ? 0 : c.m) +
                                        int64_t{repeat} * c.n);
        if (l1.kHeldB == c.k && l1.nBlocksB * l0.nBlk == c.n) l1.bufB = kDbOff;
        out = {l1.kHeldA, l1.mBlocksA, l1.bufA, l1.kHeldB, l1.nBlocksB, l1.bufB, l1.gmLoad};
    }

    // Mode 3: B whole, A in K steps (its whole K: as many M blocks as fit).
    void BFull(const CoreShare& c, const L0Plan& l0, L1Plan& l1, L1Choice& out) const {
        if (t_.aType_.pos == TPosition::TSCM) return;
        const BufferPool& pool = t_.bufferPool_;
        const int32_t mBlocksAll = CeilDiv32(c.m, l0.mBlk);
        const int32_t nBlocksAll = CeilDiv32(c.n, l0.nBlk);
        int32_t ka = 1, kb = 1;
        KAlign(ka, kb);
        l1.kHeldB = CeilDiv32(l1.kHeldB, l0.kBlk) * l0.kBlk;
        const int32_t size = L1Bytes(l1, l0);
        if (!(size > 0 && size <= pool.l1Size && 0 < pool.ubSize)) return;
        l1.bHeldWhole = true;
        l1.roomB = Clamp32(int64_t{std::max(RoundUp(c.k, kb), RoundUp(l1.kHeldB, kb))} *
                             std::max(l1.nBlocksB * l0.nBlk, c.n) * kFractalBytes);
        l1.roomA = t_.bType_.pos == TPosition::TSCM ? pool.l1Size : pool.l1Size - l1.roomB;
        l1.bufA = kDbOn;
        if (L1Bytes(l1, l0) > pool.l1Size) l1.bufA = kDbOff;
        const int32_t bias = BiasBytes(l1, l0);
        const int32_t room = l1.roomA - bias - DequantBytes(l1, l0);
        l1.kHeldA = std::min(MaxLen(room, l1, l0, ka, Axis::KA), c.k);
        l1.kStepsA = std::min(l1.kHeldA / l0.kBlk, l1.capKStepsA);
        NearestFactor(l1.kStepsAll, l1.kStepsA);
        l1.kHeldA = l1.kStepsA * l0.kBlk;
        if (l1.kHeldA == c.k) {
            l1.mBlocksA = std::min(MaxLen(l1.roomA - bias, l1, l0, ka, Axis::MA), l1.capMBlocks);
            NearestFactor(mBlocksAll, l1.mBlocksA);
        }
        const bool invalid = l1.mBlocksA == 0 || l1.kHeldA == 0;
        const int32_t repeat = l1.kHeldA == c.k ? 1 : nBlocksAll;
        l1.gmLoad = invalid ? INT32_MAX
                              : Clamp32((t_.bType_.pos == TPosition::TSCM ? 0 : c.n) +
                                        int64_t{repeat} * c.m);
        if (l1.kHeldA == c.k && l1.mBlocksA * l0.mBlk >= c.m) l1.bufA = kDbOff;
        out = {l1.kHeldA, l1.mBlocksA, l1.bufA, l1.kHeldB, l1.nBlocksB, l1.bufB, l1.gmLoad};
    }

    // Drop B's (then A's) double buffer while the plan overflows L1, and take both back when the
    // whole K of B would not fit anyway.
    void NeitherDb(const CoreShare& c, const L0Plan& l0, L1Plan& l1, int32_t kbFirst) const {
        const int32_t l1Size = t_.bufferPool_.l1Size;
        const int32_t kept = l1.kHeldB;
        l1.kHeldB = kbFirst;
        if (L1Bytes(l1, l0) > l1Size) {
            l1.bufB = kDbOff;
            if (L1Bytes(l1, l0) > l1Size) l1.bufA = kDbOff;
        }
        l1.kHeldB = c.k;
        const bool both = c.m != l0.mBlk && c.k > l0.kBlk && L1Bytes(l1, l0) > l1Size;
        l1.kHeldB = kept;
        if (both) {
            l1.bufA = l1.bufB = kDbOn;
            if (L1Bytes(l1, l0) > l1Size) {
                l1.bufB = kDbOff;
                if (L1Bytes(l1, l0) > l1Size) l1.bufA = kDbOff;
            }
        }
    }

    // The K steps of an ND layout, the larger one first (kLead 1: A's).
    void NeitherKNd(const CoreShare& c, const L0Plan& l0, L1Plan& l1, int32_t kLead) const {
        const int32_t l1Size = t_.bufferPool_.l1Size;
        const int32_t bias = BiasBytes(l1, l0);
        const int32_t deq = DequantBytes(l1, l0);
        const int32_t c0Elems = BitsA() == 8 ? 32 : (BitsA() == 4 ? 64 : 16);
        const int32_t alignM = CeilDiv32(l1.mBlocksA * C0_SIZE, c0Elems) * c0Elems;
        const int32_t alignN = CeilDiv32(l1.nBlocksB * C0_SIZE, c0Elems) * c0Elems;
        const int32_t alignK = CeilDiv32(l0.kBlk * ReduceSize(), c0Elems) * c0Elems * BitsA() /
                               BITS_PER_BYTE;
        const bool aT = t_.aType_.isTrans, bT = t_.bType_.isTrans;
        const bool a8 = BitsA() == 8;
        const bool a84 = BitsA() == 8 || BitsA() == 4;
        const bool b84 = BitsB() == 8 || BitsB() == 4;
        if (kLead == 1) {
            l1.kHeldB = l0.kBlk;
            const bool padded = BFloat() || (aT && a8);
            if (padded) {
                l1.roomB = l1.kHeldB * l0.nBlk * C0_SIZE * alignK * l1.nBlocksB * l1.bufB;
            } else if (!bT && b84) {
                l1.roomB = l1.kHeldB * l0.nBlk * alignK * alignN * l1.bufB;
            } else {
                l1.roomB = l1.kHeldB * l1.nBlocksB * l0.nBlk * kFractalBytes * l1.bufB;
            }
            l1.roomA = l1Size - l1.roomB;
            const int32_t factor = l1.mBlocksA * l0.mBlk * C0_SIZE * l1.bufA * C0_BYTE_SIZE;
            l1.kHeldA = factor == 0 ? c.k : std::min((l1.roomA - bias - deq) / factor, c.k);
            l1.kStepsA = std::max(l1.kHeldA / l0.kBlk, 1);
            NearestFactor(l1.kStepsAll, l1.kStepsA);
            l1.kHeldA = l1.kStepsA * l0.kBlk;
            l1.roomA = l1.kHeldA * l1.mBlocksA * l0.mBlk * kFractalBytes * l1.bufA;
            l1.roomB = l1Size - l1.roomA;
            int32_t per = l1.nBlocksB * l0.nBlk * kFractalBytes * l1.bufB;
            if (padded) {
                per = l1.nBlocksB * l0.nBlk * C0_SIZE * l1.bufB * alignK;
            } else if (!bT && b84) {
                per = alignN * l0.nBlk * l1.bufB * alignK;
            }
            l1.kHeldB = std::min((l1.roomB - bias - deq) / per, c.k);
            l1.kStepsB = std::max(std::min(l1.kHeldB / l0.kBlk, l1.capKStepsB), 1);
            NearestFactor(l1.kStepsAll, l1.kStepsB);
            l1.kHeldB = l1.kStepsB * l0.kBlk;
        } else if (kLead == 2) {
            l1.kHeldA = l0.kBlk;
            const bool padded = (aT && AFloat()) || (!aT && a8);
            if (padded) {
                l1.roomA = l1.kHeldA * l1.mBlocksA * l0.mBlk * C0_SIZE * alignK * l1.bufA;
            } else if (aT && a8) {
                l1.roomA = l1.kHeldA * alignM * l0.mBlk * alignK * l1.bufA;
            } else {
                l1.roomA = l1.kHeldA * l1.mBlocksA * l0.mBlk * kFractalBytes * l1.bufA;
            }
            l1.roomB = l1Size - l1.roomA;
            const int32_t per = l1.nBlocksB * l0.nBlk * kFractalBytes * l1.bufB;
            l1.kHeldB = std::min((l1.roomB - bias - deq) / per, c.k);
            l1.kStepsB = std::max(l1.kHeldB / l0.kBlk, 1);
            NearestFactor(l1.kStepsAll, l1.kStepsB);
            l1.kHeldB = l1.kStepsB * l0.kBlk;
            l1.roomB = l1.kHeldB * l1.nBlocksB * l0.nBlk * kFractalBytes * l1.bufB;
            l1.roomA = l1Size - l1.roomB;
            if ((aT && AFloat()) || (!aT && a84)) {
                const int32_t factor = l1.mBlocksA * l0.mBlk * C0_SIZE * l1.bufA * alignK;
                l1.kHeldA = factor == 0 ? c.k : std::min((l1.roomA - bias - deq) / factor, c.k);
            } else if (aT && a8) {
                const int32_t per = alignM * l0.mBlk * l1.bufA * alignK;
                l1.kHeldA = std::min((l1.roomA - bias - deq) / per, c.k);
            } else {
                const int32_t factor = l1.mBlocksA * l0.mBlk * C0_SIZE * l1.bufA * C0_BYTE_SIZE;
                l1.kHeldA = factor == 0 ? c.k : std::min((l1.roomA - bias - deq) / factor, c.k);
            }
            l1.kStepsA = std::max(std::min(l1.kHeldA / l0.kBlk, l1.capKStepsA), 1);
            NearestFactor(l1.kStepsAll, l1.kStepsA);
            l1.kHeldA = l1.kStepsA * l0.kBlk;
        }
    }

    // B's whole K if it fits, A's K steps in the rest; else one K step for both that fits.
    void NeitherKNz(const CoreShare& c, const L0Plan& l0, L1Plan& l1) const {
        const int32_t l1Size = t_.bufferPool_.l1Size;
        l1.kHeldB = c.k;
        const int32_t bias = BiasBytes(l1, l0);
        const int32_t deq = DequantBytes(l1, l0);
        int32_t ka = 1, kb = 1;
        KAlign(ka, kb);
        const int32_t size = L1Bytes(l1, l0);
        if (size > 0 && size <= l1Size) {
            l1.roomB = Clamp32(int64_t{RoundUp(c.k, kb)} * l1.nBlocksB * l0.nBlk *
                               kFractalBytes * l1.bufB);
            l1.roomA = l1Size - l1.roomB;
            l1.kHeldA = std::min(MaxLen(l1.roomA - bias - deq, l1, l0, ka, Axis::KA), c.k);
            l1.kStepsA = std::max(std::min(l1.kHeldA / l0.kBlk, l1.capKStepsA), 1);
            NearestFactor(l1.kStepsAll, l1.kStepsA);
            l1.kHeldA = l1.kStepsA * l0.kBlk;
            return;
        }
        const int32_t perKBytes =
            l0.mBlk * kFractalBytes * l1.bufA + l0.nBlk * kFractalBytes * l1.bufB;
        int32_t kShared = std::min((l1Size - bias - deq) / perKBytes / l0.kBlk * l0.kBlk, c.k);
        const int32_t biasCols = t_.isBias ? l1.nBlocksB * l0.nBlk : 0;
        const int64_t aFractals =
            static_cast<int64_t>(l1.mBlocksA) * l0.mBlk * RoundUp(kShared, ka) * l1.bufA;
        const int64_t bFractals =
            static_cast<int64_t>(l1.nBlocksB) * l0.nBlk * RoundUp(kShared, kb) * l1.bufB;
        const int64_t biasL1 = int64_t{biasCols} * C0_SIZE * l0.biasBytes * l1.bufB + deq;
        if (AFloat() && (aFractals + bFractals) * kFractalBytes + biasL1 > l1Size) kShared -= 1;
        int32_t times = std::min(kShared / l0.kBlk, std::max(l1.capKStepsA, l1.capKStepsB));
        NearestFactor(l1.kStepsAll, times);
        times = std::min(times, l1.kStepsAll);
        l1.kHeldA = l1.kHeldB = times * l0.kBlk;
    }

    // The K steps of A and B, each a multiple of the other.
    void NeitherK(const CoreShare& c, const L0Plan& l0, L1Plan& l1) const {
        if (l0.kBlk == c.k) return;
        // whose K is sized first: 1 A's, 2 B's; 0 (A transposed, B not) plans as for NZ
        const bool aT = t_.aType_.isTrans, bT = t_.bType_.isTrans;
        const int32_t kLead = aT ? (bT ? 2 : 0) : (bT ? (l0.mBlk > l0.nBlk ? 1 : 2) : 1);
        if (kLead == 0) {
            NeitherKNz(c, l0, l1);
        } else {
            NeitherKNd(c, l0, l1, kLead);
        }
        ShrinkToMultiple(l1.kHeldA, l1.kHeldB, c.k);
        ShrinkToMultiple(l1.kHeldB, l1.kHeldA, c.k);
    }

    // A larger K hold that is no multiple of the smaller one drops until it is one and,
    // unless it meets the smaller, divides the core's K.
    static void ShrinkToMultiple(int32_t& larger, int32_t smaller, int32_t k) {
        if (smaller <= 0 || larger <= smaller || larger % smaller == 0) return;
        while (larger % smaller != 0 || (larger != smaller && k % larger != 0)) --larger;
    }

    // With whole K steps, as many M (then N) blocks as fit, M first or N first by the load; with
    // partial K steps, one block of each.
    void NeitherMN(const CoreShare& c, const L0Plan& l0, L1Plan& l1) const {
        const int32_t l1Size = t_.bufferPool_.l1Size;
        const int32_t mBlocksAll = CeilDiv32(c.m, l0.mBlk);
        const int32_t nBlocksAll = CeilDiv32(c.n, l0.nBlk);
        if (l0.biasBytes == FP32_BYTES && l1.biasRows > 0) ++l1.biasRows;
        int32_t bias = l1.biasRows * l1.nBlocksB * l0.nBlk * C0_SIZE * FP16_BYTES * l1.bufB;
        const int32_t deq = DequantBytes(l1, l0);
        int32_t ka = 1, kb = 1;
        KAlign(ka, kb);
        L1Plan mFirst = l1;
        L1Plan nFirst = l1;
        const auto clampTo = [](int32_t v, int32_t cap, int32_t repeat) {
            return std::max(std::min(std::min(v, cap), repeat), 1);
        };
        mFirst.roomB = RoundUp(mFirst.kHeldB, kb) * l0.nBlk * kFractalBytes * mFirst.bufB;
        mFirst.roomA = l1Size - mFirst.roomB;
        mFirst.mBlocksA = clampTo(MaxLen(mFirst.roomA - bias - deq, mFirst, l0, ka, Axis::MA),
                              mFirst.capMBlocks, mBlocksAll);
        NearestFactor(mBlocksAll, mFirst.mBlocksA);
        mFirst.roomA =
            RoundUp(mFirst.kHeldA, ka) * mFirst.mBlocksA * l0.mBlk * kFractalBytes * mFirst.bufA;
        mFirst.roomB = l1Size - mFirst.roomA;
        mFirst.nBlocksB = clampTo(MaxLen(mFirst.roomB - bias - deq, mFirst, l0, kb, Axis::NB),
                              mFirst.capNBlocks, nBlocksAll);
        NearestFactor(nBlocksAll, mFirst.nBlocksB);
        mFirst.gmLoad = Clamp32(c.m + c.n * CeilDiv(c.m, mFirst.mBlocksA * l0.mBlk));

        nFirst.roomA = RoundUp(nFirst.kHeldA, ka) * l0.mBlk * kFractalBytes * nFirst.bufA;
        nFirst.roomB = l1Size - nFirst.roomA;
        nFirst.nBlocksB = clampTo(MaxLen(nFirst.roomB - bias - deq, nFirst, l0, kb, Axis::NB),
                              nFirst.capNBlocks, nBlocksAll);
        NearestFactor(nBlocksAll, nFirst.nBlocksB);
        nFirst.roomB = Clamp32(int64_t{RoundUp(c.k, kb)} * nFirst.nBlocksB * l0.nBlk *
                               kFractalBytes * nFirst.bufB);
        nFirst.roomA = l1Size - nFirst.roomB;
        bias *= nFirst.nBlocksB;
        nFirst.mBlocksA = clampTo(MaxLen(nFirst.roomA - bias - deq, nFirst, l0, ka, Axis::MA),
                              nFirst.capMBlocks, mBlocksAll);
        NearestFactor(mBlocksAll, nFirst.mBlocksA);
        nFirst.gmLoad = Clamp32(c.m * CeilDiv(c.n, nFirst.nBlocksB * l0.nBlk) + c.n);

        const bool kaWhole = l1.kHeldA >= c.k, kbWhole = l1.kHeldB >= c.k;
        if (kaWhole && kbWhole) {
            l1 = nFirst.gmLoad > mFirst.gmLoad ? mFirst : nFirst;
        } else if (kaWhole) {
            mFirst.nBlocksB = 1;
            l1 = mFirst;
        } else if (kbWhole) {
            nFirst.mBlocksA = 1;
            l1 = nFirst;
        } else {
            l1.mBlocksA = 1;
            l1.nBlocksB = 1;
            l1.gmLoad = Clamp32(c.m * CeilDiv(c.n, mFirst.nBlocksB * l0.nBlk) +
                                  c.n * CeilDiv(c.m, mFirst.mBlocksA * l0.mBlk));
        }
    }

    // Mode 4: neither held whole: the buffers, the K steps, then the M and N blocks.
    void NeitherFull(const CoreShare& c, const L0Plan& l0, L1Plan& l1, L1Choice& out) const {
        if (t_.aType_.pos == TPosition::TSCM || t_.bType_.pos == TPosition::TSCM) return;
        NeitherDb(c, l0, l1, kDbOn);
        NeitherK(c, l0, l1);
        NeitherMN(c, l0, l1);
        out = {l1.kHeldA, l1.mBlocksA, l1.bufA, l1.kHeldB, l1.nBlocksB, l1.bufB, l1.gmLoad};
    }

    // The four modes' plans; the one loading least from GM wins, a full load taking ties where its
    // M and N blocks are at least as many (and, for ND A and B, only where its K covers the core's
    // K in one step).
    void ChooseL1(const CoreShare& c, const L0Plan& l0, L1Plan& l1) const {
        const int32_t mte1Issues =
            32 / ((l0.nBlk == 1 ? 1 : l0.kBlk) + (l0.kBlk == 1 ? 1 : l0.mBlk));
        l1.kStepsAll = CeilDiv32(c.k, l0.kBlk);
        l1.capMBlocks = (c.m + l0.mBlk - 1) / l0.mBlk;
        l1.capNBlocks = (c.n + l0.nBlk - 1) / l0.nBlk;
        // K steps: enough for 32 fractals of the other axis, at least one MTE1 burst
        const auto kCap = [&](int32_t outerBlk) {
            return std::max(mte1Issues, CeilDiv32(CeilDiv32(32, outerBlk), l0.kBlk));
        };
        l1.capKStepsA = kCap(l0.mBlk);
        l1.capKStepsB = kCap(l0.nBlk);
        if (t_.isSupportL0c2Out && t_.isBias) ++l1.biasRows;
        L1Choice modes[4];
        l1.Set(c.k, c.k, l1.capMBlocks, l1.capNBlocks, kDbOff, kDbOff);
        BothFull(c, l0, l1, modes[0]);
        l1.Set(c.k, l0.kBlk, l1.capMBlocks, 1, kDbOff, kDbOff);
        AFull(c, l0, l1, modes[1]);
        l1.Set(l0.kBlk, c.k, 1, l1.capNBlocks, kDbOff, kDbOff);
        BFull(c, l0, l1, modes[2]);
        modes[3].gmLoad = INT_MAX;
        l1.Set(l0.kBlk, l0.kBlk, 1, 1, kDbOn, kDbOn);
        NeitherFull(c, l0, l1, modes[3]);

        const int32_t kFractalsA = CeilDiv32(ShapeK(), ReduceSize());
        const auto kSteps = [&](int32_t k) {
            return k > 0 ? CeilDiv32(kFractalsA, c.kCores * k) : 1;
        };
        const bool nd = t_.aType_.type == CubeFormat::ND && t_.bType_.type == CubeFormat::ND;
        const bool aFull = nd ? (l1.aHeldWhole && kSteps(modes[1].kHeldA) == 1) : l1.aHeldWhole;
        const bool bFull = nd ? (l1.bHeldWhole && kSteps(modes[2].kHeldB) == 1) : l1.bHeldWhole;
        const bool both =
            nd ? (l1.bothHeldWhole && kSteps(modes[0].kHeldA) == 1 && kSteps(modes[0].kHeldB) == 1)
               : l1.bothHeldWhole;
        const L1Choice* pick = &modes[3];
        const auto takes = [&](const L1Choice& r) {
            if (r.gmLoad != pick->gmLoad) return r.gmLoad < pick->gmLoad;
            return r.mBlocksA + r.nBlocksB >= pick->mBlocksA + pick->nBlocksB;
        };
        if (aFull && takes(modes[1])) pick = &modes[1];
        if (bFull && takes(modes[2])) pick = &modes[2];
        if (both && takes(modes[0])) pick = &modes[0];
        l1.Set(pick->kHeldA, pick->kHeldB, pick->mBlocksA, pick->nBlocksB, pick->bufA, pick->bufB);
    }

    // ---- the tiling (WritePlan) ----

    // C's bytes (twice) outweigh A's and B's.
    bool COutweighsInputs(int32_t m, int32_t n, int32_t k) const {
        const int64_t cBits = TypeBits(t_.cType_.dataType);
        return static_cast<int64_t>(n) * m * 2 * cBits >
               static_cast<int64_t>(n) * k * BitsA() + static_cast<int64_t>(m) * k * BitsB();
    }

    // A core's share of the shape (the fractal-rounded M and N when split over cores, aligned to
    // 256 bytes where the split scenario or NZ formats ask).
    void SingleShape(const CoreShare& c, const Fractals& p, int32_t& coreM, int32_t& coreN,
                     int32_t& sk) const {
        coreM = CeilDiv32(ShapeM(), c.mDim);
        coreN = CeilDiv32(ShapeN(), c.nDim);
        sk = CeilDiv32(ShapeK(), c.kCores);
        if (singleShapeGiven_) {
            const std::array<int32_t, 3> given = GivenCoreShape();
            std::tie(coreM, coreN, sk) = std::make_tuple(given[0], given[1], given[2]);
        }
        if (cores_ <= 1) return;
        const int32_t aAlign = 256 * BITS_PER_BYTE / BitsA();
        const int32_t bAlign = 256 * BITS_PER_BYTE / BitsB();
        const Scenario s = GetScenario();
        const bool alignShares = s == Scenario::SplitMN || s == Scenario::SplitSmallMN ||
                               t_.aType_.type == CubeFormat::NZ || t_.bType_.type == CubeFormat::NZ;
        const bool outAlign = COutweighsInputs(coreM, coreN, sk);
        const bool cNz = t_.cType_.type == CubeFormat::NZ;
        AlignShare((alignShares && (!t_.bType_.isTrans || outAlign)) || cNz, p.n * C0_SIZE, c.nDim,
                   bAlign, coreN);
        AlignShare((alignShares && t_.aType_.isTrans) || cNz, p.m * C0_SIZE, c.mDim, aAlign, coreM);
        if (t_.enableSplitK_) {
            const auto is = [&](DataType d) {
                return t_.aType_.dataType == d || t_.bType_.dataType == d;
            };
            const int32_t unit = is(DataType::DT_FLOAT) ? 8 : is(DataType::DT_INT8) ? 32
                                 : is(DataType::DT_INT4) ? 64 : 16;
            sk = CeilDiv32(p.k, c.kCores) * unit;
        }
    }

    // SetTraverse's order; else along N first when only A's K is held whole, along M first when
    // only B's is (or neither), and by the GM loads when both are.
    int32_t IterateOrder(const L0Plan& l0, const L1Plan& l1, int32_t coreM, int32_t coreN,
                         int32_t sk) const {
        if (t_.traverse_ != MatrixTraverse::NOSET) return static_cast<int32_t>(t_.traverse_) - 1;
        const int32_t reduce = ReduceSize();
        const bool aK = !(static_cast<float>(sk) / (l1.kHeldA * reduce) > 1.0);
        const bool bK = !(static_cast<float>(sk) / (l1.kHeldB * reduce) > 1.0);
        if (!aK && !bK) return 0;
        if (aK && !bK) return 1;
        if (!aK && bK) return 0;
        const int32_t mPasses = CeilDiv32(coreM, l1.mBlocksA * l0.mBlk * C0_SIZE);
        const int32_t nPasses = CeilDiv32(coreN, l1.nBlocksB * l0.nBlk * C0_SIZE);
        const int64_t aLoad = coreM + int64_t{coreN} * mPasses;
        const int64_t bLoad = coreN + int64_t{coreM} * nPasses;
        return aLoad < bLoad ? 1 : 0;
    }

    // A float B on the A2/A3 pads baseK to 16 in L1; fewer B blocks when that overflows L1.
    int32_t DepthB1(const L0Plan& l0, const L1Plan& l1) const {
        int32_t depth = CeilDiv32(l1.kHeldB, l0.kBlk) * l1.nBlocksB * l1.bufB;
        if (!BFloat() || t_.socVersion != platform_ascendc::SocVersion::ASCEND910B) return depth;
        const uint16_t alignedK = static_cast<uint16_t>(CeilDiv32(t_.baseK, 16) * 16);
        const uint16_t alignedKN = static_cast<uint16_t>(alignedK * t_.baseN);
        uint16_t alignedKM = static_cast<uint16_t>(t_.baseK * t_.baseM);
        if (t_.aType_.isTrans && AFloat()) alignedKM = static_cast<uint16_t>(alignedK * t_.baseM);
        const int64_t bytes = (static_cast<int64_t>(t_.tiling_.get_depthA1()) * alignedKM +
                               static_cast<int64_t>(alignedKN) * depth) * 4;
        if (bytes > t_.bufferPool_.l1Size && alignedKN != 0) {
            depth = std::max(t_.baseN * t_.baseK * depth / alignedKN, 1);
        }
        return depth;
    }

    // A 310P/910/310B ND2NZ staging row that would hit the same UB bank takes one fractal row more.
    int64_t BankConflict(bool forA) const {
        const optiling::TCubeTiling& r = t_.tiling_;
        // the staged rows: `rows` of 32 bytes are a multiple of the 512-byte bank
        const auto sameBank = [](int64_t elems) { return CeilDiv(elems, C0_SIZE) * 32 % 512 == 0; };
        const bool trans = forA ? t_.aType_.isTrans : t_.bType_.isTrans;
        const int64_t bits = forA ? BitsA() : BitsB();
        const int64_t outer = forA ? int64_t{r.get_stepM()} * r.get_baseM()
                                  : int64_t{r.get_stepN()} * r.get_baseN();
        const int64_t k = int64_t{forA ? r.get_stepKa() : r.get_stepKb()} * r.get_baseK();
        // A: K along the rows unless transposed; B: N along the rows unless transposed
        const bool kRows = forA ? !trans : trans;
        const bool conflict = sameBank(kRows ? k : outer);
        const int64_t extra = (kRows ? outer : k) * C0_SIZE * bits / BITS_PER_BYTE;
        return conflict ? extra : 0;
    }

    // The UB the 910/310P/310B use to move A, B, C and the bias through (the A2/A3 need none).
    int32_t TransLength() const {
        const optiling::TCubeTiling& r = t_.tiling_;
        const auto soc = t_.socVersion;
        if (!V100OrV200() && soc != platform_ascendc::SocVersion::ASCEND310B) return 0;
        int32_t a = 0, b = 0, cl = 0, bias = 0;
        if (t_.aType_.type == CubeFormat::ND) {
            int64_t v = int64_t{r.get_baseM()} * r.get_baseK() * BitsA() / BITS_PER_BYTE;
            if (t_.mmConfigType == 1) v *= int64_t{r.get_stepKa()} * r.get_stepM();
            a = Clamp32(v + BankConflict(true));
        }
        if (t_.bType_.type == CubeFormat::ND ||
            (BitsB() == 8 && t_.bType_.type == CubeFormat::NZ && !t_.bType_.isTrans)) {
            int64_t v = int64_t{r.get_baseN()} * r.get_baseK() * BitsB() / BITS_PER_BYTE;
            if (t_.mmConfigType == 1) v *= int64_t{r.get_stepKb()} * r.get_stepN();
            b = Clamp32(v + BankConflict(false));
        }
        if (t_.cType_.type == CubeFormat::ND || t_.cType_.pos == TPosition::GM) {
            cl = r.get_baseN() * r.get_baseM() * TypeBytes(t_.cType_.dataType);
        }
        if (t_.isBias && t_.biasType_.pos != TPosition::VECCALC) {
            bias = r.get_baseN() * TypeBytes(t_.biasType_.dataType);
        }
        if (BitsA() == 8) bias = std::max(r.get_baseN() * 8, bias);
        return std::max(std::max(a, b), std::max(cl, bias));
    }

    // L1 (A's and B's blocks, the A2/A3 bias row), L0C (one base block of float) and, on the
    // 910/310P/310B, the UB of the ND2NZ tails and the C staging.
    void UsedSizes(int32_t& l1, int32_t& l0c, int32_t& ub) const {
        const optiling::TCubeTiling& r = t_.tiling_;
        const int32_t aBlockBytes = r.get_baseM() * r.get_baseK() * BitsA() / BITS_PER_BYTE;
        const int32_t bBlockBytes = r.get_baseN() * r.get_baseK() * BitsB() / BITS_PER_BYTE;
        const int32_t cBytes = TypeBytes(t_.cType_.dataType);
        l1 = l0c = ub = 0;
        if (t_.aType_.pos != TPosition::TSCM) l1 += r.get_depthA1() * aBlockBytes;
        if (t_.bType_.pos != TPosition::TSCM) l1 += r.get_depthB1() * bBlockBytes;
        l0c += r.get_baseN() * r.get_baseM() * FP32_BYTES;
        if (r.get_isBias() != 0 && A2OrV300() && t_.biasType_.pos != TPosition::TSCM) {
            l1 += r.get_baseN() * TypeBytes(t_.biasType_.dataType);
        }
        const auto soc = t_.socVersion;
        if (!V100OrV200() && soc != platform_ascendc::SocVersion::ASCEND310B) return;
        // a row of that many elements ends off a 32-byte block
        const auto ragged = [](int32_t elems, int32_t bits) {
            return (int64_t{elems} * bits / BITS_PER_BYTE) % C0_BYTE_SIZE != 0;
        };
        int32_t aUb = 0, bUb = 0;
        const bool aT = t_.aType_.isTrans, bT = t_.bType_.isTrans;
        if (!aT && ragged(r.get_singleCoreK(), BitsA())) aUb = r.get_baseM() * C0_BYTE_SIZE;
        if (aT && ragged(r.get_singleCoreM(), BitsA())) aUb = r.get_baseK() * C0_BYTE_SIZE;
        if (!bT && ragged(r.get_singleCoreN(), BitsB())) bUb = r.get_baseK() * C0_BYTE_SIZE;
        if (bT && ragged(r.get_singleCoreK(), BitsB())) bUb = r.get_baseN() * C0_BYTE_SIZE;
        if (t_.aType_.pos == TPosition::TSCM) aUb = 0;
        if (t_.bType_.pos == TPosition::TSCM) bUb = 0;
        if (t_.aType_.type == CubeFormat::ND || t_.bType_.type == CubeFormat::ND) {
            ub += std::max(aUb, bUb);
        }
        if (soc == platform_ascendc::SocVersion::ASCEND310B) return;
        if (t_.cType_.pos == TPosition::GM) {
            ub += r.get_baseM() * r.get_baseN() * cBytes;
            if (t_.cType_.type == CubeFormat::ND && ragged(r.get_singleCoreN(), cBytes * 8)) {
                ub += C0_BYTE_SIZE;
            }
        }
        if (t_.cType_.pos == TPosition::VECCALC && t_.cType_.type != CubeFormat::NZ) {
            ub += r.get_baseM() * r.get_baseN() * cBytes;
        }
        if (t_.deqType == DequantType::TENSOR && t_.cType_.type == CubeFormat::NZ) {
            ub += r.get_baseN() * 8;
        }
    }

    // The plan into tiling_ (and the chosen base block into GetBaseM/N/K).
    int64_t WritePlan(const Fractals& p, const CoreShare& c, const L0Plan& l0, L1Plan l1,
                         bool quiet = false) {
        optiling::TCubeTiling& r = t_.tiling_;
        const int32_t coresUsed =
            singleShapeGiven_ ? t_.blockDim : c.batchCores * c.mDim * c.kCores * c.nDim;
        int32_t coreM = 0, coreN = 0, sk = 0;
        SingleShape(c, p, coreM, coreN, sk);
        // The 910/310P's UB moves only whole 32-byte rows of an ND C in VECCALC
        const bool cNd = t_.cType_.pos == TPosition::VECCALC && t_.cType_.type == CubeFormat::ND;
        const int64_t rowBytes = int64_t{coreN} * TypeBytes(t_.cType_.dataType);
        if (V100OrV200() && cNd && rowBytes % C0_BYTE_SIZE != 0) {
            if (!quiet) {
                Fail("singleCoreN " + std::to_string(coreN) +
                     " of C is not 32-byte aligned: a C in VECCALC must be NZ on the 910/310P");
            }
            return -1;
        }
        r.set_usedCoreNum(coresUsed);
        r.set_singleCoreM(coreM);
        r.set_singleCoreN(coreN);
        r.set_singleCoreK(sk);
        r.set_M(t_.orgM);
        r.set_N(t_.orgN);
        r.set_Ka(t_.orgKa);
        r.set_Kb(t_.orgKb);
        r.set_batchM(t_.batchM);
        r.set_batchN(t_.batchN);
        r.set_singleBatchM(t_.singleBatchM);
        r.set_singleBatchN(t_.singleBatchN);
        r.set_ALayoutInfoB(t_.aLayoutInfoB);
        r.set_ALayoutInfoS(t_.aLayoutInfoS);
        r.set_ALayoutInfoN(t_.aLayoutInfoN);
        r.set_ALayoutInfoG(t_.aLayoutInfoG);
        r.set_ALayoutInfoD(t_.aLayoutInfoD);
        r.set_BLayoutInfoB(t_.bLayoutInfoB);
        r.set_BLayoutInfoS(t_.bLayoutInfoS);
        r.set_BLayoutInfoN(t_.bLayoutInfoN);
        r.set_BLayoutInfoG(t_.bLayoutInfoG);
        r.set_BLayoutInfoD(t_.bLayoutInfoD);
        r.set_CLayoutInfoB(t_.cLayoutInfoB);
        r.set_CLayoutInfoS1(t_.cLayoutInfoS1);
        r.set_CLayoutInfoN(t_.cLayoutInfoN);
        r.set_CLayoutInfoG(t_.cLayoutInfoG);
        r.set_CLayoutInfoS2(t_.cLayoutInfoS2);
        r.set_BatchNum(t_.batchNum);
        r.set_baseM(l0.mBlk * C0_SIZE);
        r.set_baseN(l0.nBlk * C0_SIZE);
        r.set_baseK(l0.kBlk * ReduceSize());
        r.set_iterateOrder(IterateOrder(l0, l1, coreM, coreN, sk));
        // OUTER_PRODUCT computes two base blocks an iteration
        if (t_.scheduleType == ScheduleType::OUTER_PRODUCT) {
            if (r.get_baseK() < r.get_singleCoreK() &&
                (t_.mmConfigType == 1 || (t_.mmConfigType == 0 && t_.batchNum != 0))) {
                return Fail("ScheduleType::OUTER_PRODUCT needs baseK to cover singleCoreK " +
                            std::to_string(r.get_singleCoreK()) + " (the MDL template)");
            }
            int32_t bm = r.get_baseM(), bn = r.get_baseN();
            if (bm * bn * 2 * FP32_BYTES > t_.bufferPool_.l0CSize) {
                if (r.get_iterateOrder() == 0) {
                    bn = RoundUp(bn / 2, C0_SIZE);
                    l1.nBlocksB *= 2;
                } else {
                    bm = RoundUp(bm / 2, C0_SIZE);
                    l1.mBlocksA *= 2;
                }
            }
            r.set_baseM(bm);
            r.set_baseN(bn);
        }
        t_.baseM = r.get_baseM();
        t_.baseN = r.get_baseN();
        t_.baseK = r.get_baseK();
        r.set_depthA1(CeilDiv32(l1.kHeldA, l0.kBlk) * l1.mBlocksA * l1.bufA);
        r.set_depthB1(DepthB1(l0, l1));
        l1.nBlocksB = std::min(l1.nBlocksB, r.get_depthB1());  // never more N blocks than B1 holds
        r.set_stepM(l1.mBlocksA);
        r.set_stepN(l1.nBlocksB);
        r.set_stepKa(CeilDiv32(l1.kHeldA, l0.kBlk));
        r.set_stepKb(CeilDiv32(l1.kHeldB, l0.kBlk));
        r.set_mxTypePara(0);
        // A float B with a baseK of 8 loads one K step at a time
        if (TypeBytes(t_.bType_.dataType) == 4 && r.get_baseK() == 8) {
            r.set_stepKb(1);
            r.set_depthB1(l1.nBlocksB * l1.bufB);
        }
        r.set_isBias(t_.isBias ? 1 : 0);
        r.set_dbL0A(l0.dbL0A);
        r.set_dbL0B(l0.dbL0B);
        r.set_dbL0C(l0.dbL0C);
        r.set_transLength(TransLength());
        r.set_shareMode(0);
        r.set_depthAL1CacheUB(0);
        r.set_depthBL1CacheUB(0);
        int32_t l1Used = 0, l0cBytes = 0, ubUsed = 0;
        UsedSizes(l1Used, l0cBytes, ubUsed);
        r.set_shareL1Size(l1Used);
        r.set_shareL0CSize(l0cBytes);
        r.set_shareUbSize(ubUsed);
        return 0;
    }

    // The plan within the buffers SetBufferSpace leaves; a batch's A and B within L1.
    bool PlanWithinBuffers() const {
        const optiling::TCubeTiling& r = t_.tiling_;
        const BufferPool& b = t_.bufferPool_;
        if (r.get_stepM() == 0 || r.get_stepN() == 0 || r.get_depthA1() == 0 ||
            r.get_depthB1() == 0) {
            return Bad("the L1 plan holds no block (stepM/stepN/depthA1/depthB1 0)");
        }
        if (r.get_stepM() > r.get_depthA1() || r.get_stepN() > r.get_depthB1()) {
            return Bad("stepM/stepN exceed depthA1/depthB1");
        }
        if (r.get_shareL1Size() > b.l1Size || r.get_shareL0CSize() > b.l0CSize ||
            r.get_shareUbSize() > b.ubSize) {
            return Bad("the plan uses more L1 (" + std::to_string(r.get_shareL1Size()) + " of " +
                       std::to_string(b.l1Size) + " bytes), L0C or UB than SetBufferSpace leaves");
        }
        const int64_t bits = BitsA();
        const int64_t biasL1 =
            t_.isBias ? int64_t{r.get_singleCoreN()} * r.get_BatchNum() * bits / 8 : 0;
        const int64_t ab = (static_cast<int64_t>(r.get_singleCoreM()) * r.get_singleCoreK() +
                            static_cast<int64_t>(r.get_singleCoreN()) * r.get_singleCoreK()) *
                           r.get_BatchNum() * bits / 8;
        if (!t_.isBMNKBmm && r.get_BatchNum() > 0 && ab + biasL1 > b.l1Size) {
            return Bad("the batch's A and B (BatchNum " + std::to_string(r.get_BatchNum()) +
                       ") do not fit L1");
        }
        return true;
    }

    // The reference page's table 2 ("TCubeTiling结构体"), for the SoC planned for.
    bool Validate() const {
        const optiling::TCubeTiling& r = t_.tiling_;
        const BufferPool& pool = t_.oriBufferPool_;
        std::string bad;
        const int64_t bm = r.get_baseM(), bn = r.get_baseN(), bk = r.get_baseK();
        const int32_t c0 = C0OfType(t_.aType_.dataType);
        const auto db = [](int32_t depth, int32_t steps) {
            return steps > 0 && depth % steps == 0 && (depth / steps == 1 || depth / steps == 2);
        };
        if (r.get_usedCoreNum() < 1 || (t_.coreCount_ > 0 && r.get_usedCoreNum() > t_.coreCount_)) {
            bad = "usedCoreNum " + std::to_string(r.get_usedCoreNum()) + " is not within the " +
                  std::to_string(t_.coreCount_) + " cores";
        } else if (r.get_singleCoreM() <= 0 || r.get_singleCoreN() <= 0 ||
                   r.get_singleCoreK() <= 0 || bm <= 0 || bn <= 0 || bk <= 0) {
            bad = "a single-core or base size is not positive";
        } else if (bm % C0_SIZE != 0 || bn % C0_SIZE != 0 || bk % c0 != 0) {
            bad = "the base block " + std::to_string(bm) + " x " + std::to_string(bn) + " x " +
                  std::to_string(bk) + " is not fractal-aligned";
        } else if (bm * bk * BitsA() / 8 * r.get_dbL0A() > pool.l0ASize) {
            bad = "baseM * baseK * dbL0A exceeds L0A (" + std::to_string(pool.l0ASize) + " bytes)";
        } else if (bn * bk * BitsB() / 8 * r.get_dbL0B() > pool.l0BSize) {
            bad = "baseN * baseK * dbL0B exceeds L0B (" + std::to_string(pool.l0BSize) + " bytes)";
        } else if (bm * bn * FP32_BYTES * r.get_dbL0C() > pool.l0CSize) {
            bad = "baseM * baseN * dbL0C exceeds L0C (" + std::to_string(pool.l0CSize) + " bytes)";
        } else if (t_.isBias && pool.btSize > 0 &&
                   bn * TypeBytes(t_.biasType_.dataType) > pool.btSize) {
            bad = "baseN of bias exceeds the bias table (" + std::to_string(pool.btSize) +
                  " bytes)";
        } else if (!db(r.get_depthA1(), r.get_stepM() * r.get_stepKa()) ||
                   !db(r.get_depthB1(), r.get_stepN() * r.get_stepKb())) {
            bad = "depthA1/depthB1 are not stepM * stepKa / stepN * stepKb times 1 or 2";
        } else if (r.get_shareL1Size() > pool.l1Size) {
            bad = "the L1 plan (" + std::to_string(r.get_shareL1Size()) + " bytes) exceeds L1";
        }
        if (bad.empty()) return true;
        return Bad("the plan breaks TCubeTiling's constraints: " + bad);
    }
};

}  // namespace plan_detail

inline int64_t MatmulApiTilingBase::Compute(const char* api) {
    // A fixed base block within L0A/L0B/L0C, no bias in TSCM on the 910/310P, no empty SetShape
    // axis
    const int32_t aBits = plan_detail::TypeBits(aType_.dataType);
    const int32_t bBits = plan_detail::TypeBits(bType_.dataType);
    std::string bad;
    if ((socVersion == platform_ascendc::SocVersion::ASCEND910 ||
         socVersion == platform_ascendc::SocVersion::ASCEND310P) &&
        isBias && biasType_.pos == TPosition::TSCM) {
        bad = "the 910/310P take no bias in TSCM";
    } else if (baseM != -1 && baseK != -1 &&
               static_cast<int64_t>(baseM) * baseK * aBits / BITS_PER_BYTE > bufferPool_.l0ASize) {
        bad = "baseM " + std::to_string(baseM) + " * baseK " + std::to_string(baseK) + " of A (" +
              std::to_string(static_cast<int64_t>(baseM) * baseK * aBits / BITS_PER_BYTE) +
              " bytes) is larger than L0A (" + std::to_string(bufferPool_.l0ASize) + " bytes)";
    } else if (baseK != -1 && baseN != -1 &&
               static_cast<int64_t>(baseK) * baseN * bBits / BITS_PER_BYTE > bufferPool_.l0BSize) {
        bad = "baseN " + std::to_string(baseN) + " * baseK " + std::to_string(baseK) + " of B (" +
              std::to_string(static_cast<int64_t>(baseK) * baseN * bBits / BITS_PER_BYTE) +
              " bytes) is larger than L0B (" + std::to_string(bufferPool_.l0BSize) + " bytes)";
    } else if (baseM != -1 && baseN != -1 &&
               static_cast<int64_t>(baseM) * baseN * FP32_BYTES > bufferPool_.l0CSize) {
        bad = "baseM " + std::to_string(baseM) + " * baseN " + std::to_string(baseN) +
              " of float is larger than L0C (" + std::to_string(bufferPool_.l0CSize) + " bytes)";
    } else if (singleM == 0 || singleN == 0 || singleK == 0) {
        bad = "SetShape has a 0 axis";
    }
    if (!bad.empty()) {
        Reject(api, bad + "; cannot deduce a tiling");
        return -1;
    }
    plan_detail::Planner planner(*this, api);
    const int64_t ret = planner.Run();
    if (ret == -1) return -1;
    if (opgen_host::LogEnabled(opgen_host::kLogInfo)) {
        const auto x = [](int32_t a, int32_t b, int32_t c) {
            return std::to_string(a) + " x " + std::to_string(b) + " x " + std::to_string(c);
        };
        opgen_host::LogRecord(
            opgen_host::kLogInfo,
            std::string(api) + ": usedCoreNum " + std::to_string(tiling_.get_usedCoreNum()) +
                ", singleCore " +
                x(tiling_.get_singleCoreM(), tiling_.get_singleCoreN(), tiling_.get_singleCoreK()) +
                ", base " + x(tiling_.get_baseM(), tiling_.get_baseN(), tiling_.get_baseK()));
    }
    return ret;
}

inline void MatmulApiTilingBase::SetFinalTiling(optiling::TCubeTiling& tiling) const {
#define OPGEN_TCUBE_COPY_FIELD(f) tiling.set_##f(tiling_.get_##f());
    OPGEN_TCUBE_TILING_FIELDS(OPGEN_TCUBE_COPY_FIELD)
#undef OPGEN_TCUBE_COPY_FIELD
}

inline void MatmulApiTilingBase::SetFinalTiling(AscendC::tiling::TCubeTiling& tiling) const {
#define OPGEN_TCUBE_COPY_FIELD(f) tiling.f = tiling_.get_##f();
    OPGEN_TCUBE_TILING_FIELDS(OPGEN_TCUBE_COPY_FIELD)
#undef OPGEN_TCUBE_COPY_FIELD
}

}  // namespace matmul_tiling

// The system buffers a Matmul of that tiling takes (MatmulGetTmpBufSize and friends): the
// larger of bufSize's and the tiling's L1, L0C and UB (twice transLength for the ND2NZ of the
// 910/310P).
extern "C" {
inline int32_t MatmulGetTmpBufSize(optiling::TCubeTiling& tiling,
                                   matmul_tiling::SysTilingTempBufSize& bufSize) {
    bufSize.l1Size = std::max(bufSize.l1Size, tiling.get_shareL1Size());
    bufSize.l0cSize = std::max(bufSize.l0cSize, tiling.get_shareL0CSize());
    bufSize.ubSize = std::max(bufSize.ubSize,
                              std::max(tiling.get_shareUbSize(), 2 * tiling.get_transLength()));
    return 0;
}
inline int32_t MatmulGetTmpBufSizeV2(AscendC::tiling::TCubeTiling& tiling,
                                     matmul_tiling::SysTilingTempBufSize& bufSize) {
    bufSize.l1Size = std::max(bufSize.l1Size, tiling.shareL1Size);
    bufSize.l0cSize = std::max(bufSize.l0cSize, tiling.shareL0CSize);
    bufSize.ubSize = std::max(bufSize.ubSize, std::max(tiling.shareUbSize, 2 * tiling.transLength));
    return 0;
}
inline int32_t MultiCoreMatmulGetTmpBufSize(optiling::TCubeTiling& tiling,
                                            matmul_tiling::SysTilingTempBufSize& bufSize) {
    return MatmulGetTmpBufSize(tiling, bufSize);
}
inline int32_t MultiCoreMatmulGetTmpBufSizeV2(AscendC::tiling::TCubeTiling& tiling,
                                              matmul_tiling::SysTilingTempBufSize& bufSize) {
    return MatmulGetTmpBufSizeV2(tiling, bufSize);
}
}
