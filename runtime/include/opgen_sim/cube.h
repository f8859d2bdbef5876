// opgen NPU simulator: the basic cube data path of the Atlas A2/A3 (npu arch 2201): ND -> NZ
// DataCopy into L1, LoadData (2D) from L1 (or GM) into L0A/L0B, Mmad into L0C and Fixpipe from
// L0C to GM. The memories are cube_mem.h's; the layouts and the rules are described in
// docs/simulator.md, "The cube data path".
#pragma once

#include <cassert>  // CANN's kernel_operator.h gives kernels assert()
#include <vector>

#include "data_copy.h"
#include "tensor.h"

// The fixpipe's quantisation modes: a global enum, as the compiler declares it for Ascend C.
enum QuantMode_t : uint8_t {
    NoQuant = 0,
    F322F16,
    F322BF16,
    DEQF16,
    VDEQF16,
    QF322B8_PRE,
    VQF322B8_PRE,
    REQ8,
    VREQ8,
};

namespace AscendC {

constexpr uint32_t CUBE_FRACTAL_BYTES = 512;  // one L0A/L0B fractal

struct LoadData2DParams {
    LoadData2DParams() {}
    LoadData2DParams(const uint16_t startIndexIn, const uint8_t repeatTimesIn, const uint16_t srcStrideIn,
                     const uint8_t sidIn, const uint16_t dstGapIn, const bool ifTransposeIn,
                     const uint8_t addrModeIn)
        : startIndex(startIndexIn), dstGap(dstGapIn), srcStride(srcStrideIn), ifTranspose(ifTransposeIn),
          repeatTimes(repeatTimesIn), sid(sidIn), addrMode(addrModeIn) {}
    uint16_t startIndex = 0;
    uint16_t dstGap = 0;
    uint16_t srcStride = 0;
    bool ifTranspose = false;
    uint8_t repeatTimes = 0;
    uint8_t sid = 0;
    uint8_t addrMode = 0;
};
using LoadData2dParams = LoadData2DParams;

// The Ascend 950's form (m/k start positions and steps): declared so that a program holding both
// architectures' branches compiles; a call to it stops the build (see LoadData below).
struct LoadData2DParamsV2 {
    LoadData2DParamsV2() {}
    LoadData2DParamsV2(const uint32_t mStartPositionIn, const uint32_t kStartPositionIn, const uint16_t mStepIn,
                       const uint16_t kStepIn, const int32_t srcStrideIn, const uint16_t dstStrideIn,
                       const bool ifTransposeIn, const uint8_t sidIn)
        : mStartPosition(mStartPositionIn), kStartPosition(kStartPositionIn), mStep(mStepIn), kStep(kStepIn),
          srcStride(srcStrideIn), dstStride(dstStrideIn), ifTranspose(ifTransposeIn), sid(sidIn) {}
    uint32_t mStartPosition = 0;
    uint32_t kStartPosition = 0;
    uint16_t mStep = 0;
    uint16_t kStep = 0;
    int32_t srcStride = 0;
    uint16_t dstStride = 0;
    bool ifTranspose = false;
    uint8_t sid = 0;
};

struct MmadParams {
    MmadParams() {}
    MmadParams(const uint16_t mIn, const uint16_t nIn, const uint16_t kIn, const bool isBiasIn,
               const int32_t fmOffsetIn, const bool enSsparseIn, const bool enWinogradAIn, const bool enWinogradBIn)
        : m(mIn), n(nIn), k(kIn), isBias(isBiasIn), fmOffset(fmOffsetIn), enSsparse(enSsparseIn),
          enWinogradA(enWinogradAIn), enWinogradB(enWinogradBIn) {}
    MmadParams(const uint16_t mIn, const uint16_t nIn, const uint16_t kIn, const uint8_t unitFlagIn,
               const bool cmatrixSourceIn, const bool cmatrixInitValIn)
        : m(mIn), n(nIn), k(kIn), unitFlag(unitFlagIn), cmatrixSource(cmatrixSourceIn),
          cmatrixInitVal(cmatrixInitValIn) {}
    uint16_t m = 0;
    uint16_t n = 0;
    uint16_t k = 0;
    bool isBias = false;  // deprecated: true accumulates onto L0C (C += A * B)
    int32_t fmOffset = 0;
    bool enSsparse = false;
    bool enWinogradA = false;
    bool enWinogradB = false;
    uint8_t unitFlag = 0;
    bool kDirectionAlign = false;
    bool cmatrixSource = false;  // true: C starts from the bias table (C2)
    bool cmatrixInitVal = true;  // true: C starts from 0
};

enum class CO2Layout : uint8_t { NZ = 0, ROW_MAJOR, COLUMN_MAJOR };

struct FixpipeConfig {
    CO2Layout format;
    constexpr FixpipeConfig(CO2Layout f) : format(f) {}  // NOLINT: CANN's aggregate-like spelling
    constexpr FixpipeConfig(CO2Layout f, bool) : format(f) {}
};
constexpr FixpipeConfig CFG_NZ = {CO2Layout::NZ};
constexpr FixpipeConfig CFG_ROW_MAJOR = {CO2Layout::ROW_MAJOR};

struct FixpipeParamsV220 {
    FixpipeParamsV220() {}
    FixpipeParamsV220(const uint16_t nSizeIn, const uint16_t mSizeIn, const uint16_t srcStrideIn,
                      const uint32_t dstStrideIn, const bool reluEnIn)
        : nSize(nSizeIn), mSize(mSizeIn), srcStride(srcStrideIn), dstStride(dstStrideIn), reluEn(reluEnIn) {}
    FixpipeParamsV220(const uint16_t nSizeIn, const uint16_t mSizeIn, const uint16_t srcStrideIn,
                      const uint32_t dstStrideIn, const bool reluEnIn, const QuantMode_t quantPreIn,
                      const int64_t deqScalarIn, const uint16_t ndNumIn, const uint16_t srcNdStrideIn,
                      const uint16_t dstNdStrideIn, const uint8_t unitFlagIn, const bool isChannelSplitIn = false)
        : nSize(nSizeIn), mSize(mSizeIn), srcStride(srcStrideIn), dstStride(dstStrideIn), quantPre(quantPreIn),
          deqScalar(static_cast<uint64_t>(deqScalarIn)), ndNum(ndNumIn), srcNdStride(srcNdStrideIn),
          dstNdStride(dstNdStrideIn), reluEn(reluEnIn), unitFlag(unitFlagIn), isChannelSplit(isChannelSplitIn) {}
    uint16_t nSize = 0;
    uint16_t mSize = 0;
    uint16_t srcStride = 0;
    uint32_t dstStride = 0;
    QuantMode_t quantPre = QuantMode_t::NoQuant;
    uint64_t deqScalar = 0;
    uint16_t ndNum = 1;
    uint16_t srcNdStride = 0;
    uint16_t dstNdStride = 0;
    bool reluEn = false;
    uint8_t unitFlag = 0;
    bool isChannelSplit = false;
};

}  // namespace AscendC

