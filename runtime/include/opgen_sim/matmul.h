// opgen NPU simulator: the advanced Matmul API (lib/matmul_intf.h): Matmul<A, B, C, BIAS, CFG>
// objects registered with REGIST_MATMUL_OBJ, fed by SetTensorA/SetTensorB/SetBias and run by
// Iterate + GetTensorC or IterateAll, with the shapes of a TCubeTiling (GetTiling on the host,
// tiling/matmul_tiling.h). The object computes what CANN's implementation computes, block by
// block, without modelling its L1/L0 traffic: C [singleCoreM, singleCoreN] of one core, in blocks
// of [baseM, baseN] taken in the tiling's iterateOrder (0: along M first), each the whole K.
// Numerics follow the simulator's Mmad (cube_more.h, MmadRun): products and sums in the
// accumulator type (float for half/bfloat16_t/float inputs, int32_t for int8_t), K summed one
// 32-byte fractal row (C0 elements) at a time and each partial sum added to C, C starting from
// the bias (converted to the accumulator type) when one is set; the result converted to C's type
// as Fixpipe converts (float -> half/bfloat16_t rounded to nearest even). Also: the batched forms
// (IterateBatch, IterateNBatch, GetBatchTensorC over the NORMAL/BSNGD/SBNGD/BNGS1S2 layouts), a
// constant tiling (GetMatmulApiTiling), CopyA1/CopyB1 callbacks and the triangular policies. As in
// CANN the configuration (MatmulConfig, CFG_NORM, GetMMConfig...) is declared at global scope.
// docs/simulator.md, "The advanced Matmul API", lists the forms covered and what is an error.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "../kernel_tiling/kernel_tiling.h"
#include "cube.h"
#include "deferred.h"
#include "tensor.h"

