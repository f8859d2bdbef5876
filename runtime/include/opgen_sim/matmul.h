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
// as Fixpipe converts (float -> half/bfloat16_t rounded to nearest even). docs/simulator.md,
// "The advanced Matmul API", lists the forms covered and what is an error.
#pragma once

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

namespace AscendC {

using ::CubeFormat;

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

// Callbacks a Matmul may take instead of its own data moves (reference "MatmulCallBackFunc"):
// accepted as a template argument; a callback other than nullptr is not simulated (an error when
// the object runs).
template <auto DataCopyOut = nullptr, auto CopyA1 = nullptr, auto CopyB1 = nullptr>
struct MatmulCallBackFunc {
    static constexpr bool kNone = DataCopyOut == nullptr && CopyA1 == nullptr && CopyB1 == nullptr;
};

}  // namespace AscendC

namespace opgen_sim {
namespace matmul {

// The accumulator type of the cube for inputs U (as MmadAcc in cube.h, int8_t -> int32_t).
template <typename U>
using Acc = std::conditional_t<std::is_same_v<U, int8_t>, int32_t, float>;

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
          class MM_CB = MatmulCallBackFunc<nullptr, nullptr, nullptr>>
class MatmulImpl {
    using SrcAT = typename A_TYPE::T;
    using SrcBT = typename B_TYPE::T;
    using DstT = typename C_TYPE::T;
    using BiasT = typename BIAS_TYPE::T;
    using L0cT = opgen_sim::matmul::Acc<SrcAT>;
    static constexpr uint64_t kC0 = 32 / sizeof(SrcAT);  // one fractal row of K