namespace opgen_sim {
namespace cube {

// The memory a tensor lies in: a CubeBuf, or -1 for the Unified Buffer (or anything else).
template <typename T>
inline int32_t Where(const Core* c, const AscendC::LocalTensor<T>& t, uint64_t* offset) {
    return CubeBufAt(c, t.ptr_, offset);
}

inline const char* PosName(AscendC::TPosition p) {
    using P = AscendC::TPosition;
    switch (p) {
        case P::GM: return "GM";
        case P::A1: return "A1";
        case P::A2: return "A2";
        case P::B1: return "B1";
        case P::B2: return "B2";
        case P::C1: return "C1";
        case P::C2: return "C2";
        case P::CO1: return "CO1";
        case P::CO2: return "CO2";
        case P::VECIN: return "VECIN";
        case P::VECOUT: return "VECOUT";
        case P::VECCALC: return "VECCALC";
        default: return "another position";
    }
}

// Checks that operand `what` of `api` is a live tensor in one of the memories `allowed` (a bit per
// CubeBuf), starting on an `align`-byte boundary there, and holding `bytes` bytes; applies the
// deferred work in it (a plain DataCopy GM->L1 still pending). Returns its offset in its memory.
template <typename T>
inline uint64_t Operand(Core* c, const AscendC::LocalTensor<T>& t, uint32_t allowed, uint64_t align, uint64_t bytes,
                        const char* api, const char* what, const char* rule) {
    t.Check(api, c);
    uint64_t off = 0;
    const int32_t buf = Where(c, t, &off);
    if (buf < 0 || (allowed & (1u << buf)) == 0) {
        Fail(ErrorKind::Generic, api,
             std::string(what) + " is a LocalTensor<" + TypeName<T>() + "> in " + CubeBufName(buf) +
                 " (TPosition::" + PosName(t.pos_) + "); " + rule);
    }
    if (off % align != 0) {
        Fail(ErrorKind::Alignment, api,
             std::string(what) + " starts at byte " + Str(off) + " of " + CubeBufName(buf) + ", which is not " +
                 Str(align) + "-byte aligned (offset % " + Str(align) + " = " + Str(off % align) + ")");
    }
    const uint64_t have = static_cast<uint64_t>(t.size_) * sizeof(T);
    if (bytes > have || off + bytes > kCubeBufBytes[buf]) {
        Fail(ErrorKind::LocalMemoryOutOfBounds, api,
             std::string(what) + ": the call reaches " + Str(bytes) + " bytes from byte " + Str(off) + " of " +
                 CubeBufName(buf) + ", past the LocalTensor<" + TypeName<T>() + "> of " + Str(t.size_) +
                 " elements (" + Str(have) + " bytes)" +
                 (off + bytes > kCubeBufBytes[buf] ? std::string(" and past the end of ") + CubeBufName(buf) + " (" +
                                                         Str(kCubeBufBytes[buf]) + " bytes)"
                                                   : std::string()));
    }
    return off;
}

[[noreturn]] inline void FailRange(const char* api, const char* field, uint64_t v, uint64_t lo, uint64_t hi) {
    Fail(ErrorKind::Generic, api,
         std::string(field) + " = " + Str(v) + " is outside its range [" + Str(lo) + ", " + Str(hi) + "]");
}
inline void Range(const char* api, const char* field, uint64_t v, uint64_t lo, uint64_t hi) {
    if (v < lo || v > hi) FailRange(api, field, v, lo, hi);
}

constexpr uint32_t Bit(int32_t b) { return 1u << b; }

// ND -> NZ (Nd2NzParams, reference "DataCopy" GM -> L1 with ND2NZ): for each of ndNum matrices,
// row r of nValue, block j of ceil(dValue / C0) (C0 = 32 bytes of T): the block's elements go to
// L1 element dstNzMatrixStride * nd + (dstNzC0Stride * j + dstNzNStride * r) * C0, taken from the
// source's element srcNdMatrixStride * nd + srcDValue * r + C0 * j; a last block that dValue does
// not fill is padded with zeros to 32 bytes (documented). Rows past nValue are left as they were.
template <typename T>
inline void Nd2Nz(const AscendC::LocalTensor<T>& dst, const T* src, const AscendC::Nd2NzParams& p, const char* api,
                  const AscendC::GlobalTensor<T>* gm) {
    Core& c = CurrentCore();
    CubeOf(c);
    Range(api, "ndNum", p.ndNum, 0, 4095);
    Range(api, "nValue", p.nValue, 0, 16384);
    if (p.ndNum == 0 || p.nValue == 0 || p.dValue == 0) {  // a NOP, as documented
        return;
    }
    Range(api, "srcDValue", p.srcDValue, 1, 65535);
    Range(api, "dstNzC0Stride", p.dstNzC0Stride, 1, 16384);
    Range(api, "dstNzNStride", p.dstNzNStride, 1, 16384);
    Range(api, "dstNzMatrixStride", p.dstNzMatrixStride, 0, 16384);
    if (p.dValue > p.srcDValue) {
        Fail(ErrorKind::Generic, api,
             "dValue = " + Str(p.dValue) + " is more than the source's row of srcDValue = " + Str(p.srcDValue) +
                 " elements");
    }
    constexpr uint64_t c0 = kBlockBytes / sizeof(T);
    const uint64_t blocks = (p.dValue + c0 - 1) / c0;
    const uint64_t last_dst = static_cast<uint64_t>(p.ndNum - 1) * p.dstNzMatrixStride +
                              ((blocks - 1) * p.dstNzC0Stride + static_cast<uint64_t>(p.nValue - 1) * p.dstNzNStride) * c0 +
                              c0;
    Operand(&c, dst, Bit(kCubeL1), kBlockBytes, last_dst * sizeof(T), api, "dst",
            "an ND -> NZ DataCopy writes L1 (TPosition A1, B1 or C1)");
    const uint64_t last_src = static_cast<uint64_t>(p.ndNum - 1) * p.srcNdMatrixStride +
                              static_cast<uint64_t>(p.nValue - 1) * p.srcDValue + p.dValue;
    if (gm != nullptr) gm->CheckRange(c, last_src, api);
    T* d = dst.ptr_;
    for (uint64_t nd = 0; nd < p.ndNum; ++nd) {
        for (uint64_t r = 0; r < p.nValue; ++r) {
            const T* row = src + nd * p.srcNdMatrixStride + r * p.srcDValue;
            for (uint64_t j = 0; j < blocks; ++j) {
                T* blk = d + nd * p.dstNzMatrixStride + (j * p.dstNzC0Stride + r * p.dstNzNStride) * c0;
                const uint64_t n = p.dValue - j * c0 < c0 ? p.dValue - j * c0 : c0;
                std::memcpy(static_cast<void*>(blk), row + j * c0, n * sizeof(T));
                if (n < c0) std::memset(static_cast<void*>(blk + n), 0, (c0 - n) * sizeof(T));
            }
        }
    }
    c.counters[kGmToUbBytes] += static_cast<int64_t>(uint64_t{p.ndNum} * p.nValue * p.dValue * sizeof(T));
}

// LoadData (2D): repeatTimes fractals of 512 bytes; repeat i reads fractal startIndex + srcStride * i
// of src (minus, with addrMode 1) and writes dst's fractal i * (dstGap + 1). With ifTranspose
// (b16 only, from L1) each 16 x 16 fractal is transposed (the reference's load2d.py).
template <typename T>
inline void Load2D(Core& c, const AscendC::LocalTensor<T>& dst, const T* src, uint64_t src_bytes,
                   const AscendC::LoadData2DParams& p, const char* api, bool from_l1) {
    if (p.repeatTimes == 0) return;  // a NOP, as documented
    if (p.ifTranspose && sizeof(T) != 2) {
        Fail(ErrorKind::Generic, api,
             std::string("ifTranspose with LocalTensor<") + TypeName<T>() +
                 ">: the 2D load transposes b16 fractals only (half, bfloat16_t, int16_t, uint16_t)");
    }
    if (p.ifTranspose && !from_l1) {
        Fail(ErrorKind::Generic, api, "ifTranspose needs an L1 source: GM -> L0A/L0B loads do not transpose");
    }
    if (p.addrMode > 1) FailRange(api, "addrMode", p.addrMode, 0, 1);
    const uint64_t reps = p.repeatTimes;
    // the fractals the call reads, relative to src, and writes, relative to dst
    const int64_t first = p.startIndex;
    const int64_t lastIdx = p.addrMode == 0 ? first + static_cast<int64_t>(p.srcStride) * static_cast<int64_t>(reps - 1)
                                            : first - static_cast<int64_t>(p.srcStride) * static_cast<int64_t>(reps - 1);
    if (lastIdx < 0) {
        Fail(ErrorKind::LocalMemoryOutOfBounds, api,
             "addrMode 1 walks back from startIndex " + Str(p.startIndex) + " by srcStride " + Str(p.srcStride) +
                 " for " + Str(reps) + " repeats, before the source's first fractal");
    }
    const uint64_t far = static_cast<uint64_t>(lastIdx > first ? lastIdx : first) + 1;
    if (far * 512 > src_bytes) {
        Fail(ErrorKind::LocalMemoryOutOfBounds, api,
             "src: fractal " + Str(far - 1) + " (startIndex " + Str(p.startIndex) + ", srcStride " + Str(p.srcStride) +
                 ", repeatTimes " + Str(reps) + ") ends at byte " + Str(far * 512) + ", past the source's " +
                 Str(src_bytes) + " bytes");
    }
    const uint64_t dst_bytes = ((reps - 1) * (static_cast<uint64_t>(p.dstGap) + 1) + 1) * 512;
    Operand(&c, dst, Bit(kCubeL0A) | Bit(kCubeL0B) | (from_l1 ? 0u : Bit(kCubeL1)), from_l1 ? 512 : kBlockBytes,
            dst_bytes, api, "dst",
            from_l1 ? "LoadData from L1 writes L0A (TPosition A2) or L0B (TPosition B2)"
                    : "LoadData from GM writes L1 (A1/B1), L0A (A2) or L0B (B2)");
    uint64_t doff = 0;
    const int32_t dbuf = Where(&c, dst, &doff);
    if (dbuf != kCubeL1 && doff % 512 != 0) {
        Fail(ErrorKind::Alignment, api, "dst starts at byte " + Str(doff) + " of " + CubeBufName(dbuf) +
                                            ", which is not 512-byte aligned");
    }
    const auto* s = reinterpret_cast<const uint8_t*>(src);
    auto* d = reinterpret_cast<uint8_t*>(dst.ptr_);
    for (uint64_t i = 0; i < reps; ++i) {
        const int64_t idx = p.addrMode == 0 ? first + static_cast<int64_t>(p.srcStride * i)
                                            : first - static_cast<int64_t>(p.srcStride * i);
        const uint8_t* f = s + static_cast<uint64_t>(idx) * 512;
        uint8_t* g = d + i * (static_cast<uint64_t>(p.dstGap) + 1) * 512;
        if (!p.ifTranspose) {
            std::memmove(g, f, 512);
        } else {
            uint16_t tmp[256];
            std::memcpy(tmp, f, 512);
            auto* o = reinterpret_cast<uint16_t*>(g);
            for (int r = 0; r < 16; ++r) {
                for (int q = 0; q < 16; ++q) o[r * 16 + q] = tmp[q * 16 + r];
            }
        }
    }
}

// The accumulator type of Mmad for inputs U (reference "Mmad", A2/A3 data types).
template <typename U>
struct MmadAcc {
    using type = void;
};
template <>
struct MmadAcc<half> {
    using type = float;
};
template <>
struct MmadAcc<bfloat16_t> {
    using type = float;
};
template <>
struct MmadAcc<float> {
    using type = float;
};
template <>
struct MmadAcc<int8_t> {
    using type = int32_t;
};

// Mmad's computation, with C starting from the bias table's `bias` (BT) when it is not null
// (cube_more.h).
template <typename T, typename U, typename S>
void MmadRun(const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<U>& fm,
             const AscendC::LocalTensor<S>& filter, const AscendC::MmadParams& p, const T* bias, const char* api);
// The unit flags of the L0C blocks a Mmad writes or a Fixpipe reads (cube_more.h).
inline void UnitFlagEnter(Core& c, uint8_t unit_flag, uint64_t off, uint64_t bytes, bool is_write, const char* api);

}  // namespace cube
}  // namespace opgen_sim