// The data layouts of the Matmul operands (CANN declares them at global scope; kernels write
// CubeFormat::ND unqualified).
enum class CubeFormat {
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

// The Matmul configuration lives at global scope, as in CANN (matmul_config.h, tiling.h);
// AscendC:: names it too.

enum class LayoutMode { NONE = 0, BSNGD, SBNGD, BNGS1S2, NORMAL };
enum class BatchMode { NONE = 0, BATCH_LESS_THAN_L1, BATCH_LARGE_THAN_L1, SINGLE_LARGE_THAN_L1 };
enum BatchOutMode { SINGLE_BATCH = 0, MULTI_BATCH, DYNAMIC };
enum class IterateOrder { ORDER_M = 0, ORDER_N, UNDEF };
enum class ScheduleType { INNER_PRODUCT = 0, OUTER_PRODUCT };
enum IterateMode : uint8_t {
    ITERATE_MODE_NORMAL = 0b00000001,
    ITERATE_MODE_ALL = 0b00000010,
    ITERATE_MODE_BATCH = 0b00000100,
    ITERATE_MODE_N_BATCH = 0b00001000,
    ITERATE_MODE_DEFAULT = 0b11111111,
};
enum class MatmulConfigMode { CONFIG_NORM, CONFIG_MDL, CONFIG_SPECIALMDL, CONFIG_IBSHARE };

enum class DecompressionMode {
    DECOMP_NONE = 0b0000,
    DECOMP_2bitTo8bit = 0b0001,
    DECOMP_3bitTo8bit = 0b0010,
    DECOMP_4bitTo8bit = 0b0011,
    DECOMP_16bitTo64bit = 0b100,
    DECOMP_1bitTo8bit = 0b0101,
    DECOMP_1bitTo4bit = 0b0110,
    DECOMP_2bitTo4bit = 0b0111,
    DECOMP_3bitTo4bit = 0b1000,
};

// The template configuration (reference "MatmulConfig"). The simulator's object computes the
// same C whichever template is chosen; iterateOrder, when set, orders the blocks of Iterate.
struct MatmulConfig {
    bool doNorm = true;
    bool doBasicBlock = false;
    bool doMultiDataLoad = false;
    uint32_t basicM = 0;
    uint32_t basicN = 0;
    uint32_t basicK = 0;
    bool intrinsicsCheck = false;
    bool isNBatch = false;
    bool enVecND2NZ = false;
    bool doSpecialBasicBlock = false;
    uint32_t doMTE2Preload = 0;
    uint32_t singleCoreM = 0;
    uint32_t singleCoreN = 0;
    uint32_t singleCoreK = 0;
    uint32_t stepM = 0;
    uint32_t stepN = 0;
    uint32_t baseMN = 0;
    uint32_t singleCoreMN = 0;
    bool enUnitFlag = true;
    bool isPerTensor = false;
    bool hasAntiQuantOffset = false;
    bool doIBShareNorm = false;
    bool doSpecialMDL = false;
    bool enableInit = true;
    BatchMode batchMode = BatchMode::BATCH_LESS_THAN_L1;
    bool enableEnd = true;
    bool enableGetTensorC = true;
    bool enableSetOrgShape = true;
    bool enableSetBias = true;
    bool enableSetTail = true;
    bool enableQuantVector = true;
    bool enableSetDefineData = true;
    uint8_t iterateMode = ITERATE_MODE_DEFAULT;
    bool enableReuse = true;
    bool enableUBReuse = false;
    bool enableL1CacheUB = false;
    bool intraBlockPartSum = false;
    IterateOrder iterateOrder = IterateOrder::UNDEF;
    ScheduleType scheduleType = ScheduleType::INNER_PRODUCT;
    bool enableDoubleCache = false;
    bool isBiasBatch = true;
    bool enableStaticPadZeros = false;
    bool isPartialOutput = false;
    bool enableMixDualMaster = false;
    bool isA2B2Shared = false;
    bool isEnableChannelSplit = false;
    bool enableKdimReorderLoad = false;
    bool isCO1Shared = false;
    uint32_t sharedCO1BufferSize = 64 * 1024;
    BatchOutMode bmmOutMode = BatchOutMode::SINGLE_BATCH;
    bool enableL1BankConflictOptimise = false;
    bool enableRelu = false;
    DecompressionMode decompMode = DecompressionMode::DECOMP_NONE;
};

// The reference's configuration builders, with their parameter lists.
constexpr MatmulConfig GetNormalConfig(const bool intrinsicsLimit = false, const bool batchLoop = false,
                                       const bool isVecND2NZ = false,
                                       const BatchMode bmmMode = BatchMode::BATCH_LESS_THAN_L1,
                                       const bool isMsgReuse = true,
                                       const IterateOrder iterateOrder = IterateOrder::UNDEF,
                                       const ScheduleType scheduleType = ScheduleType::INNER_PRODUCT,
                                       const bool enUnitFlag = true, const bool enableMixDualMaster = false,
                                       const BatchOutMode bmmOutMode = BatchOutMode::SINGLE_BATCH) {
    MatmulConfig c{};
    c.intrinsicsCheck = intrinsicsLimit;
    c.isNBatch = batchLoop;
    c.enVecND2NZ = isVecND2NZ;
    c.batchMode = bmmMode;
    c.enableReuse = isMsgReuse;
    c.iterateOrder = iterateOrder;
    c.scheduleType = scheduleType;
    c.enUnitFlag = enUnitFlag;
    c.enableMixDualMaster = enableMixDualMaster;
    c.bmmOutMode = bmmOutMode;
    return c;
}
constexpr MatmulConfig GetMDLConfig(const bool intrinsicsLimit = false, const bool batchLoop = false,
                                    const uint32_t doMTE2Preload = 0, const bool isVecND2NZ = false,
                                    bool isPerTensor = false, bool hasAntiQuantOffset = false,
                                    const bool enUnitFlag = false, const bool isMsgReuse = true,
                                    const bool enableUBReuse = true, const bool enableL1CacheUB = false,
                                    const bool enableMixDualMaster = false,
                                    const bool enableKdimReorderLoad = false,
                                    const bool enableL1BankConflictOptimise = false) {
    MatmulConfig c{};
    c.doNorm = false;
    c.doMultiDataLoad = true;
    c.intrinsicsCheck = intrinsicsLimit;
    c.isNBatch = batchLoop;
    c.doMTE2Preload = doMTE2Preload;
    c.enVecND2NZ = isVecND2NZ;
    c.isPerTensor = isPerTensor;
    c.hasAntiQuantOffset = hasAntiQuantOffset;
    c.enUnitFlag = enUnitFlag;
    c.enableReuse = isMsgReuse;
    c.enableUBReuse = enableUBReuse;
    c.enableL1CacheUB = enableL1CacheUB;
    c.enableMixDualMaster = enableMixDualMaster;
    c.enableKdimReorderLoad = enableKdimReorderLoad;
    c.enableL1BankConflictOptimise = enableL1BankConflictOptimise;
    return c;
}
constexpr MatmulConfig GetSpecialMDLConfig(const bool intrinsicsLimit = false, const bool batchLoop = false,
                                           const uint32_t doMTE2Preload = 0, const bool isVecND2NZ = false,
                                           bool isPerTensor = false, bool hasAntiQuantOffset = false) {
    MatmulConfig c = GetMDLConfig(intrinsicsLimit, batchLoop, doMTE2Preload, isVecND2NZ, isPerTensor,
                                  hasAntiQuantOffset);
    c.doMultiDataLoad = false;
    c.doSpecialMDL = true;
    return c;
}
constexpr MatmulConfig GetBasicConfig(const uint32_t basicM, const uint32_t basicN, const uint32_t basicK,
                                      const bool intrinsicsLimit = false, const bool batchLoop = false,
                                      const BatchMode bmmMode = BatchMode::BATCH_LESS_THAN_L1) {
    MatmulConfig c{};
    c.doNorm = false;
    c.doBasicBlock = true;
    c.basicM = basicM;
    c.basicN = basicN;
    c.basicK = basicK;
    c.intrinsicsCheck = intrinsicsLimit;
    c.isNBatch = batchLoop;
    c.batchMode = bmmMode;
    return c;
}
constexpr MatmulConfig GetIBShareNormConfig(const bool intrinsicsLimit = false, const bool batchLoop = false,
                                            const bool isVecND2NZ = false,
                                            const BatchMode bmmMode = BatchMode::BATCH_LESS_THAN_L1,
                                            const bool isDoubleCache = false, const bool enUnitFlag = true) {
    MatmulConfig c{};
    c.doNorm = false;
    c.doIBShareNorm = true;
    c.intrinsicsCheck = intrinsicsLimit;
    c.isNBatch = batchLoop;
    c.enVecND2NZ = isVecND2NZ;
    c.batchMode = bmmMode;
    c.enableDoubleCache = isDoubleCache;
    c.enUnitFlag = enUnitFlag;
    return c;
}
constexpr MatmulConfig CFG_NORM = GetNormalConfig();
constexpr MatmulConfig CFG_MDL = GetMDLConfig();
constexpr MatmulConfig MM_CFG_BB = GetBasicConfig(128, 128, 128);
constexpr MatmulConfig CFG_IBSHARE_NORM = GetIBShareNormConfig();


// The parameter groups of GetMMConfig (reference "GetMMConfig").
struct MatmulShapeParams {
    uint32_t singleCoreM;
    uint32_t singleCoreN;
    uint32_t singleCoreK;
    uint32_t basicM;
    uint32_t basicN;
    uint32_t basicK;
};
struct MatmulQuantParams {
    bool isPerTensor;
    bool hasAntiQuantOffset;
};
struct MatmulBatchParams {
    bool isNBatch;
    BatchMode batchMode;
    bool isBiasBatch = true;
    BatchOutMode bmmOutMode = BatchOutMode::SINGLE_BATCH;
};
struct MatmulFuncParams {
    bool intrinsicsCheck;
    bool enVecND2NZ;
    bool enableDoubleCache;
    bool enableL1CacheUB;
    uint32_t doMTE2Preload;
    IterateOrder iterateOrder;
    ScheduleType scheduleType;
    bool enableReuse = true;
    bool enableUBReuse;
    bool isPartialOutput = false;
    bool isA2B2Shared = false;
    bool isEnableChannelSplit = false;
    bool enableKdimReorderLoad = false;
    bool enableL1BankConflictOptimise = false;
    bool enableRelu = false;
    DecompressionMode decompMode = DecompressionMode::DECOMP_NONE;
};
struct MatmulBiasParams {
    bool enableSetBias = true;
};
// Reserved by the reference (GetOffsetC).
struct MatrixOffset {
    int32_t offset;
    int32_t row;
    int32_t col;
    int32_t height;
    int32_t width;
};

namespace opgen_sim {
namespace matmul {
template <typename P>
constexpr void ApplyConfigParams(MatmulConfig& c, const P& p) {
    if constexpr (std::is_same_v<P, MatmulShapeParams>) {
        c.singleCoreM = p.singleCoreM;
        c.singleCoreN = p.singleCoreN;
        c.singleCoreK = p.singleCoreK;
        c.basicM = p.basicM;
        c.basicN = p.basicN;
        c.basicK = p.basicK;
    } else if constexpr (std::is_same_v<P, MatmulQuantParams>) {
        c.isPerTensor = p.isPerTensor;
        c.hasAntiQuantOffset = p.hasAntiQuantOffset;
    } else if constexpr (std::is_same_v<P, MatmulBatchParams>) {
        c.isNBatch = p.isNBatch;
        c.batchMode = p.batchMode;
        c.isBiasBatch = p.isBiasBatch;
        c.bmmOutMode = p.bmmOutMode;
    } else if constexpr (std::is_same_v<P, MatmulFuncParams>) {
        c.intrinsicsCheck = p.intrinsicsCheck;
        c.enVecND2NZ = p.enVecND2NZ;
        c.enableDoubleCache = p.enableDoubleCache;
        c.enableL1CacheUB = p.enableL1CacheUB;
        c.doMTE2Preload = p.doMTE2Preload;
        c.iterateOrder = p.iterateOrder;
        c.scheduleType = p.scheduleType;
        c.enableReuse = p.enableReuse;
        c.enableUBReuse = p.enableUBReuse;
        c.isPartialOutput = p.isPartialOutput;
        c.isA2B2Shared = p.isA2B2Shared;
        c.isEnableChannelSplit = p.isEnableChannelSplit;
        c.enableKdimReorderLoad = p.enableKdimReorderLoad;
        c.enableL1BankConflictOptimise = p.enableL1BankConflictOptimise;
        c.enableRelu = p.enableRelu;
        c.decompMode = p.decompMode;
    } else if constexpr (std::is_same_v<P, MatmulBiasParams>) {
        c.enableSetBias = p.enableSetBias;
    }
}
}  // namespace matmul
}  // namespace opgen_sim

// A template's configuration with some groups of fields replaced (reference "GetMMConfig").
template <MatmulConfigMode configMode, typename... ArgTypes>
constexpr MatmulConfig GetMMConfig(ArgTypes&&... args) {
    MatmulConfig c = CFG_NORM;
    if constexpr (configMode == MatmulConfigMode::CONFIG_MDL) {
        c = CFG_MDL;
    } else if constexpr (configMode == MatmulConfigMode::CONFIG_SPECIALMDL) {
        c = GetSpecialMDLConfig();
    } else if constexpr (configMode == MatmulConfigMode::CONFIG_IBSHARE) {
        c = CFG_IBSHARE_NORM;
    }
    (opgen_sim::matmul::ApplyConfigParams(c, args), ...);
    return c;
}

// A constant tiling (reference "GetMatmulApiTiling"): the tiling fields known at compile time
// (-1: taken from the runtime TCubeTiling) and the configuration; a Matmul takes it as MM_CFG.
struct MatmulApiStaticTiling {
    int32_t usedCoreNum = -1;
    int32_t M = -1;
    int32_t N = -1;
    int32_t Ka = -1;
    int32_t Kb = -1;
    int32_t singleCoreM = -1;
    int32_t singleCoreN = -1;
    int32_t singleCoreK = -1;
    int32_t baseM = -1;
    int32_t baseN = -1;
    int32_t baseK = -1;
    int32_t depthA1 = -1;
    int32_t depthB1 = -1;
    int32_t stepM = -1;
    int32_t stepN = -1;
    int32_t isBias = -1;
    int32_t transLength = -1;
    int32_t iterateOrder = -1;
    int32_t shareMode = -1;
    int32_t shareL1Size = -1;
    int32_t shareL0CSize = -1;
    int32_t shareUbSize = -1;
    int32_t stepKa = -1;
    int32_t stepKb = -1;
    int32_t depthAL1CacheUB = -1;
    int32_t depthBL1CacheUB = -1;
    int32_t dbL0A = -1;
    int32_t dbL0B = -1;
    int32_t dbL0C = -1;
    int32_t ALayoutInfoB = -1;
    int32_t ALayoutInfoS = -1;
    int32_t ALayoutInfoN = -1;
    int32_t ALayoutInfoG = -1;
    int32_t ALayoutInfoD = -1;
    int32_t BLayoutInfoB = -1;
    int32_t BLayoutInfoS = -1;
    int32_t BLayoutInfoN = -1;
    int32_t BLayoutInfoG = -1;
    int32_t BLayoutInfoD = -1;
    int32_t CLayoutInfoB = -1;
    int32_t CLayoutInfoS1 = -1;
    int32_t CLayoutInfoN = -1;
    int32_t CLayoutInfoG = -1;
    int32_t CLayoutInfoS2 = -1;
    int32_t BatchNum = -1;
    int32_t mxTypePara = -1;
    MatmulConfig cfg = CFG_NORM;
};

// The Ascend 950's 8-bit float types, named by kernels that pick their Matmul types by SoC: declared
// (opaque) so that such kernels build; a Matmul of them stops the build naming fp8.
#ifndef OPGEN_SIM_HAS_FP8_TYPES
#define OPGEN_SIM_HAS_FP8_TYPES 1
struct fp8_e4m3fn_t {
    uint8_t bits;
};
struct fp8_e5m2_t {
    uint8_t bits;
};
struct hifloat8_t {
    uint8_t bits;
};
using fp8_e8m0_t = uint8_t;
#endif

namespace AscendC {

using ::CubeFormat;
using ::MatmulApiStaticTiling;
using ::LayoutMode;
using ::BatchMode;
using ::BatchOutMode;
using ::IterateOrder;
using ::ScheduleType;
using ::IterateMode;
using ::MatmulConfigMode;
using ::DecompressionMode;
using ::MatmulConfig;
using ::GetNormalConfig;
using ::GetMDLConfig;
using ::GetSpecialMDLConfig;
using ::GetBasicConfig;
using ::GetIBShareNormConfig;
using ::CFG_NORM;
using ::CFG_MDL;
using ::MM_CFG_BB;
using ::CFG_IBSHARE_NORM;
using ::MatmulShapeParams;
using ::MatmulQuantParams;
using ::MatmulBatchParams;
using ::MatmulFuncParams;
using ::MatmulBiasParams;
using ::MatrixOffset;
using ::GetMMConfig;

// One operand's place, format and type (reference "Matmul模板参数").
template <TPosition POSITION, CubeFormat FORMAT, typename TYPE, bool ISTRANS = false,
          LayoutMode LAYOUT = LayoutMode::NONE, bool IBSHARE = false, TPosition SRCPOS = TPosition::GM>
struct MatmulType {
    constexpr static TPosition pos = POSITION;
    constexpr static CubeFormat format = FORMAT;
    using T = TYPE;
    constexpr static bool isTrans = ISTRANS;
    constexpr static LayoutMode layout = LAYOUT;
    constexpr static bool ibShare = IBSHARE;
    constexpr static TPosition srcPos = SRCPOS;
};

// An MxMatmul operand with its scale matrix (Ascend 950; reference "Matmul模板参数"): declared,
// a Matmul of it is not simulated.
template <TPosition POSITION, TPosition SCALE_POSITION, CubeFormat FORMAT, typename TYPE, bool ISTRANS = false,
          TPosition SRCPOS = TPosition::GM, CubeFormat SCALE_FORMAT = FORMAT, bool SCALE_ISTRANS = ISTRANS,
          TPosition SCALE_SRCPOS = SRCPOS>
struct MatmulTypeWithScale : public MatmulType<POSITION, FORMAT, TYPE, ISTRANS, LayoutMode::NONE, false, SRCPOS> {
    constexpr static TPosition scalePosition = SCALE_POSITION;
    constexpr static CubeFormat scaleFormat = SCALE_FORMAT;
    constexpr static bool isScaleTrans = SCALE_ISTRANS;
    constexpr static TPosition srcScalePos = SCALE_SRCPOS;
};
// A sparse B with its index matrix (reference "SetSparseIndex"): declared, not simulated.
template <TPosition POSITION, TPosition INDEX_POSITION, CubeFormat FORMAT, typename TYPE, bool ISTRANS = false,
          LayoutMode LAYOUT = LayoutMode::NONE, bool IBSHARE = false>
struct SparseMatmulType : public MatmulType<POSITION, FORMAT, TYPE, ISTRANS, LAYOUT, IBSHARE> {
    constexpr static TPosition indexPosition = INDEX_POSITION;
};

// TSCM<pos, depth>: a queue from pos into L1 for a Matmul's TSCM operands (CANN's kernel_tpipe.h:
// TQueBind<pos, TPosition::TSCM, depth, mask>).
#ifndef OPGEN_SIM_HAS_TSCM
#define OPGEN_SIM_HAS_TSCM 1
template <TPosition pos, int32_t depth = 1, auto mask = 0>
using TSCM = TQueBind<pos, TPosition::TSCM, depth, mask>;
#endif

// The parameters Matmul hands a DataCopyOut callback (reference "MatmulCallBackFunc").
struct DataCopyOutParams {
    uint16_t cBurstNum;
    uint16_t burstLen;
    uint16_t srcStride;
    uint32_t dstStride;
    uint16_t oriNSize;
    bool enUnitFlag;
    uint64_t quantScalar;
    uint64_t cbufWorkspaceAddr;
};

// Callbacks a Matmul takes instead of its own data moves (reference "MatmulCallBackFunc"):
// CopyA1/CopyB1 load one tile of A/B into L1 in the NZ layout, the object then computes from
// what they wrote; DataCopyOut (C out of L0C) is not simulated (an error when the object runs).
template <void (*DataCopyOut)(const __gm__ void* gm, const LocalTensor<int8_t>& co1Local,
                              const void* dataCopyOutParams, const uint64_t tilingPtr,
                              const uint64_t dataPtr) = nullptr,
          void (*CopyA1)(const LocalTensor<int8_t>& aMatrix, const __gm__ void* gm, int row, int col, int useM,
                         int useK, const uint64_t tilingPtr, const uint64_t dataPtr) = nullptr,
          void (*CopyB1)(const LocalTensor<int8_t>& bMatrix, const __gm__ void* gm, int row, int col, int useK,
                         int useN, const uint64_t tilingPtr, const uint64_t dataPtr) = nullptr>
struct MatmulCallBackFunc {
    constexpr static void (*DataCopyOutPtr)(const __gm__ void* gm, const LocalTensor<int8_t>& co1Local,
                                            const void* dataCopyOutParams, const uint64_t tilingPtr,
                                            const uint64_t dataPtr) = DataCopyOut;
    constexpr static void (*CopyA1Ptr)(const LocalTensor<int8_t>& aMatrix, const __gm__ void* gm, int row,
                                       int col, int useM, int useK, const uint64_t tilingPtr,
                                       const uint64_t dataPtr) = CopyA1;
    constexpr static void (*CopyB1Ptr)(const LocalTensor<int8_t>& bMatrix, const __gm__ void* gm, int row,
                                       int col, int useK, int useN, const uint64_t tilingPtr,
                                       const uint64_t dataPtr) = CopyB1;
};

// The Matmul's module policies (reference "MatmulPolicy"): the default; the triangular ones,
// which compute and write only the base blocks on and above (Upper) or on and below (Lower) the
// diagonal of block indices; NBuffer33 (an L1 plan, the same C); SplitM (each of a block's two
// AIV cores gets half of every block's rows in UB); SplitN and MatmulWithScale (MxMatmul) are not
// simulated.
namespace Impl {
namespace Detail {
enum class OpgenPolicy { kDefault, kTrianUpper, kTrianLower, kSplitM, kSplitN, kWithScale };
template <const auto& MM_CFG, typename IMPL, typename A_TYPE, typename B_TYPE, typename C_TYPE, typename BIAS_TYPE>
struct MatmulPolicy {
    constexpr static OpgenPolicy kOpgenPolicy = OpgenPolicy::kDefault;
};
template <const auto& MM_CFG, typename IMPL, typename A_TYPE, typename B_TYPE, typename C_TYPE, typename BIAS_TYPE>
struct NBuffer33MatmulPolicy : public MatmulPolicy<MM_CFG, IMPL, A_TYPE, B_TYPE, C_TYPE, BIAS_TYPE> {};
template <const auto& MM_CFG, typename IMPL, typename A_TYPE, typename B_TYPE, typename C_TYPE, typename BIAS_TYPE>
struct TrianUpperMatmulPolicy : public MatmulPolicy<MM_CFG, IMPL, A_TYPE, B_TYPE, C_TYPE, BIAS_TYPE> {
    constexpr static OpgenPolicy kOpgenPolicy = OpgenPolicy::kTrianUpper;
};
template <const auto& MM_CFG, typename IMPL, typename A_TYPE, typename B_TYPE, typename C_TYPE, typename BIAS_TYPE>
struct TrianLowerMatmulPolicy : public MatmulPolicy<MM_CFG, IMPL, A_TYPE, B_TYPE, C_TYPE, BIAS_TYPE> {
    constexpr static OpgenPolicy kOpgenPolicy = OpgenPolicy::kTrianLower;
};
template <const auto& MM_CFG, typename IMPL, typename A_TYPE, typename B_TYPE, typename C_TYPE, typename BIAS_TYPE>
struct SplitMMatmulPolicy : public MatmulPolicy<MM_CFG, IMPL, A_TYPE, B_TYPE, C_TYPE, BIAS_TYPE> {
    constexpr static OpgenPolicy kOpgenPolicy = OpgenPolicy::kSplitM;
};
template <const auto& MM_CFG, typename IMPL, typename A_TYPE, typename B_TYPE, typename C_TYPE, typename BIAS_TYPE>
struct SplitNMatmulPolicy : public MatmulPolicy<MM_CFG, IMPL, A_TYPE, B_TYPE, C_TYPE, BIAS_TYPE> {
    constexpr static OpgenPolicy kOpgenPolicy = OpgenPolicy::kSplitN;
};
template <const auto& MM_CFG, typename IMPL, typename A_TYPE, typename B_TYPE, typename C_TYPE, typename BIAS_TYPE>
struct MatmulWithScalePolicy : public MatmulPolicy<MM_CFG, IMPL, A_TYPE, B_TYPE, C_TYPE, BIAS_TYPE> {
    constexpr static OpgenPolicy kOpgenPolicy = OpgenPolicy::kWithScale;
};
}  // namespace Detail
}  // namespace Impl

// The configuration of an MM_CFG argument: a MatmulConfig, or a constant tiling's cfg.
constexpr MatmulConfig ToMatmulConfig(const MatmulConfig& cfg) { return cfg; }
constexpr MatmulConfig ToMatmulConfig(const MatmulApiStaticTiling& tiling) { return tiling.cfg; }

// The L0C type of inputs T (the cube's accumulator; CANN's matmul_utils.h).
template <typename T>
struct GetMmDstType {
    using Type = std::conditional_t<std::is_same_v<T, int8_t>, int32_t, float>;
};

// The scalar helpers of CANN's matmul_utils.h that kernels call (Ceil: the quotient rounded up;
// CeilAlign: num1 rounded up to a multiple of num2).
template <typename T>
inline std::enable_if_t<std::is_arithmetic_v<T>, T> Ceil(T num1, T num2) {
    if (num2 <= 0) opgen_sim::Fail(opgen_sim::ErrorKind::Generic, "Ceil", "num2 must be greater than 0");
    return (num1 + num2 - 1) / num2;
}
template <typename T>
inline std::enable_if_t<std::is_arithmetic_v<T>, T> CeilAlign(T num1, T num2) {
    return Ceil(num1, num2) * num2;
}
// ... and of its batch_matmul_utils.h (uint16_t, as CANN declares it: wider arguments convert).
inline uint16_t CeilDiv(uint16_t num1, uint16_t num2) {
    if (num2 == 0) opgen_sim::Fail(opgen_sim::ErrorKind::Generic, "CeilDiv", "num2 must be greater than 0");
    return static_cast<uint16_t>((num1 + num2 - 1) / num2);
}

namespace Impl {
constexpr int32_t QUEUE_DEPTH = 1;
constexpr int32_t L1_SIZE = 512 * 1024;
constexpr int32_t DB_ON = 2;
constexpr int32_t DB_OFF = 1;
}  // namespace Impl

// A constant tiling from a configuration whose MatmulShapeParams are set (reference
// "GetMatmulApiTiling"): the shapes and base block of the configuration, the rest left to the
// runtime tiling. The simulator's Matmul reads only the shapes, the base block, isBias and
// iterateOrder; CANN's L1 plan (depths and steps) is not derived here and stays as given.
template <class A_TYPE, class B_TYPE, class C_TYPE, class BIAS_TYPE>
constexpr MatmulApiStaticTiling GetMatmulApiTiling(const MatmulConfig& mmCFG, int32_t l1Size = Impl::L1_SIZE) {
    (void)l1Size;
    MatmulApiStaticTiling t{};
    t.cfg = mmCFG;
    if (mmCFG.basicM != 0 && mmCFG.basicN != 0 && mmCFG.basicK != 0) {
        t.baseM = static_cast<int32_t>(mmCFG.basicM);
        t.baseN = static_cast<int32_t>(mmCFG.basicN);
        t.baseK = static_cast<int32_t>(mmCFG.basicK);
        t.isBias = mmCFG.enableSetBias ? 1 : 0;
    }
    if (mmCFG.singleCoreM == 0 || mmCFG.singleCoreN == 0 || mmCFG.singleCoreK == 0) return t;
    t.M = static_cast<int32_t>(mmCFG.singleCoreM);
    t.N = static_cast<int32_t>(mmCFG.singleCoreN);
    t.Ka = static_cast<int32_t>(mmCFG.singleCoreK);
    t.Kb = static_cast<int32_t>(mmCFG.singleCoreK);
    t.singleCoreM = t.M;
    t.singleCoreN = t.N;
    t.singleCoreK = t.Ka;
    t.dbL0C = 1;
    t.shareMode = 0;
    t.shareUbSize = 0;
    return t;
}

}  // namespace AscendC

namespace opgen_sim {
namespace matmul {

// The accumulator type of the cube for inputs U (as MmadAcc in cube.h, int8_t -> int32_t).
template <typename U>
using Acc = std::conditional_t<std::is_same_v<U, int8_t>, int32_t, float>;

template <typename T>
constexpr bool kIsFp8 = std::is_same_v<T, ::fp8_e4m3fn_t> || std::is_same_v<T, ::fp8_e5m2_t> ||
                        std::is_same_v<T, ::hifloat8_t>;
template <typename T, typename = void>
constexpr bool kHasScale = false;
template <typename T>
constexpr bool kHasScale<T, std::void_t<decltype(T::scalePosition)>> = true;
template <typename T, typename = void>
constexpr bool kHasSparseIndex = false;
template <typename T>
constexpr bool kHasSparseIndex<T, std::void_t<decltype(T::indexPosition)>> = true;

template <typename T>
inline float AsFloat(T v) {
    return static_cast<float>(v);
}

// One operand of a Matmul as SetTensorA/SetTensorB/SetBias gave it.
template <typename T>
struct Source {
    enum Kind { kNone, kGm, kLocal, kScalar } kind = kNone;
    const T* ptr = nullptr;
    T scalar{};
    bool trans = false;
    AscendC::GlobalTensor<T> gm{};      // kGm: the tensor, for its range checks
    AscendC::LocalTensor<T> local{};    // kLocal