    static_assert(std::is_same_v<SrcAT, SrcBT> ||
                      (std::is_same_v<SrcAT, half> && std::is_same_v<SrcBT, int8_t>),
                  "Matmul<A, B, C>: A and B must have the same data type (half, bfloat16_t, float or int8_t) "
                  "on the simulated A2/A3");
    static_assert(std::is_same_v<SrcAT, half> || std::is_same_v<SrcAT, bfloat16_t> ||
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
        a_ = {};
        a_.kind = opgen_sim::matmul::Source<SrcAT>::kGm;
        a_.gm = gm;
        a_.ptr = gm.ptr_;
        a_.trans = isTransposeA;
        Reset();
    }
    void SetTensorA(const LocalTensor<SrcAT>& local, bool isTransposeA = false) {
        a_ = {};
        a_.kind = opgen_sim::matmul::Source<SrcAT>::kLocal;
        a_.local = local;
        a_.ptr = local.ptr_;
        a_.trans = isTransposeA;
        Reset();
    }
    void SetTensorA(SrcAT aScalar) {
        a_ = {};
        a_.kind = opgen_sim::matmul::Source<SrcAT>::kScalar;
        a_.scalar = aScalar;
        Reset();
    }
    void SetTensorB(const GlobalTensor<SrcBT>& gm, bool isTransposeB = false) {
        b_ = {};
        b_.kind = opgen_sim::matmul::Source<SrcBT>::kGm;
        b_.gm = gm;
        b_.ptr = gm.ptr_;
        b_.trans = isTransposeB;
        Reset();
    }
    void SetTensorB(const LocalTensor<SrcBT>& local, bool isTransposeB = false) {
        b_ = {};
        b_.kind = opgen_sim::matmul::Source<SrcBT>::kLocal;
        b_.local = local;
        b_.ptr = local.ptr_;
        b_.trans = isTransposeB;
        Reset();
    }
    void SetTensorB(SrcBT bScalar) {
        b_ = {};
        b_.kind = opgen_sim::matmul::Source<SrcBT>::kScalar;
        b_.scalar = bScalar;
        Reset();
    }
    void SetBias(const GlobalTensor<BiasT>& biasGlobal) {
        bias_ = {};
        bias_.kind = opgen_sim::matmul::Source<BiasT>::kGm;
        bias_.gm = biasGlobal;
        bias_.ptr = biasGlobal.ptr_;
        bias_on_ = true;
        Reset();
    }
    void SetBias(const LocalTensor<BiasT>& inputBias) {
        bias_ = {};
        bias_.kind = opgen_sim::matmul::Source<BiasT>::kLocal;
        bias_.local = inputBias;
        bias_.ptr = inputBias.ptr_;
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
    template <class T>
    void SetWorkspace(GlobalTensor<T>&) {}
    template <class T>
    void SetWorkspace(__gm__ const T*, int) {}
    void SetLocalWorkspace(const LocalTensor<uint8_t>&) {}
    void SetSubBlockIdx(uint8_t subBlockIdx) { sub_block_ = subBlockIdx; }
    uint8_t GetSubBlockIdx() { return sub_block_; }
    void SetUserDefInfo(const uint64_t) {}
    template <class T>
    void SetSelfDefineData(T) {}
    void SetQuantScalar(const uint64_t) { Unsupported("SetQuantScalar", "quantised output"); }
    void SetQuantVector(const GlobalTensor<uint64_t>&) { Unsupported("SetQuantVector", "quantised output"); }

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
    int32_t OrgCN() const { return org_kc_ > 0 ? org_kc_ : org_n_; }
    IterateOrder Order() const {
        if constexpr (MM_CFG.iterateOrder != IterateOrder::UNDEF) {
            return MM_CFG.iterateOrder;
        } else {
            return tiling_.iterateOrder == 1 ? IterateOrder::ORDER_N : IterateOrder::ORDER_M;
        }
    }

    // Checks that the object can run and the operands hold what it reads.
    void Prepare(const char* api) {
        if constexpr (!MM_CB::kNone) {
            Unsupported("Iterate", "a Matmul with MatmulCallBackFunc callbacks");
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
        }
    }
    template <typename T>
    void CheckSource(const char* api, const opgen_sim::matmul::Source<T>& s, CubeFormat format, uint64_t rows,
                     uint64_t cols, uint64_t orgRows, uint64_t stride, const char* what) {
        if (s.kind == opgen_sim::matmul::Source<T>::kScalar || s.kind == opgen_sim::matmul::Source<T>::kNone) return;
        if (format != CubeFormat::ND && format != CubeFormat::NZ && format != CubeFormat::ND_ALIGN &&
            format != CubeFormat::VECTOR) {
            opgen_sim::matmul::Error(api, std::string(what) + ": only the ND and NZ formats are simulated");
        }
        uint64_t span = 0;
        if (format == CubeFormat::NZ) {
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
        if (a_.trans) {
            CheckSource(api, a_, A_TYPE::format, k, m, static_cast<uint64_t>(org_ka_), static_cast<uint64_t>(org_m_),
                        "A");
        } else {
            CheckSource(api, a_, A_TYPE::format, m, k, static_cast<uint64_t>(org_m_), static_cast<uint64_t>(org_ka_),
                        "A");
        }
        if (b_.trans) {
            CheckSource(api, b_, B_TYPE::format, n, k, static_cast<uint64_t>(org_n_), static_cast<uint64_t>(org_kb_),
                        "B");
        } else {
            CheckSource(api, b_, B_TYPE::format, k, n, static_cast<uint64_t>(org_kb_), static_cast<uint64_t>(org_n_),
                        "B");
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
        constexpr uint64_t c0 = 32 / sizeof(T);
        return s.ptr[opgen_sim::matmul::Index(format, r, c, stride, (orgRows + 15) / 16 * 16, c0)];
    }
    SrcAT A(uint64_t i, uint64_t k) const {
        return a_.trans ? Read(a_, A_TYPE::format, k, i, static_cast<uint64_t>(org_m_), static_cast<uint64_t>(org_ka_))
                        : Read(a_, A_TYPE::format, i, k, static_cast<uint64_t>(org_ka_), static_cast<uint64_t>(org_m_));
    }
    SrcBT B(uint64_t k, uint64_t j) const {
        return b_.trans ? Read(b_, B_TYPE::format, j, k, static_cast<uint64_t>(org_kb_), static_cast<uint64_t>(org_n_))
                        : Read(b_, B_TYPE::format, k, j, static_cast<uint64_t>(org_n_), static_cast<uint64_t>(org_kb_));
    }

    // The current block into acc_ (added to it with `accumulate`), as Mmad computes: per element,
    // the K products of each fractal row summed, each sum added to C in order.
    void Compute(const char* api, bool accumulate) {
        (void)api;
        const uint64_t k = static_cast<uint64_t>(single_k_);
        const size_t cells = static_cast<size_t>(cur_m_) * static_cast<size_t>(cur_n_);
        if (!accumulate) acc_.assign(cells, L0cT{});
        std::vector<L0cT> arow(k), bcol(k);
        for (int32_t i = 0; i < cur_m_; ++i) {
            for (uint64_t kk = 0; kk < k; ++kk) arow[kk] = Widen(A(static_cast<uint64_t>(m0_ + i), kk));
            for (int32_t j = 0; j < cur_n_; ++j) {
                for (uint64_t kk = 0; kk < k; ++kk) bcol[kk] = Widen(B(kk, static_cast<uint64_t>(n0_ + j)));
                L0cT& cell = acc_[static_cast<size_t>(i) * cur_n_ + j];
                L0cT sum = accumulate ? cell : bias_on_ ? BiasAt(static_cast<uint64_t>(n0_ + j)) : L0cT{};
                for (uint64_t kb = 0; kb < k; kb += kC0) {
                    const uint64_t end = kb + kC0 < k ? kb + kC0 : k;
                    L0cT s{};
                    for (uint64_t q = kb; q < end; ++q) s += arow[q] * bcol[q];
                    sum += s;
                }
                cell = sum;
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
    void WriteGm(const char* api, const GlobalTensor<DstT>& gm, uint8_t enAtomic, bool sequential) {
        const uint64_t stride = sequential ? static_cast<uint64_t>(cur_n_) : static_cast<uint64_t>(OrgCN());
        const uint64_t base = sequential ? 0
                                         : static_cast<uint64_t>(m0_) * stride + static_cast<uint64_t>(n0_);
        const bool nz = C_TYPE::format == CubeFormat::NZ;
        if (C_TYPE::format != CubeFormat::ND && C_TYPE::format != CubeFormat::NZ &&
            C_TYPE::format != CubeFormat::ND_ALIGN) {
            opgen_sim::matmul::Error(api, "C: only the ND, ND_ALIGN and NZ formats are simulated");
        }
        const uint64_t rowsAligned = (static_cast<uint64_t>(sequential ? cur_m_ : org_m_) + 15) / 16 * 16;
        constexpr uint64_t c0 = 32 / sizeof(DstT) < 16 ? 32 / sizeof(DstT) : 16;
        uint64_t span = 0;
        for (int32_t i = 0; i < cur_m_; ++i) {
            for (int32_t j = 0; j < cur_n_; ++j) {
                const uint64_t r = static_cast<uint64_t>(i) + (sequential ? 0 : static_cast<uint64_t>(m0_));
                const uint64_t col = static_cast<uint64_t>(j) + (sequential ? 0 : static_cast<uint64_t>(n0_));
                const uint64_t at = nz ? opgen_sim::matmul::Index(CubeFormat::NZ, r, col, stride, rowsAligned, c0)
                                       : base + static_cast<uint64_t>(i) * stride + static_cast<uint64_t>(j);
                if (at + 1 > span) span = at + 1;
            }
        }
        gm.CheckRange(span, (std::string(api) + " (C)").c_str());
        opgen_sim::FlushGm(gm.ptr_, span * sizeof(DstT));
        DstT* out = gm.ptr_;
        for (int32_t i = 0; i < cur_m_; ++i) {
            for (int32_t j = 0; j < cur_n_; ++j) {
                const uint64_t r = static_cast<uint64_t>(i) + (sequential ? 0 : static_cast<uint64_t>(m0_));
                const uint64_t col = static_cast<uint64_t>(j) + (sequential ? 0 : static_cast<uint64_t>(n0_));
                const uint64_t at = nz ? opgen_sim::matmul::Index(CubeFormat::NZ, r, col, stride, rowsAligned, c0)
                                       : base + static_cast<uint64_t>(i) * stride + static_cast<uint64_t>(j);
                out[at] = Combine(enAtomic, out[at], Convert(acc_[static_cast<size_t>(i) * cur_n_ + j]));
            }
        }
    }
    void WriteLocal(const char* api, const LocalTensor<DstT>& dst, uint8_t enAtomic, bool sequential) {
        constexpr uint64_t align = 32 / sizeof(DstT);
        const uint64_t stride = sequential ? (static_cast<uint64_t>(cur_n_) + align - 1) / align * align
                                           : static_cast<uint64_t>(single_n_);
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
};

template <class A_TYPE, class B_TYPE, class C_TYPE, class BIAS_TYPE = C_TYPE, const auto& MM_CFG = CFG_NORM,
          class MM_CB = MatmulCallBackFunc<nullptr, nullptr, nullptr>>
using Matmul = MatmulImpl<A_TYPE, B_TYPE, C_TYPE, BIAS_TYPE, MM_CFG, MM_CB>;

// REGIST_MATMUL_OBJ(pipe, workspace, mm1, &tiling1[, mm2, &tiling2 ...]): each object gets its
// tiling (an object without one, or with a null one, is left to call Init itself).
inline void OpgenRegisterMatmul(TPipe*) {}
template <class M, class T>
inline void OpgenInitMatmul(TPipe* pipe, M& obj, T* tiling) {
    static_assert(std::is_same_v<std::remove_cv_t<T>, TCubeTiling>,
                  "REGIST_MATMUL_OBJ: each Matmul object is followed by a pointer to its TCubeTiling");
    if (tiling != nullptr) obj.Init(tiling, pipe);
}
template <class M>
inline void OpgenInitMatmul(TPipe*, M&, std::nullptr_t) {}
template <class M, class... Rest>
inline void OpgenRegisterMatmul(TPipe* pipe, M& obj, Rest&&... rest) {
    if constexpr (sizeof...(Rest) > 0) {
        auto args = std::forward_as_tuple(rest...);
        using First = std::decay_t<std::tuple_element_t<0, std::tuple<Rest...>>>;
        if constexpr (std::is_pointer_v<First> || std::is_null_pointer_v<First>) {
            OpgenInitMatmul(pipe, obj, std::get<0>(args));
            std::apply([pipe](auto&&, auto&&... others) { OpgenRegisterMatmul(pipe, others...); }, args);
        } else {
            std::apply([pipe](auto&&... all) { OpgenRegisterMatmul(pipe, all...); }, args);
        }
    }
}

}  // namespace AscendC

namespace matmul = AscendC;

#define REGIST_MATMUL_OBJ(tpipe, workspace, ...) \
    (void)(workspace);                          \
    ::AscendC::OpgenRegisterMatmul(tpipe, __VA_ARGS__)
#define REGIST_MATMUL_OBJ_STATIC REGIST_MATMUL_OBJ
#define REGIST_CUBE_OBJ REGIST_MATMUL_OBJ