namespace AscendC {

// ---- GM -> L1 ------------------------------------------------------------------------------
template <typename T>
inline void DataCopy(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const Nd2NzParams& intriParams) {
    opgen_sim::cube::Nd2Nz(dst, src.ptr_, intriParams, "DataCopy(GM->L1, Nd2NzParams)", &src);
    opgen_sim::NoteGmCopy("DataCopy(GM->L1, Nd2NzParams)", src.ptr_,
                          static_cast<uint64_t>(intriParams.dValue) * sizeof(T), intriParams.nValue,
                          static_cast<uint64_t>(intriParams.srcDValue) * sizeof(T), false);
}
// UB -> L1 with ND -> NZ (the same move from a UB source).
template <typename T>
inline void DataCopy(const LocalTensor<T>& dst, const LocalTensor<T>& src, const Nd2NzParams& intriParams) {
    constexpr const char* api = "DataCopy(UB->L1, Nd2NzParams)";
    opgen_sim::Core& c = opgen_sim::CurrentCore();
    opgen_sim::CheckUbAlignedOn(&c, src, api, "source");
    if (opgen_sim::CubeBufAt(&c, src.ptr_, nullptr) >= 0) {
        opgen_sim::Fail(opgen_sim::ErrorKind::Generic, api, "src must be a Unified Buffer tensor (VECIN/VECOUT/VECCALC)");
    }
    if (intriParams.ndNum != 0 && intriParams.nValue != 0 && intriParams.dValue != 0) {
        const uint64_t last = static_cast<uint64_t>(intriParams.ndNum - 1) * intriParams.srcNdMatrixStride +
                              static_cast<uint64_t>(intriParams.nValue - 1) * intriParams.srcDValue + intriParams.dValue;
        opgen_sim::CheckUbExtent(src, last * sizeof(T), api, "source");
    }
    opgen_sim::cube::Nd2Nz<T>(dst, src.ptr_, intriParams, api, nullptr);
}

// ---- LoadData (2D): L1 -> L0A/L0B, GM -> L1/L0A/L0B -----------------------------------------
template <typename T>
inline void LoadData(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LoadData2DParams& loadDataParams) {
    constexpr const char* api = "LoadData(L1->L0, LoadData2DParams)";
    opgen_sim::Core& c = opgen_sim::CurrentCore();
    opgen_sim::CubeOf(c);
    if (loadDataParams.repeatTimes == 0) return;
    opgen_sim::cube::Operand(&c, src, opgen_sim::cube::Bit(opgen_sim::kCubeL1), opgen_sim::kBlockBytes, 0, api, "src",
                             "LoadData reads L1 (TPosition A1 or B1) or GM");
    opgen_sim::cube::Load2D(c, dst, src.ptr_, static_cast<uint64_t>(src.size_) * sizeof(T), loadDataParams, api, true);
}
template <typename T>
inline void LoadData(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const LoadData2DParams& loadDataParams) {
    constexpr const char* api = "LoadData(GM->L0, LoadData2DParams)";
    opgen_sim::Core& c = opgen_sim::CurrentCore();
    opgen_sim::CubeOf(c);
    if (loadDataParams.repeatTimes == 0) return;
    const uint64_t reps = loadDataParams.repeatTimes;
    const uint64_t far = (loadDataParams.addrMode == 0
                              ? loadDataParams.startIndex + static_cast<uint64_t>(loadDataParams.srcStride) * (reps - 1)
                              : loadDataParams.startIndex) + 1;
    src.CheckRange(c, far * 512 / sizeof(T), api);
    opgen_sim::cube::Load2D(c, dst, src.ptr_, far * 512, loadDataParams, api, false);
}
template <typename T>
inline void LoadData(const LocalTensor<T>&, const LocalTensor<T>&, const LoadData2DParamsV2&) {
    static_assert(sizeof(T) == 0,
                  "LoadData with LoadData2DParamsV2 is the Ascend 950 (npu arch 3510) form; the simulator runs "
                  "npu arch 2201 (Atlas A2/A3): use LoadData2DParams");
}

// ---- Mmad: C (L0C, Nz) = A (L0A, Zz) x B (L0B, Zn) [+ C or bias] --------------------------
// The computation is opgen_sim::cube::MmadRun (below the Fixpipe); the bias forms are in
// cube_more.h.
template <typename T, typename U, typename S>
inline void Mmad(const LocalTensor<T>& dst, const LocalTensor<U>& fm, const LocalTensor<S>& filter,
                 const MmadParams& p) {
    opgen_sim::cube::MmadRun<T, U, S>(dst, fm, filter, p, nullptr, "Mmad");
}

// ---- Fixpipe: L0C (Nz) -> GM, ND (CFG_ROW_MAJOR, default) or NZ (CFG_NZ) ---------------------
// Row j of mSize, block k of ceil(nSize / 16) of NZ matrix nd (of ndNum): 16 L0C elements at
// element srcNdStride * 256 * nd + j * 16 + k * srcStride * 16 go, converted by quantPre
// (NoQuant; F322F16/F322BF16: float rounded to nearest even) and with reluEn max(x, 0) first, to
// GM element dstNdStride * nd + j * dstStride + 16 * k (ND; the last block only up to nSize), or
// j * 16 + k * dstStride * 32 bytes (NZ). The reference's NZ2ND/NZ2NZ pseudo-code.
template <typename T, typename U, const FixpipeConfig& config = CFG_ROW_MAJOR>
inline void Fixpipe(const GlobalTensor<T>& dst, const LocalTensor<U>& src, const FixpipeParamsV220& p) {
    constexpr const char* api = "Fixpipe(L0C->GM, FixpipeParamsV220)";
    constexpr bool nd = config.format == CO2Layout::ROW_MAJOR;
    static_assert(config.format != CO2Layout::COLUMN_MAJOR,
                  "Fixpipe: CFG_COLUMN_MAJOR (NZ2DN) is the Ascend 950's; the A2/A3 writes ND or NZ");
    static_assert((std::is_same_v<U, float> &&
                   (std::is_same_v<T, float> || std::is_same_v<T, half> || std::is_same_v<T, bfloat16_t>)) ||
                      (std::is_same_v<U, int32_t> && std::is_same_v<T, int32_t>),
                  "Fixpipe(dst, src, FixpipeParamsV220): the simulator moves float L0C data to float/half/"
                  "bfloat16_t GM and int32_t to int32_t (the quantising modes are not simulated)");
    opgen_sim::Core& c = opgen_sim::CurrentCore();
    opgen_sim::CubeOf(c);
    const QuantMode_t q = p.quantPre;
    const bool ok = (std::is_same_v<T, U> && q == QuantMode_t::NoQuant) ||
                    (std::is_same_v<T, half> && q == QuantMode_t::F322F16) ||
                    (std::is_same_v<T, bfloat16_t> && q == QuantMode_t::F322BF16);
    if (!ok) {
        opgen_sim::Fail(opgen_sim::ErrorKind::Generic, api,
                        std::string("quantPre ") + std::to_string(static_cast<int>(q)) + " with a LocalTensor<" +
                            opgen_sim::TypeName<U>() + "> source and a GlobalTensor<" + opgen_sim::TypeName<T>() +
                            ">: the simulator runs NoQuant (float->float, int32_t->int32_t), F322F16 (float->half) "
                            "and F322BF16 (float->bfloat16_t)");
    }
    if (p.isChannelSplit) {
        opgen_sim::Fail(opgen_sim::ErrorKind::Generic, api, "isChannelSplit is not simulated");
    }
    opgen_sim::cube::Range(api, "nSize", p.nSize, 0, 4095);
    if (nd) opgen_sim::cube::Range(api, "mSize", p.mSize, 0, 8192);
    if (nd) opgen_sim::cube::Range(api, "srcNdStride", p.srcNdStride, 0, 512);
    const uint64_t nd_num = nd ? p.ndNum : 1;
    if (p.nSize == 0 || p.mSize == 0 || nd_num == 0) return;  // a NOP, as documented
    if (!nd && p.nSize % 16 != 0) {
        opgen_sim::Fail(opgen_sim::ErrorKind::Generic, api,
                        "nSize = " + opgen_sim::Str(p.nSize) + " is not a multiple of 16 (required for NZ output)");
    }
    if (p.dstStride == 0) {
        opgen_sim::Fail(opgen_sim::ErrorKind::Generic, api, "dstStride is 0; it must not be (the reference)");
    }
    if (nd && p.dstStride < p.nSize) {
        opgen_sim::Fail(opgen_sim::ErrorKind::Generic, api,
                        "dstStride = " + opgen_sim::Str(p.dstStride) + " elements is less than the row of nSize = " +
                            opgen_sim::Str(p.nSize) + ": ND rows would overlap");
    }
    const uint64_t blocks = (p.nSize + 15) / 16;
    const uint64_t src_elems = (nd_num - 1) * p.srcNdStride * 256 + (blocks - 1) * p.srcStride * 16 +
                               static_cast<uint64_t>(p.mSize - 1) * 16 + 16;
    const uint64_t src_off =
        opgen_sim::cube::Operand(&c, src, opgen_sim::cube::Bit(opgen_sim::kCubeL0C), 64, src_elems * sizeof(U), api,
                                 "src", "Fixpipe reads L0C (TPosition CO1)");
    opgen_sim::cube::UnitFlagEnter(c, p.unitFlag, src_off, src_elems * sizeof(U), false, api);
    constexpr uint64_t dst_c0 = 32 / sizeof(T);
    const uint64_t dst_elems = nd ? (nd_num - 1) * p.dstNdStride + static_cast<uint64_t>(p.mSize - 1) * p.dstStride + p.nSize
                                  : (blocks - 1) * p.dstStride * dst_c0 + static_cast<uint64_t>(p.mSize - 1) * 16 + 16;
    dst.CheckRange(c, dst_elems, api);
    T row[16];
    for (uint64_t n = 0; n < nd_num; ++n) {
        const U* s0 = src.ptr_ + n * p.srcNdStride * 256;
        T* d0 = dst.ptr_ + n * p.dstNdStride;
        for (uint64_t j = 0; j < p.mSize; ++j) {
            for (uint64_t k = 0; k < blocks; ++k) {
                const U* s = s0 + j * 16 + k * p.srcStride * 16;
                const uint64_t len = nd && p.nSize - k * 16 < 16 ? p.nSize - k * 16 : 16;
                for (uint64_t e = 0; e < len; ++e) {
                    U v = s[e];
                    if (p.reluEn && v < U(0)) v = U(0);
                    row[e] = static_cast<T>(v);
                }
                T* d = nd ? d0 + j * p.dstStride + 16 * k : d0 + j * 16 + k * p.dstStride * dst_c0;
                opgen_sim::GmStore(c, d, row, len, api);
            }
        }
    }
    c.counters[opgen_sim::kUbToGmBytes] += static_cast<int64_t>(nd_num * p.mSize * p.nSize * sizeof(T));
}
template <typename T, typename U, const FixpipeConfig& config = CFG_ROW_MAJOR>
inline void Fixpipe(const GlobalTensor<T>& dst, const LocalTensor<U>& src, const LocalTensor<uint64_t>&,
                    const FixpipeParamsV220&) {
    static_assert(sizeof(T) == 0, "Fixpipe with a cbufWorkspace (tensor quantisation) is not simulated");
}

}  // namespace AscendC

#include "cube_more.h"