    static Source Gm(const AscendC::GlobalTensor<T>& t, bool transposed) {
        Source s;
        s.kind = kGm;
        s.gm = t;
        s.ptr = t.ptr_;
        s.trans = transposed;
        return s;
    }
    static Source Local(const AscendC::LocalTensor<T>& t, bool transposed) {
        Source s;
        s.kind = kLocal;
        s.local = t;
        s.ptr = t.ptr_;
        s.trans = transposed;
        return s;
    }
    static Source Scalar(T v) {
        Source s;
        s.kind = kScalar;
        s.scalar = v;
        return s;
    }
};

[[noreturn]] inline void Error(const char* api, const std::string& what) {
    Fail(ErrorKind::Generic, api, what);
}

// Element (r, c) of a [rows, cols] matrix stored in `format` (ND: row-major with `stride`
// elements a row; NZ: cols in blocks of C0 = 32 bytes, each block `rowsAligned` rows of C0, the
// rows padded to 16; ND_ALIGN reads as ND).
inline uint64_t Index(CubeFormat format, uint64_t r, uint64_t c, uint64_t stride, uint64_t rowsAligned,
                      uint64_t c0) {
    if (format == CubeFormat::NZ) return ((c / c0) * rowsAligned + r) * c0 + c % c0;
    return r * stride + c;
}

}  // namespace matmul
}  // namespace opgen_sim

namespace AscendC {

template <class A_TYPE, class B_TYPE, class C_TYPE, class BIAS_TYPE = C_TYPE, const auto& MM_CFG = CFG_NORM,
          class MM_CB = MatmulCallBackFunc<nullptr, nullptr, nullptr>,
          template <const auto&, typename...> class MM_POLICY = Impl::Detail::MatmulPolicy>
class MatmulImpl {
    using SrcAT = typename A_TYPE::T;
    using SrcBT = typename B_TYPE::T;
    using DstT = typename C_TYPE::T;
    using BiasT = typename BIAS_TYPE::T;
    using L0cT = opgen_sim::matmul::Acc<SrcAT>;
    static constexpr uint64_t kC0 = 32 / sizeof(SrcAT);  // one fractal row of K
    static constexpr MatmulConfig kCfg = ToMatmulConfig(MM_CFG);
    static constexpr Impl::Detail::OpgenPolicy kPolicy =
        MM_POLICY<MM_CFG, void, A_TYPE, B_TYPE, C_TYPE, BIAS_TYPE>::kOpgenPolicy;
    static constexpr bool kCbA = MM_CB::CopyA1Ptr != nullptr;
    static constexpr bool kCbB = MM_CB::CopyB1Ptr != nullptr;
    static constexpr bool kStatic = std::is_same_v<std::decay_t<decltype(MM_CFG)>, MatmulApiStaticTiling>;

    static_assert(!std::is_same_v<SrcAT, int4b_t> && !std::is_same_v<SrcBT, int4b_t>,
                  "Matmul<A, B, C>: int4b_t inputs are not simulated (the simulated cube takes half, bfloat16_t, "
                  "float or int8_t)");
    static_assert(!opgen_sim::matmul::kIsFp8<SrcAT> && !opgen_sim::matmul::kIsFp8<SrcBT>,
                  "Matmul<A, B, C>: fp8 inputs (fp8_e4m3fn_t, fp8_e5m2_t, hifloat8_t: Ascend 950) are not "
                  "simulated; the simulator models the Atlas A2/A3 cube");
    static_assert(!opgen_sim::matmul::kHasScale<A_TYPE> && !opgen_sim::matmul::kHasScale<B_TYPE>,
                  "Matmul<A, B, C>: MxMatmul (MatmulTypeWithScale operands, Ascend 950) is not simulated");
    static_assert(!opgen_sim::matmul::kHasSparseIndex<B_TYPE>,
                  "Matmul<A, B, C>: sparse Matmul (SparseMatmulType, SetSparseIndex) is not simulated");
    static constexpr bool kOtherSoc = std::is_same_v<SrcAT, int4b_t> || std::is_same_v<SrcBT, int4b_t> ||
                                      opgen_sim::matmul::kIsFp8<SrcAT> || opgen_sim::matmul::kIsFp8<SrcBT>;
    static_assert(kOtherSoc || std::is_same_v<SrcAT, SrcBT> ||
                      (std::is_same_v<SrcAT, half> && std::is_same_v<SrcBT, int8_t>),
                  "Matmul<A, B, C>: A and B must have the same data type (half, bfloat16_t, float or int8_t) "
                  "on the simulated A2/A3");
    static_assert(kOtherSoc || std::is_same_v<SrcAT, half> || std::is_same_v<SrcAT, bfloat16_t> ||
                      std::is_same_v<SrcAT, float> || std::is_same_v<SrcAT, int8_t>,
                  "Matmul<A, B, C>: the simulated A2/A3 cube takes A/B of half, bfloat16_t, float or int8_t");

public:
    MatmulImpl() = default;

    // Binds the tiling (REGIST_MATMUL_OBJ calls it with the registered pointer).
    void Init(const TCubeTiling* cubeTiling, TPipe* tpipe = nullptr) {
        (void)tpipe;
        if (cubeTiling == nullptr) {
            opgen_sim::matmul::Error("Matmul::Init", "the tiling is a null pointer: pass the TCubeTiling GetTiling "
                                                     "filled on the host (REGIST_MATMUL_OBJ(&pipe, workspace, mm, "
                                                     "&tiling))");
        }
        tiling_ = *cubeTiling;
        OverlayStatic();
        has_tiling_ = true;
        const char* api = "Matmul::Init";
        CheckPositive(api, "baseM", tiling_.baseM);
        CheckPositive(api, "baseN", tiling_.baseN);
        CheckPositive(api, "baseK", tiling_.baseK);
        CheckPositive(api, "singleCoreM", tiling_.singleCoreM);
        CheckPositive(api, "singleCoreN", tiling_.singleCoreN);
        CheckPositive(api, "singleCoreK", tiling_.singleCoreK);
        org_m_ = tiling_.M;
        org_n_ = tiling_.N;
        org_ka_ = tiling_.Ka;
        org_kb_ = tiling_.Kb;
        org_kc_ = 0;
        single_m_ = tiling_.singleCoreM;
        single_n_ = tiling_.singleCoreN;
        single_k_ = tiling_.singleCoreK;
        bias_on_ = tiling_.isBias != 0;
        Reset();
    }
    // REGIST_MATMUL_OBJ without a tiling: a constant tiling (MM_CFG from GetMatmulApiTiling) is
    // the object's tiling; otherwise the kernel calls Init itself.
    void OpgenInitStatic(TPipe* tpipe) {
        if constexpr (kStatic) {
            TCubeTiling t{};
            Init(&t, tpipe);
        } else {
            (void)tpipe;
        }
    }
    void SetOrgShape(int orgM, int orgN, int orgK) { SetOrgShape(orgM, orgN, orgK, orgK, 0); }
    void SetOrgShape(int orgM, int orgN, int orgKa, int orgKb, int orgKc = 0) {
        org_m_ = orgM;
        org_n_ = orgN;
        org_ka_ = orgKa;
        org_kb_ = orgKb;
        org_kc_ = orgKc;
        Reset();
    }
    void SetSingleShape(int singleM, int singleN, int singleK) {
        single_m_ = singleM;
        single_n_ = singleN;
        single_k_ = singleK;
        Reset();
    }
    // Resets singleCoreM/N/K for this computation; -1 keeps a value (reference "SetTail").
    void SetTail(int tailM = -1, int tailN = -1, int tailK = -1) {
        if (tailM > 0) single_m_ = tailM;
        if (tailN > 0) single_n_ = tailN;
        if (tailK > 0) single_k_ = tailK;
        Reset();
    }
    void SetTensorA(const GlobalTensor<SrcAT>& gm, bool isTransposeA = false) {
        a_ = opgen_sim::matmul::Source<SrcAT>::Gm(gm, isTransposeA);
        Reset();
    }
    void SetTensorA(const LocalTensor<SrcAT>& local, bool isTransposeA = false) {
        a_ = opgen_sim::matmul::Source<SrcAT>::Local(local, isTransposeA);
        Reset();
    }
    void SetTensorA(SrcAT aScalar) {
        a_ = opgen_sim::matmul::Source<SrcAT>::Scalar(aScalar);
        Reset();
    }
    void SetTensorB(const GlobalTensor<SrcBT>& gm, bool isTransposeB = false) {
        b_ = opgen_sim::matmul::Source<SrcBT>::Gm(gm, isTransposeB);
        Reset();
    }
    void SetTensorB(const LocalTensor<SrcBT>& local, bool isTransposeB = false) {
        b_ = opgen_sim::matmul::Source<SrcBT>::Local(local, isTransposeB);
        Reset();
    }
    void SetTensorB(SrcBT bScalar) {
        b_ = opgen_sim::matmul::Source<SrcBT>::Scalar(bScalar);
        Reset();
    }
    void SetBias(const GlobalTensor<BiasT>& biasGlobal) {
        bias_ = opgen_sim::matmul::Source<BiasT>::Gm(biasGlobal, false);
        bias_on_ = true;
        Reset();
    }
    void SetBias(const LocalTensor<BiasT>& inputBias) {
        bias_ = opgen_sim::matmul::Source<BiasT>::Local(inputBias, false);
        bias_on_ = true;
        Reset();
    }
    void DisableBias() {
        bias_on_ = false;
        Reset();
    }
    void ClearBias() { DisableBias(); }
    void SetHF32(bool enableHF32 = false, int32_t transMode = 0) {
        (void)transMode;
        if (enableHF32) {
            opgen_sim::matmul::Error("Matmul::SetHF32", "HF32 mode (float inputs rounded to hf32) is not "
                                                        "simulated: the simulated cube multiplies float in "
                                                        "float; call SetHF32(false) or leave it unset");
        }
    }
    // The GM IterateNBatch writes its results to (reference "SetWorkspace").
    template <class T>
    void SetWorkspace(GlobalTensor<T>& addr) {
        ws_.SetGlobalBuffer(reinterpret_cast<__gm__ DstT*>(addr.ptr_));
        has_ws_ = true;
    }
    template <class T>
    void SetWorkspace(__gm__ const T* addr, int size) {
        ws_.SetGlobalBuffer(reinterpret_cast<__gm__ DstT*>(const_cast<T*>(addr)),
                            static_cast<uint64_t>(size) / sizeof(DstT));
        has_ws_ = true;
    }
    void SetLocalWorkspace(const LocalTensor<uint8_t>&) {}
    void SetSubBlockIdx(uint8_t subBlockIdx) { sub_block_ = subBlockIdx; }
    uint8_t GetSubBlockIdx() { return sub_block_; }
    // What the callbacks receive as tilingPtr and dataPtr (reference "SetUserDefInfo",
    // "SetSelfDefineData").
    void SetUserDefInfo(const uint64_t tilingPtr) { user_info_ = tilingPtr; }
    template <class T>
    void SetSelfDefineData(T dataPtr) {
        if constexpr (std::is_pointer_v<T>) {
            self_data_ = reinterpret_cast<uint64_t>(dataPtr);
        } else if constexpr (std::is_integral_v<T>) {
            self_data_ = static_cast<uint64_t>(dataPtr);
        } else {
            static_assert(sizeof(T) <= sizeof(uint64_t), "SetSelfDefineData: a value of at most 8 bytes");
            self_data_ = 0;
            std::memcpy(&self_data_, &dataPtr, sizeof(T));
        }
    }
    void SetQuantScalar(const uint64_t) { Unsupported("SetQuantScalar", "quantised output"); }
    void SetQuantVector(const GlobalTensor<uint64_t>&) { Unsupported("SetQuantVector", "quantised output"); }
    void SetQuantVector(const LocalTensor<uint64_t>&) { Unsupported("SetQuantVector", "quantised output"); }
    void SetAntiQuantScalar(const SrcAT, const SrcAT) { Unsupported("SetAntiQuantScalar", "antiquant (int8 B)"); }
    template <class T>
    void SetAntiQuantVector(const LocalTensor<T>&, const LocalTensor<T>&) {
        Unsupported("SetAntiQuantVector", "antiquant (int8 B)");
    }
    void SetSparseIndex(const GlobalTensor<uint8_t>&) { Unsupported("SetSparseIndex", "sparse Matmul"); }
    template <class T>
    void SetTensorScaleA(const T&, bool = false) { Unsupported("SetTensorScaleA", "MxMatmul (scale matrices)"); }
    template <class T>
    void SetTensorScaleB(const T&, bool = false) { Unsupported("SetTensorScaleB", "MxMatmul (scale matrices)"); }
    // Reserved by the reference.
    template <bool isTurnOnDebug = true>
    MatrixOffset GetOffsetC() {
        return {};
    }

    // One [baseM, baseN] block of C, the whole K, into the object's CO1; false once every block of
    // the single-core shape was given (and the next call starts again). Iterate<false> computes
    // every block at once; GetTensorC<false> then hands them out in order.
    template <bool sync = true>
    bool Iterate(bool enPartialSum = false) {
        const char* api = "Matmul::Iterate";
        Prepare(api);
        if constexpr (!sync) {
            async_.clear();
            async_next_ = 0;
            while (Next()) {
                Compute(api, false);
                async_.push_back(Block{m0_, n0_, cur_m_, cur_n_, acc_});
            }
            return !async_.empty();
        }
        if (!Next()) return false;
        if (enPartialSum && (single_m_ != tiling_.baseM || single_n_ != tiling_.baseN)) {
            opgen_sim::matmul::Error(api, "enPartialSum accumulates in L0C only when singleCoreM == baseM and "
                                          "singleCoreN == baseN (reference \"Iterate\"); here singleCoreM " +
                                              std::to_string(single_m_) + ", baseM " + std::to_string(tiling_.baseM) +
                                              ", singleCoreN " + std::to_string(single_n_) + ", baseN " +
                                              std::to_string(tiling_.baseN));
        }
        Compute(api, enPartialSum && have_acc_);
        return true;
    }
    // The form whose CO1 is the caller's L0C tensor (TPosition::CO1, NZ): the block is written
    // there in Mmad's layout (16 x 16 fractals, columns of fractals).
    template <bool sync = true, typename T>
    bool Iterate(bool enPartialSum, const LocalTensor<T>& localCmatrix) {
        static_assert(std::is_same_v<T, L0cT>, "Matmul::Iterate(enPartialSum, localCmatrix): the L0C tensor's "
                                               "type must be the accumulator type (float, or int32_t for int8_t)");
        const char* api = "Matmul::Iterate";
        Prepare(api);
        if (!Next()) return false;
        opgen_sim::Core* c = &opgen_sim::CurrentCore();
        const uint64_t m1 = (static_cast<uint64_t>(cur_m_) + 15) / 16, n1 = (static_cast<uint64_t>(cur_n_) + 15) / 16;
        opgen_sim::cube::Operand(c, localCmatrix, 1u << opgen_sim::kCubeL0C, 64, m1 * n1 * 256 * sizeof(T), api,
                                 "localCmatrix", "the user-managed CO1 must be an L0C tensor (TPosition::CO1)");
        T* out = localCmatrix.ptr_;
        if (enPartialSum) {
            acc_.assign(static_cast<size_t>(cur_m_) * cur_n_, T{});
            for (int32_t i = 0; i < cur_m_; ++i) {
                for (int32_t j = 0; j < cur_n_; ++j) acc_[static_cast<size_t>(i) * cur_n_ + j] = out[L0c(i, j, m1)];
            }
        }
        Compute(api, enPartialSum);
        for (int32_t i = 0; i < cur_m_; ++i) {
            for (int32_t j = 0; j < cur_n_; ++j) out[L0c(i, j, m1)] = acc_[static_cast<size_t>(i) * cur_n_ + j];
        }
        return true;
    }

    // The block of the last Iterate to UB (co2Local): enSequentialWrite writes it alone, [rows,
    // cols] with rows of cols rounded up to 32 bytes; otherwise at its place in the single-core C
    // (rows of singleCoreN elements).
    template <bool sync = true, bool doPad = false>
    void GetTensorC(const LocalTensor<DstT>& co2Local, uint8_t enAtomic = 0, bool enSequentialWrite = false,
                    uint32_t height = 0, uint32_t width = 0, uint32_t srcGap = 0, uint32_t dstGap = 0) {
        (void)height, (void)width, (void)srcGap, (void)dstGap;
        const char* api = "Matmul::GetTensorC";
        TakeBlock<sync>(api);
        WriteLocal(api, co2Local, enAtomic, enSequentialWrite);
    }
    // ... to GM (gm: the single-core C's first element; rows of N, or orgKc when set).
    template <bool sync = true>
    void GetTensorC(const GlobalTensor<DstT>& gm, uint8_t enAtomic = 0, bool enSequentialWrite = false) {
        const char* api = "Matmul::GetTensorC";
        TakeBlock<sync>(api);
        WriteGm(api, gm, enAtomic, enSequentialWrite);
    }
    // ... to both.
    template <bool sync = true>
    void GetTensorC(const GlobalTensor<DstT>& gm, const LocalTensor<DstT>& co2Local, uint8_t enAtomic = 0,
                    bool enSequentialWrite = false) {
        const char* api = "Matmul::GetTensorC";
        TakeBlock<sync>(api);
        WriteGm(api, gm, enAtomic, enSequentialWrite);
        WriteLocal(api, co2Local, enAtomic, enSequentialWrite);
    }

    // Every block of the single-core C to GM (or to UB: singleCoreM rows of singleCoreN).
    template <bool sync = true>
    void IterateAll(const GlobalTensor<DstT>& gm, uint8_t enAtomic = 0, bool enSequentialWrite = false,
                    bool waitIterateAll = false, bool fakeMsg = false) {
        (void)waitIterateAll, (void)fakeMsg;
        const char* api = "Matmul::IterateAll";
        Prepare(api);
        while (Next()) {
            Compute(api, false);
            WriteGm(api, gm, enAtomic, enSequentialWrite);
        }
    }
    template <bool sync = true>
    void IterateAll(const LocalTensor<DstT>& ubCmatrix, uint8_t enAtomic = 0) {
        const char* api = "Matmul::IterateAll";
        Prepare(api);
        while (Next()) {
            Compute(api, false);
            WriteLocal(api, ubCmatrix, enAtomic, false);
        }
    }
    void WaitIterateAll() {}
    void WaitIterateBatch() {}

    // Batched Matmul (reference "IterateBatch", "IterateNBatch", "SetBatchNum"): C of each of
    // max(batchA, batchB) batches computed as Iterate/IterateAll do, the operands of batch i found
    // by the MatmulType's layout (BSNGD, SBNGD, BNGS1S2, NORMAL) and the tiling's layout fields.
    void SetBatchNum(int32_t batchA, int32_t batchB) {
        batch_a_ = batchA;
        batch_b_ = batchB;
    }
#ifdef ASCENDC_CUBE_ONLY
    // The pure-cube forms take the batch counts of SetBatchNum.
    template <bool sync = true>
    void IterateBatch(const GlobalTensor<DstT>& gm, bool enPartialSum, uint8_t enAtomic, bool enSequentialWrite,
                      const uint32_t matrixStrideA = 0, const uint32_t matrixStrideB = 0,
                      const uint32_t matrixStrideC = 0) {
        (void)matrixStrideC;
        RunBatch("Matmul::IterateBatch", &gm, nullptr, CubeBatchA(), CubeBatchB(), enSequentialWrite, matrixStrideA,
                 matrixStrideB, enPartialSum, enAtomic, 0);
    }
    template <bool sync = true>
    void IterateBatch(const LocalTensor<DstT>& ubCmatrix, bool enPartialSum, uint8_t enAtomic,
                      bool enSequentialWrite, const uint32_t matrixStrideA = 0, const uint32_t matrixStrideB = 0,
                      const uint32_t matrixStrideC = 0) {
        (void)matrixStrideC;
        RunBatch("Matmul::IterateBatch", nullptr, &ubCmatrix, CubeBatchA(), CubeBatchB(), enSequentialWrite,
                 matrixStrideA, matrixStrideB, enPartialSum, enAtomic, 0);
    }
#else
    // The mix forms (the vector cores' client) take the batch counts as arguments.
    template <bool sync = true, bool waitIterateBatch = false>
    void IterateBatch(const GlobalTensor<DstT>& gm, uint32_t batchA, uint32_t batchB, bool enSequentialWrite,
                      const uint32_t matrixStrideA = 0, const uint32_t matrixStrideB = 0,
                      const uint32_t matrixStrideC = 0, const bool enPartialSum = false, const uint8_t enAtomic = 0) {
        (void)matrixStrideC;
        RunBatch("Matmul::IterateBatch", &gm, nullptr, batchA, batchB, enSequentialWrite, matrixStrideA,
                 matrixStrideB, enPartialSum, enAtomic, 0);
    }
    template <bool sync = true, bool waitIterateBatch = false>
    void IterateBatch(const LocalTensor<DstT>& ubCmatrix, uint32_t batchA, uint32_t batchB, bool enSequentialWrite,
                      const uint32_t matrixStrideA = 0, const uint32_t matrixStrideB = 0,
                      const uint32_t matrixStrideC = 0, const bool enPartialSum = false, const uint8_t enAtomic = 0) {
        (void)matrixStrideC;
        if constexpr (!sync) {
            opgen_sim::matmul::Error("Matmul::IterateBatch", "the asynchronous IterateBatch<false> cannot write to "
                                                             "UB (reference \"IterateBatch\")");
        }
        RunBatch("Matmul::IterateBatch", nullptr, &ubCmatrix, batchA, batchB, enSequentialWrite, matrixStrideA,
                 matrixStrideB, enPartialSum, enAtomic, 0);
    }
#endif
    // batchLoop IterateBatch calls, the operands and C of call l offset as CANN's kernel server
    // offsets them; C goes to the SetWorkspace GM.
    template <bool sync = true, bool waitIterateBatch = false>
    void IterateNBatch(const uint32_t batchLoop, uint32_t batchA, uint32_t batchB, bool enSequentialWrite,
                       const uint32_t matrixStrideA = 0, const uint32_t matrixStrideB = 0,
                       const uint32_t matrixStrideC = 0) {
        (void)matrixStrideC;
        const char* api = "Matmul::IterateNBatch";
        if constexpr (!kCfg.isNBatch) {
            opgen_sim::matmul::Error(api, "IterateNBatch needs MatmulConfig.isNBatch = true (GetMMConfig with "
                                          "MatmulBatchParams{true, ...}, or GetNormalConfig(false, true))");
        }
        if (!has_ws_) {
            opgen_sim::matmul::Error(api, "no workspace: call SetWorkspace(gm) first; IterateNBatch writes C there");
        }
        const auto aSave = a_;
        const auto bSave = b_;
        const auto biasSave = bias_;
        const uint32_t batchC = BatchCount(batchA, batchB);
        nbatch_iter_ = 0;
        for (uint32_t l = 0; l < batchLoop; ++l) {
            a_ = aSave;
            b_ = bSave;
            bias_ = biasSave;
            ShiftSource(a_, NBatchOffset<A_TYPE>(batchA, l, tiling_.ALayoutInfoN, tiling_.ALayoutInfoG,
                                                 tiling_.ALayoutInfoD, tiling_.ALayoutInfoS));
            ShiftSource(b_, NBatchOffset<B_TYPE>(batchB, l, tiling_.BLayoutInfoN, tiling_.BLayoutInfoG,
                                                 tiling_.BLayoutInfoD, tiling_.BLayoutInfoS));
            const GlobalTensor<DstT> c = ws_[NBatchOffset<C_TYPE>(batchC, l, tiling_.CLayoutInfoN,
                                                                  tiling_.CLayoutInfoG, tiling_.CLayoutInfoS2,
                                                                  tiling_.CLayoutInfoS1)];
            RunBatch(api, &c, nullptr, batchA, batchB, enSequentialWrite, matrixStrideA, matrixStrideB, false, 0,
                     static_cast<uint64_t>(tiling_.CLayoutInfoS2) * batchC * l);
        }
        a_ = aSave;
        b_ = bSave;
        bias_ = biasSave;
    }
    // After IterateNBatch<false>: the next call's C in the workspace (reference "GetBatchTensorC").
    template <bool sync = true>
    GlobalTensor<DstT> GetBatchTensorC(uint32_t batchA, uint32_t batchB, bool enSequentialWrite = false) {
        (void)enSequentialWrite;
        const char* api = "Matmul::GetBatchTensorC";
        if (!has_ws_) opgen_sim::matmul::Error(api, "no workspace: call SetWorkspace and IterateNBatch first");
        const uint32_t batchC = BatchCount(batchA, batchB);
        const GlobalTensor<DstT> r = ws_[NBatchOffset<C_TYPE>(batchC, nbatch_iter_++, tiling_.CLayoutInfoN,
                                                              tiling_.CLayoutInfoG, single_n_, tiling_.CLayoutInfoS1)];
        return r;
    }
    // ... copied to UB: batchC matrices of singleCoreM rows, each row singleCoreN elements (rounded
    // up to 32 bytes), one after another.
    template <bool sync = true>
    void GetBatchTensorC(const LocalTensor<DstT>& c, uint32_t batchA, uint32_t batchB, bool enSequentialWrite = false) {
        const char* api = "Matmul::GetBatchTensorC";
        const GlobalTensor<DstT> src = GetBatchTensorC<sync>(batchA, batchB, enSequentialWrite);
        const uint32_t batchC = BatchCount(batchA, batchB);
        constexpr uint64_t align = 32 / sizeof(DstT);
        const uint64_t m = static_cast<uint64_t>(single_m_), n = static_cast<uint64_t>(single_n_);
        const uint64_t rowOut = (n + align - 1) / align * align;
        const uint64_t ld = CLayoutRowStride();
        const uint64_t batchStep = CBatchStep();
        const uint64_t span = batchC * m * rowOut;
        opgen_sim::CheckOperand(c, static_cast<int64_t>(span), api, "c");
        src.CheckRange((batchC - 1) * batchStep + (m - 1) * ld + n, api);
        opgen_sim::FlushAll();
        opgen_sim::FlushUb(&opgen_sim::CurrentCore(), c.ptr_, span * sizeof(DstT), true);
        for (uint64_t b = 0; b < batchC; ++b) {
            for (uint64_t i = 0; i < m; ++i) {
                for (uint64_t j = 0; j < n; ++j) c.ptr_[(b * m + i) * rowOut + j] = src.ptr_[b * batchStep + i * ld + j];
            }
        }
    }
    template <bool sync = true>
    void GetBatchC(const LocalTensor<DstT>& c, uint32_t batchA, uint32_t batchB, bool enSequentialWrite = false) {
        GetBatchTensorC<sync>(c, batchA, batchB, enSequentialWrite);
    }
    void WaitGetTensorC() {}
    void End() {
        Reset();
        async_.clear();
    }

private:
    struct Block {
        int32_t m0, n0, rows, cols;
        std::vector<L0cT> acc;
    };

    // A constant tiling's fields (those not -1) override the runtime tiling's (CANN's
    // MatmulTiling reads them first); its isBias (GetMatmulApiTiling copies enableSetBias, which
    // only says SetBias may be called) is not taken: the bias is on when SetBias is called.
    void OverlayStatic() {
        if constexpr (kStatic) {
            constexpr const MatmulApiStaticTiling& c = MM_CFG;
#define OPGEN_MM_STATIC(f) \
    if (c.f != -1) tiling_.f = c.f;
            OPGEN_MM_STATIC(usedCoreNum) OPGEN_MM_STATIC(M) OPGEN_MM_STATIC(N) OPGEN_MM_STATIC(Ka)
            OPGEN_MM_STATIC(Kb) OPGEN_MM_STATIC(singleCoreM) OPGEN_MM_STATIC(singleCoreN)
            OPGEN_MM_STATIC(singleCoreK) OPGEN_MM_STATIC(baseM) OPGEN_MM_STATIC(baseN) OPGEN_MM_STATIC(baseK)
            OPGEN_MM_STATIC(depthA1) OPGEN_MM_STATIC(depthB1) OPGEN_MM_STATIC(stepM) OPGEN_MM_STATIC(stepN)
            OPGEN_MM_STATIC(iterateOrder) OPGEN_MM_STATIC(stepKa) OPGEN_MM_STATIC(stepKb)
            OPGEN_MM_STATIC(ALayoutInfoB) OPGEN_MM_STATIC(ALayoutInfoS) OPGEN_MM_STATIC(ALayoutInfoN)
            OPGEN_MM_STATIC(ALayoutInfoG) OPGEN_MM_STATIC(ALayoutInfoD) OPGEN_MM_STATIC(BLayoutInfoB)
            OPGEN_MM_STATIC(BLayoutInfoS) OPGEN_MM_STATIC(BLayoutInfoN) OPGEN_MM_STATIC(BLayoutInfoG)
            OPGEN_MM_STATIC(BLayoutInfoD) OPGEN_MM_STATIC(CLayoutInfoB) OPGEN_MM_STATIC(CLayoutInfoS1)
            OPGEN_MM_STATIC(CLayoutInfoN) OPGEN_MM_STATIC(CLayoutInfoG) OPGEN_MM_STATIC(CLayoutInfoS2)
            OPGEN_MM_STATIC(BatchNum)
#undef OPGEN_MM_STATIC
        }
    }
    static void CheckPositive(const char* api, const char* field, int32_t v) {
        if (v <= 0) {
            opgen_sim::matmul::Error(api, std::string("the tiling's ") + field + " is " + std::to_string(v) +
                                              ": it must be greater than 0 (fill the TCubeTiling with GetTiling "
                                              "on the host and pass it whole)");
        }
    }
    static void Unsupported(const char* what, const char* feature) {
        opgen_sim::matmul::Error((std::string("Matmul::") + what).c_str(),
                                 std::string(feature) + " is not simulated");
    }
    static uint64_t L0c(int32_t i, int32_t j, uint64_t m1) {
        return ((static_cast<uint64_t>(j) / 16) * m1 * 16 + static_cast<uint64_t>(i)) * 16 +
               static_cast<uint64_t>(j) % 16;
    }
    void Reset() {
        iter_ = 0;
        have_acc_ = false;
    }
    int32_t OrgCN() const {
        if (c_ld_ > 0) return c_ld_;
        return org_kc_ > 0 ? org_kc_ : org_n_;
    }
    int64_t ALd() const {
        if (a_ld_ > 0) return a_ld_;
        return a_.trans ? org_m_ : org_ka_;
    }
    int64_t BLd() const {
        if (b_ld_ > 0) return b_ld_;
        return b_.trans ? org_kb_ : org_n_;
    }

    // --- batched Matmul ---
    int32_t CubeBatchA() const { return batch_a_ > 0 ? batch_a_ : tiling_.BatchNum; }
    int32_t CubeBatchB() const { return batch_b_ > 0 ? batch_b_ : tiling_.BatchNum; }
    bool ReduceG() const {
        return tiling_.CLayoutInfoG == 1 && (tiling_.ALayoutInfoG != 1 || tiling_.BLayoutInfoG != 1);
    }
    int32_t ReduceGNum() const {
        return tiling_.ALayoutInfoG >= tiling_.BLayoutInfoG ? tiling_.ALayoutInfoG : tiling_.BLayoutInfoG;
    }
    // The C batches of one IterateNBatch call (GetBatchCNum in CANN: G reduced when C has G 1).
    uint32_t BatchCount(uint32_t batchA, uint32_t batchB) const {
        uint32_t c = batchA > batchB ? batchA : batchB;
        if (A_TYPE::layout != LayoutMode::NORMAL && ReduceG() && ReduceGNum() > 0) {
            c /= static_cast<uint32_t>(ReduceGNum());
        }
        return c;
    }
    // The element offset of call l's first matrix (CANN's CalcNBatchoffset, in elements).
    template <class T>
    static uint64_t NBatchOffset(uint32_t batch, uint32_t l, int32_t n, int32_t g, int32_t d, int32_t sRows) {
        uint64_t dd = static_cast<uint64_t>(d);
        if constexpr (T::format == CubeFormat::ND_ALIGN) {
            constexpr uint64_t c0 = 32 / sizeof(typename T::T);
            dd = (dd + c0 - 1) / c0 * c0;
        }
        const uint64_t ng = static_cast<uint64_t>(n) * static_cast<uint64_t>(g);
        const uint64_t first = static_cast<uint64_t>(batch) * l;
        if constexpr (T::layout == LayoutMode::SBNGD) {
            return dd * first;
        } else if constexpr (T::layout == LayoutMode::BSNGD) {
            if (ng == 0) return 0;
            return (first / ng) * dd * static_cast<uint64_t>(sRows) * ng + (first % ng) * dd;
        } else {
            return dd * static_cast<uint64_t>(sRows) * first;
        }
    }
    template <typename T>
    static void ShiftSource(opgen_sim::matmul::Source<T>& s, uint64_t off) {
        if (off == 0) return;
        if (s.kind == opgen_sim::matmul::Source<T>::kGm) {
            s.gm = s.gm[off];
            s.ptr = s.gm.ptr_;
        } else if (s.kind == opgen_sim::matmul::Source<T>::kLocal) {
            s.local = s.local[static_cast<uint32_t>(off)];
            s.ptr = s.local.ptr_;
        }
    }
    // Which of an operand's loaded batches C batch c uses (CANN's batch scheduler: NORMAL repeats
    // each of the fewer batches; the other layouts broadcast along G, N or B).
    template <class T>
    int64_t BatchIndex(bool isA, int64_t c, int64_t batchX, int64_t batchC) const {
        if constexpr (T::layout == LayoutMode::NORMAL) {
            const int64_t div = batchX > 0 ? batchC / batchX : 1;
            return div > 0 ? c / div : c;
        } else {
            const int64_t xB = isA ? tiling_.ALayoutInfoB : tiling_.BLayoutInfoB;
            const int64_t xN = isA ? tiling_.ALayoutInfoN : tiling_.BLayoutInfoN;
            const int64_t xG = isA ? tiling_.ALayoutInfoG : tiling_.BLayoutInfoG;
            const int64_t yB = isA ? tiling_.BLayoutInfoB : tiling_.ALayoutInfoB;
            const int64_t yN = isA ? tiling_.BLayoutInfoN : tiling_.ALayoutInfoN;
            const int64_t yG = isA ? tiling_.BLayoutInfoG : tiling_.ALayoutInfoG;
            int64_t mod = 1, div = 1;
            if (xG == 1 && yG != 1) {
                div = yG;
            } else if (xN == 1 && yN != 1) {
                mod = yG;
                div = yG * yN;
            } else if (xB == 1 && yB != 1) {
                mod = yG * yN;
                div = yG * yN * yB;
            }
            if (mod <= 0 || div <= 0) return c;
            return c % mod + c / div;
        }
    }
    // The element offset of an operand's loaded batch i: BSNGD's batches are D apart along a row of
    // N * G * D and wrap to the next B after N * G; SBNGD's D apart; NORMAL and BNGS1S2 whole
    // matrices (rows x cols, or matrixStride when given) apart.
    template <class T>
    uint64_t BatchOffset(bool isA, int64_t i, uint64_t rows, uint64_t cols, uint32_t matrixStride) const {
        const uint64_t n = static_cast<uint64_t>(isA ? tiling_.ALayoutInfoN : tiling_.BLayoutInfoN);
        const uint64_t g = static_cast<uint64_t>(isA ? tiling_.ALayoutInfoG : tiling_.BLayoutInfoG);
        const uint64_t sRows = static_cast<uint64_t>(isA ? tiling_.ALayoutInfoS : tiling_.BLayoutInfoS);
        const uint64_t ui = static_cast<uint64_t>(i);
        if constexpr (T::layout == LayoutMode::BSNGD || T::layout == LayoutMode::SBNGD) {
            const uint64_t step = matrixStride != 0 ? matrixStride : cols;
            if constexpr (T::layout == LayoutMode::BSNGD) {
                const uint64_t ng = n * g;
                if (ng > 0 && ui >= ng) return (ui / ng) * sRows * ng * cols + (ui % ng) * step;
            }
            return ui * step;
        } else {
            return ui * (matrixStride != 0 ? matrixStride : rows * cols);
        }
    }
    // An operand's row length in its batch layout.
    template <class T>
    int64_t BatchLd(bool isA, int64_t cols) const {
        const int64_t b = isA ? tiling_.ALayoutInfoB : tiling_.BLayoutInfoB;
        const int64_t n = isA ? tiling_.ALayoutInfoN : tiling_.BLayoutInfoN;
        const int64_t g = isA ? tiling_.ALayoutInfoG : tiling_.BLayoutInfoG;
        const int64_t d = isA ? tiling_.ALayoutInfoD : tiling_.BLayoutInfoD;
        if constexpr (T::layout == LayoutMode::BSNGD) {
            return n * g * d;
        } else if constexpr (T::layout == LayoutMode::SBNGD) {
            return b * n * g * d;
        } else {
            return cols;
        }
    }
    // C's row length and the distance between its batches in GM.
    uint64_t CLayoutRowStride() const {
        const uint64_t n = static_cast<uint64_t>(single_n_);
        if constexpr (C_TYPE::layout == LayoutMode::BSNGD) {
            return static_cast<uint64_t>(tiling_.CLayoutInfoN) * tiling_.CLayoutInfoG * tiling_.CLayoutInfoS2;
        } else if constexpr (C_TYPE::layout == LayoutMode::SBNGD) {
            return static_cast<uint64_t>(tiling_.CLayoutInfoB) * tiling_.CLayoutInfoN * tiling_.CLayoutInfoG *
                   tiling_.CLayoutInfoS2;
        } else {
            return n;
        }
    }
    uint64_t CBatchStep() const {
        if constexpr (C_TYPE::layout == LayoutMode::BSNGD || C_TYPE::layout == LayoutMode::SBNGD) {
            return static_cast<uint64_t>(single_n_);
        } else {
            return static_cast<uint64_t>(single_m_) * static_cast<uint64_t>(single_n_);
        }
    }
    void RunBatch(const char* api, const GlobalTensor<DstT>* gm, const LocalTensor<DstT>* ub, int64_t batchA,
                  int64_t batchB, bool sequential, uint32_t strideA, uint32_t strideB, bool enPartialSum,
                  uint8_t enAtomic, uint64_t biasBase) {
        if constexpr (A_TYPE::layout == LayoutMode::NONE || B_TYPE::layout == LayoutMode::NONE) {
            opgen_sim::matmul::Error(api, "A and B need a batch layout (MatmulType's LayoutMode: NORMAL, BSNGD, "
                                          "SBNGD or BNGS1S2)");
        }
        if constexpr (A_TYPE::layout != B_TYPE::layout) {
            opgen_sim::matmul::Error(api, "A and B must have the same layout (reference \"IterateBatch\")");
        }
        if constexpr ((A_TYPE::format != CubeFormat::ND && A_TYPE::format != CubeFormat::ND_ALIGN) ||
                      (B_TYPE::format != CubeFormat::ND && B_TYPE::format != CubeFormat::ND_ALIGN)) {
            opgen_sim::matmul::Error(api, "batched A and B in the NZ format are not simulated (ND only)");
        }
        if (enPartialSum) opgen_sim::matmul::Error(api, "enPartialSum in a batched Matmul is not simulated");
        if (batchA <= 0 || batchB <= 0 || (batchA % batchB != 0 && batchB % batchA != 0)) {
            opgen_sim::matmul::Error(api, "batchA " + std::to_string(batchA) + " and batchB " +
                                              std::to_string(batchB) + " must be positive and one a multiple of the "
                                                                       "other (set them with SetBatchNum or pass them)");
        }
        if (ub != nullptr && (C_TYPE::layout == LayoutMode::BSNGD || C_TYPE::layout == LayoutMode::SBNGD)) {
            opgen_sim::matmul::Error(api, "a batched C in UB with the BSNGD or SBNGD layout is not simulated");
        }
        if (sequential && (C_TYPE::layout == LayoutMode::BSNGD || C_TYPE::layout == LayoutMode::SBNGD)) {
            opgen_sim::matmul::Error(api, "the BSNGD and SBNGD layouts cannot write sequentially (reference "
                                          "\"IterateBatch\")");
        }
        const auto aSave = a_;
        const auto bSave = b_;
        const auto biasSave = bias_;
        const int64_t batchC = batchA > batchB ? batchA : batchB;
        const bool reduce = A_TYPE::layout != LayoutMode::NORMAL && ReduceG();
        const int64_t reduceNum = reduce ? ReduceGNum() : 1;
        const uint64_t m = static_cast<uint64_t>(single_m_), n = static_cast<uint64_t>(single_n_),
                       k = static_cast<uint64_t>(single_k_);
        // stored shapes: A [m, k] (transposed [k, m]), B [k, n] (transposed [n, k])
        const uint64_t aRows = a_.trans ? k : m, aCols = a_.trans ? m : k;
        const uint64_t bRows = b_.trans ? n : k, bCols = b_.trans ? k : n;
        a_ld_ = BatchLd<A_TYPE>(true, static_cast<int64_t>(aCols));
        b_ld_ = BatchLd<B_TYPE>(false, static_cast<int64_t>(bCols));
        constexpr uint64_t cAlign = 32 / sizeof(DstT);
        const uint64_t ubRow = (n + cAlign - 1) / cAlign * cAlign;
        c_ld_ = static_cast<int32_t>(ub != nullptr ? ubRow : CLayoutRowStride());
        Reset();
        Prepare(api);
        for (int64_t c = 0; c < batchC; ++c) {
            a_ = aSave;
            b_ = bSave;
            bias_ = biasSave;
            ShiftSource(a_, BatchOffset<A_TYPE>(true, BatchIndex<A_TYPE>(true, c, batchA, batchC), aRows, aCols,
                                                strideA));
            ShiftSource(b_, BatchOffset<B_TYPE>(false, BatchIndex<B_TYPE>(false, c, batchB, batchC), bRows, bCols,
                                                strideB));
            if (bias_on_ && kCfg.isBiasBatch) ShiftSource(bias_, biasBase + static_cast<uint64_t>(c) * n);
            CheckOperands(api);
            const uint64_t iBatch = static_cast<uint64_t>(reduce ? c / reduceNum : c);
            const uint8_t atomic = reduce ? 1 : enAtomic;
            iter_ = 0;
            while (Next()) {
                Compute(api, false);
                if (gm != nullptr) {
                    WriteGm(api, (*gm)[iBatch * CBatchStep()], atomic, sequential);
                } else {
                    WriteBatchLocal(api, (*ub)[static_cast<uint32_t>(iBatch * m * ubRow)], atomic, ubRow);
                }
            }
        }
        a_ = aSave;
        b_ = bSave;
        bias_ = biasSave;
        a_ld_ = b_ld_ = 0;
        c_ld_ = 0;
        Reset();
    }
    void WriteBatchLocal(const char* api, const LocalTensor<DstT>& dst, uint8_t enAtomic, uint64_t row) {
        const uint64_t base = static_cast<uint64_t>(m0_) * row + static_cast<uint64_t>(n0_);
        const uint64_t span = base + static_cast<uint64_t>(cur_m_ - 1) * row + static_cast<uint64_t>(cur_n_);
        opgen_sim::CheckOperand(dst, static_cast<int64_t>(span), api, "C");
        opgen_sim::FlushUb(&opgen_sim::CurrentCore(), dst.ptr_, span * sizeof(DstT), true);
        for (int32_t i = 0; i < cur_m_; ++i) {
            for (int32_t j = 0; j < cur_n_; ++j) {
                const uint64_t at = base + static_cast<uint64_t>(i) * row + static_cast<uint64_t>(j);
                dst.ptr_[at] = Combine(enAtomic, dst.ptr_[at], Convert(acc_[static_cast<size_t>(i) * cur_n_ + j]));
            }
        }
    }
    IterateOrder Order() const {
        if constexpr (kCfg.iterateOrder != IterateOrder::UNDEF) {
            return kCfg.iterateOrder;
        } else {
            return tiling_.iterateOrder == 1 ? IterateOrder::ORDER_N : IterateOrder::ORDER_M;
        }
    }

    // Checks that the object can run and the operands hold what it reads.
    void Prepare(const char* api) {
        if constexpr (MM_CB::DataCopyOutPtr != nullptr) {
            Unsupported("Iterate", "a MatmulCallBackFunc DataCopyOut callback (C out of L0C by the user)");
        }
        if constexpr (kPolicy == Impl::Detail::OpgenPolicy::kSplitN) {
            Unsupported("Iterate", "SplitNMatmulPolicy (a block split along N between two AIV cores)");
        }
        if constexpr (kPolicy == Impl::Detail::OpgenPolicy::kWithScale) {
            Unsupported("Iterate", "MatmulWithScalePolicy (MxMatmul with scale matrices)");
        }
        if (!has_tiling_) {
            opgen_sim::matmul::Error(api, "the Matmul has no tiling: register it with REGIST_MATMUL_OBJ(&pipe, "
                                          "GetSysWorkSpacePtr(), mm, &tiling) or call mm.Init(&tiling)");
        }
        if (a_.kind == opgen_sim::matmul::Source<SrcAT>::kNone) {
            opgen_sim::matmul::Error(api, "A is not set: call SetTensorA first");
        }
        if (b_.kind == opgen_sim::matmul::Source<SrcBT>::kNone) {
            opgen_sim::matmul::Error(api, "B is not set: call SetTensorB first");
        }
        if (single_m_ <= 0 || single_n_ <= 0 || single_k_ <= 0) {
            opgen_sim::matmul::Error(api, "singleCoreM/N/K are " + std::to_string(single_m_) + "/" +
                                              std::to_string(single_n_) + "/" + std::to_string(single_k_) +
                                              ": each must be greater than 0");
        }
        if (bias_on_ && bias_.kind == opgen_sim::matmul::Source<BiasT>::kNone) {
            opgen_sim::matmul::Error(api, "the tiling has isBias = 1 but no bias is set: call SetBias, or "
                                          "EnableBias(false) on the host (or DisableBias here)");
        }
        if (iter_ == 0) {
            opgen_sim::FlushAll();  // the operands are read as every earlier instruction left them
            CheckOperands(api);
            LoadByCallbacks(api);
        }
    }
    // A tile the callbacks load into: the top of L1 (the object's own buffers; CANN's come after
    // the user's TPipe buffers).
    static LocalTensor<int8_t> ScratchL1(uint64_t bytes, const char* api) {
        const uint64_t cap = opgen_sim::kCubeBufBytes[opgen_sim::kCubeL1];
        if (bytes > cap) {
            opgen_sim::matmul::Error(api, "a callback tile of " + std::to_string(bytes) + " bytes does not fit L1");
        }
        const uint64_t addr = (cap - bytes) / 32 * 32;
        return LocalTensor<int8_t>(TPosition::A1, static_cast<uint32_t>(addr), static_cast<uint32_t>(bytes));
    }
    // One operand [rows, cols] through a CopyA1/CopyB1 callback, tile by tile (tiles of
    // tileRows x tileCols, indexed (row, col) from 0), each read back from L1 in NZ (rows padded
    // to 16, C0 = 32 bytes along the columns) into `out`, row-major.
    template <typename T, typename Copy>
    void LoadTiles(Copy copy, const T* gm, int64_t rows, int64_t cols, int64_t tileRows,
                   int64_t tileCols, std::vector<T>* out, const char* api) {
        constexpr int64_t c0 = 32 / sizeof(T);
        out->assign(static_cast<size_t>(rows * cols), T{});
        for (int64_t row = 0; row * tileRows < rows; ++row) {
            for (int64_t col = 0; col * tileCols < cols; ++col) {
                const int64_t useR = std::min(tileRows, rows - row * tileRows);
                const int64_t useC = std::min(tileCols, cols - col * tileCols);
                const int64_t alignR = (useR + 15) / 16 * 16, alignC = (useC + c0 - 1) / c0 * c0;
                const LocalTensor<int8_t> l1 = ScratchL1(static_cast<uint64_t>(alignR * alignC) * sizeof(T), api);
                copy(l1, gm, static_cast<int>(row), static_cast<int>(col), static_cast<int>(useR),
                     static_cast<int>(useC), user_info_, self_data_);
                opgen_sim::FlushAll();
                const T* t = reinterpret_cast<const T*>(l1.ptr_);
                for (int64_t r = 0; r < useR; ++r) {
                    for (int64_t c = 0; c < useC; ++c) {
                        (*out)[static_cast<size_t>((row * tileRows + r) * cols + col * tileCols + c)] =
                            t[(c / c0 * alignR + r) * c0 + c % c0];
                    }
                }
            }
        }
    }
    // CopyA1/CopyB1: every tile of the core's A [singleCoreM, singleCoreK] (B [singleCoreK,
    // singleCoreN]) loaded by the callback into L1, NZ (C0 = 32 bytes along K for A, along N for
    // B; rows padded to 16), and read from there. The tiles are CANN's: baseM x baseK (Norm), or
    // stepM * baseM x stepKa * baseK (MDL), indexed (row, col) from 0.
    void LoadByCallbacks(const char* api) {
        const int64_t m = single_m_, n = single_n_, k = single_k_;
        const bool mdl = kCfg.doMultiDataLoad;
        if constexpr (kCbA) {
            if (a_.trans) opgen_sim::matmul::Error(api, "a CopyA1 callback with a transposed A is not simulated");
            const int64_t tm = mdl ? int64_t{tiling_.stepM} * tiling_.baseM : tiling_.baseM;
            const int64_t tk = mdl ? int64_t{tiling_.stepKa} * tiling_.baseK : tiling_.baseK;
            LoadTiles<SrcAT>(MM_CB::CopyA1Ptr, a_.ptr, m, k, tm, tk, &a_cb_, api);
        }
        if constexpr (kCbB) {
            if (b_.trans) opgen_sim::matmul::Error(api, "a CopyB1 callback with a transposed B is not simulated");
            const int64_t tk = mdl ? int64_t{tiling_.stepKb} * tiling_.baseK : tiling_.baseK;
            const int64_t tn = mdl ? int64_t{tiling_.stepN} * tiling_.baseN : tiling_.baseN;
            LoadTiles<SrcBT>(MM_CB::CopyB1Ptr, b_.ptr, k, n, tk, tn, &b_cb_, api);
        }
        (void)m, (void)n, (void)k, (void)mdl;
    }
    // The triangular policies: whether the current block is computed and written.
    bool InTriangle() const {
        const int32_t mi = m0_ / tiling_.baseM, ni = n0_ / tiling_.baseN;
        if constexpr (kPolicy == Impl::Detail::OpgenPolicy::kTrianUpper) return mi <= ni;
        if constexpr (kPolicy == Impl::Detail::OpgenPolicy::kTrianLower) return mi >= ni;
        return true;
    }
    template <typename T>
    void CheckSource(const char* api, const opgen_sim::matmul::Source<T>& s, CubeFormat format, uint64_t rows,
                     uint64_t cols, uint64_t orgRows, uint64_t stride, const char* what) {
        if (s.kind == opgen_sim::matmul::Source<T>::kScalar || s.kind == opgen_sim::matmul::Source<T>::kNone) return;
        if (format != CubeFormat::ND && format != CubeFormat::NZ && format != CubeFormat::ND_ALIGN &&
            format != CubeFormat::VECTOR && format != CubeFormat::COLUMN_MAJOR) {
            opgen_sim::matmul::Error(api, std::string(what) + ": only the ND, NZ, VECTOR and COLUMN_MAJOR "
                                                              "formats are simulated");
        }
        uint64_t span = 0;
        if (format == CubeFormat::COLUMN_MAJOR) {
            span = rows == 0 || cols == 0 ? 0 : (cols - 1) * orgRows + rows;
        } else if (format == CubeFormat::NZ) {
            constexpr uint64_t c0 = 32 / sizeof(T);
            const uint64_t aligned = (orgRows + 15) / 16 * 16;
            span = ((cols + c0 - 1) / c0 - 1) * aligned * c0 + ((rows + 15) / 16 * 16) * c0;
            if (rows == 0 || cols == 0) span = 0;
        } else {
            span = rows == 0 || cols == 0 ? 0 : (rows - 1) * stride + cols;
        }
        if (span == 0) return;
        const std::string where = std::string(api) + " (" + what + ")";
        if (s.kind == opgen_sim::matmul::Source<T>::kGm) {
            s.gm.CheckRange(span, where.c_str());
        } else {
            uint64_t off = 0;
            opgen_sim::Core* c = &opgen_sim::CurrentCore();
            if (opgen_sim::cube::Where(c, s.local, &off) < 0) {
                opgen_sim::CheckOperand(s.local, static_cast<int64_t>(span), where.c_str(), what);
            } else {
                opgen_sim::cube::Operand(c, s.local, (1u << opgen_sim::kCubeL1), 32, span * sizeof(T), where.c_str(),
                                         what, "a Matmul operand in local memory must be in UB or L1 (TSCM)");
            }
        }
    }
    void CheckOperands(const char* api) {
        const uint64_t m = static_cast<uint64_t>(single_m_), n = static_cast<uint64_t>(single_n_),
                       k = static_cast<uint64_t>(single_k_);
        // A is [M, Ka] (rows of Ka), or transposed [Ka, M] (rows of M); B [Kb, N] or [N, Kb].
        const uint64_t aLd = static_cast<uint64_t>(ALd()), bLd = static_cast<uint64_t>(BLd());
        if (kCbA) {
            // the callback reads A
        } else if (a_.trans) {
            CheckSource(api, a_, A_TYPE::format, k, m, static_cast<uint64_t>(org_ka_), aLd, "A");
        } else {
            CheckSource(api, a_, A_TYPE::format, m, k, static_cast<uint64_t>(org_m_), aLd, "A");
        }
        if (kCbB) {
            // the callback reads B
        } else if (b_.trans) {
            CheckSource(api, b_, B_TYPE::format, n, k, static_cast<uint64_t>(org_n_), bLd, "B");
        } else {
            CheckSource(api, b_, B_TYPE::format, k, n, static_cast<uint64_t>(org_kb_), bLd, "B");
        }
        if (bias_on_) CheckSource(api, bias_, CubeFormat::ND, 1, n, 1, n, "bias");
    }

    // The next block in iteration order; false after the last (and the order starts again).
    bool Next() {
        const int32_t mIter = (single_m_ + tiling_.baseM - 1) / tiling_.baseM;
        const int32_t nIter = (single_n_ + tiling_.baseN - 1) / tiling_.baseN;
        if (iter_ >= mIter * nIter) {
            iter_ = 0;
            return false;
        }
        int32_t mi = 0, ni = 0;
        if (Order() == IterateOrder::ORDER_N) {
            mi = iter_ / nIter;
            ni = iter_ % nIter;
        } else {
            mi = iter_ % mIter;
            ni = iter_ / mIter;
        }
        ++iter_;
        m0_ = mi * tiling_.baseM;
        n0_ = ni * tiling_.baseN;
        cur_m_ = single_m_ - m0_ < tiling_.baseM ? single_m_ - m0_ : tiling_.baseM;
        cur_n_ = single_n_ - n0_ < tiling_.baseN ? single_n_ - n0_ : tiling_.baseN;
        return true;
    }

    template <typename T>
    T Read(const opgen_sim::matmul::Source<T>& s, CubeFormat format, uint64_t r, uint64_t c, uint64_t stride,
           uint64_t orgRows) const {
        if (s.kind == opgen_sim::matmul::Source<T>::kScalar) return s.scalar;
        if (format == CubeFormat::COLUMN_MAJOR) return s.ptr[c * orgRows + r];  // columns of orgRows
        constexpr uint64_t c0 = 32 / sizeof(T);
        return s.ptr[opgen_sim::matmul::Index(format, r, c, stride, (orgRows + 15) / 16 * 16, c0)];
    }
    SrcAT A(uint64_t i, uint64_t k) const {
        if constexpr (kCbA) return a_cb_[i * static_cast<uint64_t>(single_k_) + k];
        return a_.trans ? Read(a_, A_TYPE::format, k, i, static_cast<uint64_t>(ALd()), static_cast<uint64_t>(org_ka_))
                        : Read(a_, A_TYPE::format, i, k, static_cast<uint64_t>(ALd()), static_cast<uint64_t>(org_m_));
    }
    SrcBT B(uint64_t k, uint64_t j) const {
        if constexpr (kCbB) return b_cb_[k * static_cast<uint64_t>(single_n_) + j];
        return b_.trans ? Read(b_, B_TYPE::format, j, k, static_cast<uint64_t>(BLd()), static_cast<uint64_t>(org_n_))
                        : Read(b_, B_TYPE::format, k, j, static_cast<uint64_t>(BLd()), static_cast<uint64_t>(org_kb_));
    }

    // The current block into acc_ (added to it with `accumulate`), as Mmad computes: per element,
    // the K products of each fractal row summed, each sum added to C in order.
#if defined(__GNUC__) && !defined(__clang__)
    // kernels build at -O0 by default; the product loops are the simulator's, not the kernel's
    __attribute__((optimize("O2")))
#endif
    void Compute(const char* api, bool accumulate) {
        (void)api;
        const uint64_t k = static_cast<uint64_t>(single_k_);
        const size_t cells = static_cast<size_t>(cur_m_) * static_cast<size_t>(cur_n_);
        if (!accumulate) acc_.assign(cells, L0cT{});
        // B's rows of the block widened once (row q at q * n); each C row then takes K one fractal
        // row at a time: the row's products summed in order into s, s added to C (per element the
        // order of Mmad's model; the loops run along N so that they vectorise)
        const size_t n = static_cast<size_t>(cur_n_);
        std::vector<L0cT> arow(k), brows(n * k), s(n);
        for (uint64_t kk = 0; kk < k; ++kk) {
            for (size_t j = 0; j < n; ++j) brows[kk * n + j] = Widen(B(kk, static_cast<uint64_t>(n0_) + j));
        }
        for (int32_t i = 0; i < cur_m_; ++i) {
            for (uint64_t kk = 0; kk < k; ++kk) arow[kk] = Widen(A(static_cast<uint64_t>(m0_ + i), kk));
            L0cT* row = acc_.data() + static_cast<size_t>(i) * n;
            if (!accumulate) {
                for (size_t j = 0; j < n; ++j) row[j] = bias_on_ ? BiasAt(static_cast<uint64_t>(n0_) + j) : L0cT{};
            }
            for (uint64_t kb = 0; kb < k; kb += kC0) {
                const uint64_t end = kb + kC0 < k ? kb + kC0 : k;
                std::fill(s.begin(), s.end(), L0cT{});
                for (uint64_t q = kb; q < end; ++q) {
                    const L0cT av = arow[q];
                    const L0cT* br = brows.data() + q * n;
                    for (size_t j = 0; j < n; ++j) s[j] += av * br[j];
                }
                for (size_t j = 0; j < n; ++j) row[j] += s[j];
            }
        }
        have_acc_ = true;
    }
    template <typename T>
    static L0cT Widen(T v) {
        if constexpr (std::is_same_v<L0cT, float>) {
            return static_cast<float>(v);
        } else {
            return static_cast<L0cT>(v);
        }
    }
    L0cT BiasAt(uint64_t j) const {
        if constexpr (std::is_integral_v<L0cT>) {
            return static_cast<L0cT>(bias_.ptr[j]);
        } else {
            return opgen_sim::matmul::AsFloat(bias_.ptr[j]);
        }
    }
    static DstT Convert(L0cT v) {
        if constexpr (std::is_same_v<DstT, L0cT>) {
            return v;
        } else if constexpr (std::is_same_v<DstT, half> || std::is_same_v<DstT, bfloat16_t>) {
            return static_cast<DstT>(static_cast<float>(v));
        } else {
            return static_cast<DstT>(v);
        }
    }
    static DstT Combine(uint8_t enAtomic, DstT old, DstT v) {
        switch (enAtomic) {
            case 0: return v;
            case 1:
                if constexpr (std::is_integral_v<DstT>) {
                    return static_cast<DstT>(old + v);
                } else {
                    return static_cast<DstT>(static_cast<float>(old) + static_cast<float>(v));
                }
            case 2: return static_cast<float>(v) > static_cast<float>(old) ? v : old;
            case 3: return static_cast<float>(v) < static_cast<float>(old) ? v : old;
            default:
                opgen_sim::matmul::Error("Matmul::GetTensorC", "enAtomic " + std::to_string(enAtomic) +
                                                                   " is not 0 (off), 1 (add), 2 (max) or 3 (min)");
        }
    }

    template <bool sync>
    void TakeBlock(const char* api) {
        if constexpr (!sync) {
            if (async_next_ >= async_.size()) {
                opgen_sim::matmul::Error(api, "GetTensorC<false> asked for block " + std::to_string(async_next_ + 1) +
                                                  " but Iterate<false> computed " + std::to_string(async_.size()));
            }
            Block& b = async_[async_next_++];
            m0_ = b.m0;
            n0_ = b.n0;
            cur_m_ = b.rows;
            cur_n_ = b.cols;
            acc_ = b.acc;
            have_acc_ = true;
        } else if (!have_acc_) {
            opgen_sim::matmul::Error(api, "no block to get: call Iterate first (while (mm.Iterate()) { "
                                          "mm.GetTensorC(...); })");
        }
    }
    // ND_ALIGN writes rows rounded up to 32 bytes (the padding columns zero: the products of B's
    // zero padding), in a C of rows of N rounded up the same way (CANN's GetOrgWidth).
    static uint64_t AlignC(uint64_t v) {
        constexpr uint64_t a = 32 / sizeof(DstT);
        return C_TYPE::format == CubeFormat::ND_ALIGN ? (v + a - 1) / a * a : v;
    }
    void WriteGm(const char* api, const GlobalTensor<DstT>& gm, uint8_t enAtomic, bool sequential) {
        if (!InTriangle()) return;
        const uint64_t cols = AlignC(static_cast<uint64_t>(cur_n_));
        const uint64_t stride = sequential ? cols : (c_ld_ > 0 ? static_cast<uint64_t>(c_ld_)
                                                                : AlignC(static_cast<uint64_t>(OrgCN())));
        const uint64_t base = sequential ? 0
                                         : static_cast<uint64_t>(m0_) * stride + static_cast<uint64_t>(n0_);
        const bool nz = C_TYPE::format == CubeFormat::NZ;
        const bool colMajor = C_TYPE::format == CubeFormat::COLUMN_MAJOR;  // columns of M
        if (C_TYPE::format != CubeFormat::ND && C_TYPE::format != CubeFormat::NZ &&
            C_TYPE::format != CubeFormat::ND_ALIGN && !colMajor) {
            opgen_sim::matmul::Error(api, "C: only the ND, ND_ALIGN, NZ and COLUMN_MAJOR formats are simulated");
        }
        const uint64_t rowsAligned = (static_cast<uint64_t>(sequential ? cur_m_ : org_m_) + 15) / 16 * 16;
        constexpr uint64_t c0 = 32 / sizeof(DstT) < 16 ? 32 / sizeof(DstT) : 16;
        auto at = [&](int32_t i, uint64_t j) {
            const uint64_t r = static_cast<uint64_t>(i) + (sequential ? 0 : static_cast<uint64_t>(m0_));
            const uint64_t col = j + (sequential ? 0 : static_cast<uint64_t>(n0_));
            if (colMajor) return col * static_cast<uint64_t>(sequential ? cur_m_ : org_m_) + r;
            return nz ? opgen_sim::matmul::Index(CubeFormat::NZ, r, col, stride, rowsAligned, c0)
                      : base + static_cast<uint64_t>(i) * stride + j;
        };
        uint64_t span = 0;
        for (int32_t i = 0; i < cur_m_; ++i) {
            for (uint64_t j = 0; j < cols; ++j) {
                const uint64_t p = at(i, j);
                if (p + 1 > span) span = p + 1;
            }
        }
        gm.CheckRange(span, (std::string(api) + " (C)").c_str());
        opgen_sim::FlushGm(gm.ptr_, span * sizeof(DstT));
        DstT* out = gm.ptr_;
        for (int32_t i = 0; i < cur_m_; ++i) {
            for (uint64_t j = 0; j < cols; ++j) {
                const uint64_t p = at(i, j);
                const DstT v = j < static_cast<uint64_t>(cur_n_)
                                   ? Convert(acc_[static_cast<size_t>(i) * cur_n_ + j]) : DstT{};
                if (enAtomic == 0) {
                    out[p] = v;
                } else {
                    // other cores may update the same C (split K): one atomic read-modify-write
                    opgen_sim::AtomicUpdate(out + p, v, [enAtomic](DstT old, DstT nv) {
                        return Combine(enAtomic, old, nv);
                    });
                }
            }
        }
    }
    void WriteLocal(const char* api, const LocalTensor<DstT>& dst, uint8_t enAtomic, bool sequential) {
        if (!InTriangle()) return;
        if constexpr (kPolicy == Impl::Detail::OpgenPolicy::kSplitM) {
            // SplitM: the block's first ceil(rows / 2) rows go to the block's AIV core 0, the rest to
            // core 1, each as a block of its own (reference "MatmulPolicy")
            const int32_t half0 = (cur_m_ + 1) / 2;
            const bool second = AscendC::GetSubBlockIdx() % 2 == 1;
            const int32_t first = second ? half0 : 0, rows = second ? cur_m_ - half0 : half0;
            if (rows <= 0) return;
            std::vector<L0cT> part(acc_.begin() + static_cast<size_t>(first) * cur_n_,
                                   acc_.begin() + static_cast<size_t>(first + rows) * cur_n_);
            std::swap(part, acc_);
            const int32_t m0 = m0_, m = cur_m_;
            m0_ = 0;
            cur_m_ = rows;
            WriteLocalRows(api, dst, enAtomic, true);
            std::swap(part, acc_);
            m0_ = m0;
            cur_m_ = m;
            return;
        }
        WriteLocalRows(api, dst, enAtomic, sequential);
    }
    void WriteLocalRows(const char* api, const LocalTensor<DstT>& dst, uint8_t enAtomic, bool sequential) {
        constexpr uint64_t align = 32 / sizeof(DstT);
        const uint64_t stride = sequential ? (static_cast<uint64_t>(cur_n_) + align - 1) / align * align
                                           : AlignC(static_cast<uint64_t>(single_n_));
        const uint64_t base = sequential ? 0 : static_cast<uint64_t>(m0_) * stride + static_cast<uint64_t>(n0_);
        const uint64_t span = base + static_cast<uint64_t>(cur_m_ - 1) * stride + static_cast<uint64_t>(cur_n_);
        if (C_TYPE::format != CubeFormat::ND && C_TYPE::format != CubeFormat::ND_ALIGN) {
            opgen_sim::matmul::Error(api, "C in local memory: only the ND format is simulated");
        }
        opgen_sim::CheckOperand(dst, static_cast<int64_t>(span), api, "C");
        opgen_sim::FlushUb(&opgen_sim::CurrentCore(), dst.ptr_, span * sizeof(DstT), true);
        DstT* out = dst.ptr_;
        for (int32_t i = 0; i < cur_m_; ++i) {
            for (int32_t j = 0; j < cur_n_; ++j) {
                const uint64_t at = base + static_cast<uint64_t>(i) * stride + static_cast<uint64_t>(j);
                out[at] = Combine(enAtomic, out[at], Convert(acc_[static_cast<size_t>(i) * cur_n_ + j]));
            }
        }
    }

    TCubeTiling tiling_{};
    bool has_tiling_ = false;
    int32_t org_m_ = 0, org_n_ = 0, org_ka_ = 0, org_kb_ = 0, org_kc_ = 0;
    int32_t single_m_ = 0, single_n_ = 0, single_k_ = 0;
    bool bias_on_ = false;
    opgen_sim::matmul::Source<SrcAT> a_{};
    opgen_sim::matmul::Source<SrcBT> b_{};
    opgen_sim::matmul::Source<BiasT> bias_{};
    int32_t iter_ = 0;
    int32_t m0_ = 0, n0_ = 0, cur_m_ = 0, cur_n_ = 0;
    std::vector<L0cT> acc_;
    bool have_acc_ = false;
    std::vector<Block> async_;
    size_t async_next_ = 0;
    uint8_t sub_block_ = 0;
    uint64_t user_info_ = 0, self_data_ = 0;
    std::vector<SrcAT> a_cb_;  // A as CopyA1 loaded it, [singleCoreM, singleCoreK]
    std::vector<SrcBT> b_cb_;  // B as CopyB1 loaded it, [singleCoreK, singleCoreN]
    int64_t a_ld_ = 0, b_ld_ = 0;  // a batch layout's row lengths (0: the org shape's)
    int32_t c_ld_ = 0;
    int32_t batch_a_ = 0, batch_b_ = 0;
    GlobalTensor<DstT> ws_{};
    bool has_ws_ = false;
    uint32_t nbatch_iter_ = 0;
};

template <class A_TYPE, class B_TYPE, class C_TYPE, class BIAS_TYPE = C_TYPE, const auto& MM_CFG = CFG_NORM,
          class MM_CB = MatmulCallBackFunc<nullptr, nullptr, nullptr>,
          template <const auto&, typename...> class MM_POLICY = Impl::Detail::MatmulPolicy>
using Matmul = MatmulImpl<A_TYPE, B_TYPE, C_TYPE, BIAS_TYPE, MM_CFG, MM_CB, MM_POLICY>;

// REGIST_MATMUL_OBJ(pipe, workspace, mm1, &tiling1[, mm2, &tiling2 ...]): each object gets its
// tiling (an object without one, or with a null one, is left to call Init itself).
inline void OpgenRegisterMatmul(TPipe*) {}
template <class M, class T>
inline void OpgenInitMatmul(TPipe* pipe, M& obj, T* tiling) {
    static_assert(std::is_same_v<std::remove_cv_t<T>, TCubeTiling>,
                  "REGIST_MATMUL_OBJ: each Matmul object is followed by a pointer to its TCubeTiling");
    if (tiling != nullptr) {
        obj.Init(tiling, pipe);
    } else {
        obj.OpgenInitStatic(pipe);
    }
}
template <class M>
inline void OpgenInitMatmul(TPipe* pipe, M& obj, std::nullptr_t) {
    obj.OpgenInitStatic(pipe);
}
template <class M, class... Rest>
inline void OpgenRegisterMatmul(TPipe* pipe, M& obj, Rest&&... rest) {
    if constexpr (sizeof...(Rest) > 0) {
        auto args = std::forward_as_tuple(rest...);
        using First = std::decay_t<std::tuple_element_t<0, std::tuple<Rest...>>>;
        if constexpr (std::is_pointer_v<First> || std::is_null_pointer_v<First>) {
            OpgenInitMatmul(pipe, obj, std::get<0>(args));
            std::apply([pipe](auto&&, auto&&... others) { OpgenRegisterMatmul(pipe, others...); }, args);
        } else {
            obj.OpgenInitStatic(pipe);
            std::apply([pipe](auto&&... all) { OpgenRegisterMatmul(pipe, all...); }, args);
        }
    } else {
        obj.OpgenInitStatic(pipe);
    }
}

}  // namespace AscendC

namespace matmul = AscendC;

#define REGIST_MATMUL_OBJ(tpipe, workspace, ...) \
    (void)(workspace);                          \
    ::AscendC::OpgenRegisterMatmul(tpipe, __VA_ARGS__)
#define REGIST_MATMUL_OBJ_STATIC REGIST_MATMUL_OBJ
#define REGIST_CUBE_OBJ REGIST_MATMUL_OBJ
