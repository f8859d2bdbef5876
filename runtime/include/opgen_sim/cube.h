// opgen NPU simulator: the basic cube data path of the Atlas A2/A3 (npu arch 2201): ND -> NZ
// DataCopy into L1, LoadData (2D) from L1 (or GM) into L0A/L0B, Mmad into L0C and Fixpipe from
// L0C to GM or L1 with the A2/A3's quantisation modes, Int8 Channel Merge and F32 Channel Split.
// The memories are cube_mem.h's; the layouts and the rules are described in docs/simulator.md,
// "The cube data path".
#pragma once

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstring>
#include <string>
#include <type_traits>
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

// The first Fixpipe interface (reference "Fixpipe", FixpipeParams<T>): the move in bursts, as
// DataCopy from L0C counts it; Fixpipe maps it onto FixpipeParamsV220 (opgen_sim::cube::V220Of).
struct QuantParams {
    QuantParams() {}
    QuantParams(const QuantMode_t quantPreIn) : quantPre(quantPreIn) {}  // NOLINT: CANN's {mode} spelling
    QuantParams(const QuantMode_t quantPreIn, const uint64_t deqScalarIn)
        : quantPre(quantPreIn), deqScalar(deqScalarIn) {}
    QuantMode_t quantPre = QuantMode_t::NoQuant;
    uint64_t deqScalar = 0;
};

struct Nz2NdParams {
    Nz2NdParams() {}
    Nz2NdParams(const bool nz2ndEnIn, const uint16_t ndNumIn, const uint16_t srcNdStrideIn,
                const uint16_t dstNdStrideIn, const uint16_t originalNSizeIn)
        : nz2ndEn(nz2ndEnIn), ndNum(ndNumIn), srcNdStride(srcNdStrideIn), dstNdStride(dstNdStrideIn),
          originalNSize(originalNSizeIn) {}
    bool nz2ndEn = false;
    uint16_t ndNum = 1;
    uint16_t srcNdStride = 0;
    uint16_t dstNdStride = 0;
    uint16_t originalNSize = 0;
};

template <typename T = int32_t>
struct FixpipeParams {
    FixpipeParams() {}
    FixpipeParams(const uint16_t count, const uint16_t len, const uint16_t srcStrideIn, const uint32_t dstStrideIn)
        : cburstNum(count), burstLen(len), dstStride(dstStrideIn), srcStride(srcStrideIn) {}
    uint16_t cburstNum = 1;  // bursts: blocks of 16 columns
    uint16_t burstLen = 1;   // one burst, in 32 bytes of the (32-bit) source: 16 x m elements
    uint32_t dstStride = 0;  // NZ: the gap after a burst, 32-byte units; NZ2ND: a row's elements
    uint16_t srcStride = 0;  // the gap after a burst in L0C, 16 x 16 fractals
    QuantParams quantParams;
    bool reluEn = false;
    Nz2NdParams nz2ndParams;
    uint8_t unitFlag = 0;
};

// DataCopy from L0C (reference "L0C到GM数据搬运（DataCopy）"): the fixpipe instruction's own
// fields; the quant word, the quant table and the NZ2ND parameters come from its registers
// (SetFixpipePreQuantFlag, SetFixPipeConfig, SetFixpipeNz2ndFlag; cube_more.h).
struct DataCopyCO12DstParams {
    DataCopyCO12DstParams() {}
    DataCopyCO12DstParams(const uint16_t nSizeIn, const uint16_t mSizeIn, const uint32_t dstStrideIn,
                          const uint16_t srcStrideIn, const QuantMode_t quantPreIn, const uint8_t reluPreIn,
                          const bool channelSplitIn, const bool nz2ndEnIn)
        : nSize(nSizeIn), mSize(mSizeIn), dstStride(dstStrideIn), srcStride(srcStrideIn), quantPre(quantPreIn),
          reluPre(reluPreIn), channelSplit(channelSplitIn), nz2ndEn(nz2ndEnIn) {}
    uint8_t sid = 0;
    uint16_t nSize = 0;
    uint16_t mSize = 0;
    uint32_t dstStride = DEFAULT_DATA_COPY_STRIDE;
    uint16_t srcStride = DEFAULT_DATA_COPY_STRIDE;
    uint8_t unitFlag = 0;
    uint8_t clipReluPre = 0;
    uint8_t eltWiseOp = 0;
    QuantMode_t quantPre = QuantMode_t::NoQuant;
    uint8_t reluPre = 0;
    bool channelSplit = false;
    bool nz2ndEn = false;
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

// How many bytes from its start a call may reach through `t`, at byte `off` of cube memory `buf`.
// A cube instruction addresses its memory, not a LocalTensor: on the device it reaches to the
// memory's end, and CANN's own samples move and compute whole fractals past a tensor's size
// (asc-devkit's mmad sample: an int8 C of n rounded up to 32 columns in a tensor of n rounded up
// to 16). So by default the limit is the memory's end; strict mode (OPGEN_SIM_STRICT=1) also
// holds the call to the tensor (docs/simulator.md, "The cube data path").
template <typename T>
inline uint64_t Reachable(const Core* c, const AscendC::LocalTensor<T>& t, int32_t buf, uint64_t off) {
    const uint64_t have = static_cast<uint64_t>(t.size_) * sizeof(T);
    if (buf < 0 || buf >= kNumCubeBufs) return have;
    const uint64_t mem = off < kCubeBufBytes[buf] ? kCubeBufBytes[buf] - off : 0;
    return c->strict_gm && have < mem ? have : mem;
}
template <typename T>
inline uint64_t Reachable(const Core* c, const AscendC::LocalTensor<T>& t) {
    uint64_t off = 0;
    const int32_t buf = Where(c, t, &off);
    return Reachable(c, t, buf, off);
}
// What the limit of Reachable is, for a message: the tensor (strict mode) or its memory's end.
template <typename T>
inline std::string ReachableName(const Core* c, const AscendC::LocalTensor<T>& t) {
    uint64_t off = 0;
    const int32_t buf = Where(c, t, &off);
    const uint64_t have = static_cast<uint64_t>(t.size_) * sizeof(T);
    if (buf < 0 || buf >= kNumCubeBufs || (c->strict_gm && have < kCubeBufBytes[buf] - off)) {
        return std::string("the LocalTensor<") + TypeName<T>() + "> of " + Str(t.size_) + " elements (" + Str(have) +
               " bytes" + (c->strict_gm ? ", strict mode" : "") + ")";
    }
    return "the end of " + std::string(CubeBufName(buf)) + " (" + Str(kCubeBufBytes[buf]) + " bytes; the tensor starts at byte " +
           Str(off) + ")";
}

// Checks that operand `what` of `api` is a live tensor in one of the memories `allowed` (a bit per
// CubeBuf), starting on an `align`-byte boundary there, and that the call's `bytes` from its start
// stay within Reachable; applies the deferred work in it (a plain DataCopy GM->L1 still pending).
// Returns its offset in its memory.
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
    if (bytes > Reachable(c, t, buf, off)) {
        Fail(ErrorKind::LocalMemoryOutOfBounds, api,
             std::string(what) + ": the call reaches " + Str(bytes) + " bytes from byte " + Str(off) + " of " +
                 CubeBufName(buf) + ", past " + ReachableName(c, t));
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
    opgen_sim::cube::Load2D(c, dst, src.ptr_, opgen_sim::cube::Reachable(&c, src), loadDataParams, api, true);
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

}  // namespace AscendC

// ---- Fixpipe: L0C (Nz) -> GM (ND or NZ) or L1 (NZ), with the quantisation modes -------------
namespace opgen_sim {
namespace cube {

// The fields of a QUANT_PRE word (deqScalar, or one uint64_t of the quant tensor), the A2/A3
// table of the reference's "随路量化" page: M1 = bits 31..13 read as a float (the hardware's
// 1-8-10 float: the low 13 mantissa bits are cleared), N = bits 35..32 (b0000 = 1 .. b1111 = 16),
// MCB = bit 36, Offset = bits 45..37 (9 bits, unsigned as the reference's Python models read it),
// Sign = bit 46 (1: int8 results, 0: uint8).
struct QuantWord {
    float m1 = 1.0f;
    uint32_t shift = 1;
    bool mcb = false;
    int32_t offset = 0;
    bool sign = false;
};
inline QuantWord DecodeQuant(uint64_t w) {
    QuantWord q;
    const uint32_t bits = static_cast<uint32_t>(w) & 0xFFFFE000u;
    std::memcpy(&q.m1, &bits, sizeof(bits));
    q.shift = static_cast<uint32_t>((w >> 32) & 0xF) + 1;
    q.mcb = ((w >> 36) & 1) != 0;
    q.offset = static_cast<int32_t>((w >> 37) & 0x1FF);
    q.sign = ((w >> 46) & 1) != 0;
    return q;
}

inline const char* QuantName(QuantMode_t q) {
    switch (q) {
        case QuantMode_t::NoQuant: return "NoQuant";
        case QuantMode_t::F322F16: return "F322F16";
        case QuantMode_t::F322BF16: return "F322BF16";
        case QuantMode_t::DEQF16: return "DEQF16";
        case QuantMode_t::VDEQF16: return "VDEQF16";
        case QuantMode_t::QF322B8_PRE: return "QF322B8_PRE";
        case QuantMode_t::VQF322B8_PRE: return "VQF322B8_PRE";
        case QuantMode_t::REQ8: return "REQ8";
        case QuantMode_t::VREQ8: return "VREQ8";
        default: return "an unknown mode";
    }
}
inline bool IsVectorQuant(QuantMode_t q) {
    return q == QuantMode_t::VDEQF16 || q == QuantMode_t::VQF322B8_PRE || q == QuantMode_t::VREQ8;
}

template <typename T>
constexpr bool kIsB8 = std::is_same_v<T, int8_t> || std::is_same_v<T, uint8_t>;

// The one mode that moves U (L0C) to T on the A2/A3, scalar form; its tensor form is its V twin
// (reference "Fixpipe", quantPre and the data type tables; CANN's CheckFixpipeL0C2GMParam).
template <typename T, typename U>
constexpr QuantMode_t kScalarMode =
    std::is_same_v<T, U>                                          ? QuantMode_t::NoQuant
    : std::is_same_v<U, float> && std::is_same_v<T, half>         ? QuantMode_t::F322F16
    : std::is_same_v<U, float> && std::is_same_v<T, bfloat16_t>   ? QuantMode_t::F322BF16
    : std::is_same_v<U, float> && kIsB8<T>                        ? QuantMode_t::QF322B8_PRE
    : std::is_same_v<U, int32_t> && std::is_same_v<T, half>       ? QuantMode_t::DEQF16
                                                                  : QuantMode_t::REQ8;
template <typename T, typename U>
constexpr QuantMode_t VectorTwin() {
    constexpr QuantMode_t s = kScalarMode<T, U>;
    return s == QuantMode_t::QF322B8_PRE ? QuantMode_t::VQF322B8_PRE
           : s == QuantMode_t::DEQF16    ? QuantMode_t::VDEQF16
           : s == QuantMode_t::REQ8      ? QuantMode_t::VREQ8
                                         : s;
}

// One L0C value through the fixpipe: ReLU and the conversion of `mode` (docs/simulator.md, "The
// cube data path"). NoQuant/F322F16/F322BF16: max(x, 0) with reluEn, then the cast (round to
// nearest even). The quantising modes: x (int32_t: converted to float, first shifted right by N
// and saturated to int16 when MCB is set) times M1 when x >= 0, else times M2 (M1, or 0 with
// reluEn); DEQF16 then saturates to half (+-65504, NaN -> 0) and rounds to nearest even; the B8
// modes saturate to [-256, 255], round to nearest even, add Offset and saturate to [-128, 127]
// (Sign 1) or [0, 255] (Sign 0).
template <typename T, typename U>
inline T FixConvert(U v, const QuantWord& q, bool relu) {
    if constexpr (std::is_same_v<T, U> ||
                  (!kIsB8<T> && !(std::is_same_v<U, int32_t> && std::is_same_v<T, half>))) {
        if (relu && v < U(0)) v = U(0);
        return static_cast<T>(v);
    } else {
        float x;
        if constexpr (std::is_same_v<U, float>) {
            x = v;
        } else {
            int32_t i = v;
            if (q.mcb) i = std::clamp<int32_t>(i >> q.shift, -32768, 32767);
            x = static_cast<float>(i);
        }
        float y = x * (x >= 0.0f ? q.m1 : (relu ? 0.0f : q.m1));
        if (std::isnan(y)) y = 0.0f;
        if constexpr (std::is_same_v<T, half>) {
            return static_cast<T>(std::clamp(y, -65504.0f, 65504.0f));
        } else {
            const int32_t r = static_cast<int32_t>(std::nearbyint(std::clamp(y, -256.0f, 255.0f))) + q.offset;
            const int32_t s = q.sign ? std::clamp(r, -128, 127) : std::clamp(r, 0, 255);
            return static_cast<T>(static_cast<uint8_t>(s));
        }
    }
}

// The Fixpipe's move: checks the parameters and its source, and returns, through `put`, runs of
// converted values with the element offset from dst's start where each goes. Row j of mSize,
// columns col.. of nSize (a run: 16 columns, 8 with isChannelSplit) of NZ matrix n (of ndNum) are
// read from L0C element srcNdStride * 256 * n + j * 16 + (col / 16) * srcStride * 16 + col % 16
// and go to (T's elements):
//   ND:   dstNdStride * n + j * dstStride + col
//   NZ:   (col / 16) * dstStride * 32 / sizeof(T) + j * 16                (dstStride: 32-byte units)
//   NZ, int8_t/uint8_t (Int8 Channel Merge): blocks 2p and 2p + 1 of 16 columns make one 16 x 32
//         fractal: p * dstStride * 32 + j * 32 + (col / 16 % 2) * 16; with an odd number of
//         blocks the last stays 16 x 16: p * dstStride * 32 + j * 16
//   NZ, isChannelSplit (float): (col / 8) * dstStride * 8 + j * 8
// `quant` holds nSize words for the tensor modes. Returns the elements of dst the call reaches.
template <typename T, typename U, typename Put>
inline void FixpipeMove(Core& c, const AscendC::LocalTensor<U>& src, const AscendC::FixpipeParamsV220& p, bool nd,
                        bool to_l1, const AscendC::LocalTensor<uint64_t>* quant, const char* api,
                        uint64_t* reach, Put put, bool quant_in_fb = false) {
    static_assert((std::is_same_v<U, float> &&
                   (std::is_same_v<T, float> || std::is_same_v<T, half> || std::is_same_v<T, bfloat16_t> ||
                    kIsB8<T>)) ||
                      (std::is_same_v<U, int32_t> &&
                       (std::is_same_v<T, int32_t> || std::is_same_v<T, half> || kIsB8<T>)),
                  "Fixpipe: the A2/A3 moves float L0C data to float/half/bfloat16_t/int8_t/uint8_t and int32_t "
                  "L0C data to int32_t/half/int8_t/uint8_t (reference \"Fixpipe\", data types)");
    const QuantMode_t q = p.quantPre;
    constexpr QuantMode_t scalar = kScalarMode<T, U>;
    constexpr QuantMode_t vec = VectorTwin<T, U>();
    const std::string types = std::string(" with a LocalTensor<") + TypeName<U>() + "> source and a " +
                              (to_l1 ? "LocalTensor<" : "GlobalTensor<") + TypeName<T>() + "> destination";
    if (to_l1 && std::is_same_v<T, U>) {
        Fail(ErrorKind::Generic, api,
             std::string("Fixpipe into L1") + types +
                 ": the A2/A3 does not move float or int32_t results into L1 unconverted; quantise them "
                 "(F322F16, F322BF16, QF322B8_PRE, DEQF16, REQ8 or their tensor forms)");
    }
    if (quant != nullptr) {
        if (q != vec || vec == scalar) {
            Fail(ErrorKind::Generic, api,
                 std::string("quantPre ") + QuantName(q) + types +
                     ": the form with a quant tensor (cbufWorkspace) runs the tensor quantisation " +
                     (vec == scalar ? std::string("modes only (VDEQF16, VQF322B8_PRE, VREQ8), none of which moves "
                                                  "these types")
                                    : std::string("mode ") + QuantName(vec) + " for these types"));
        }
    } else if (q != scalar) {
        Fail(ErrorKind::Generic, api,
             std::string("quantPre ") + QuantName(q) + types + ": the A2/A3 moves these types with " +
                 QuantName(scalar) +
                 (vec != scalar ? std::string(", or ") + QuantName(vec) + " with a quant tensor (cbufWorkspace)"
                                : std::string()));
    }
    const bool split = p.isChannelSplit;
    if (split && (to_l1 || nd || !std::is_same_v<T, float> || !std::is_same_v<U, float>)) {
        Fail(ErrorKind::Generic, api,
             "isChannelSplit: the A2/A3 splits channels only from float to float NZ in GM (reference "
             "\"F32 Channel Split\")");
    }
    Range(api, "nSize", p.nSize, 0, 4095);
    if (nd) Range(api, "mSize", p.mSize, 0, 8192);
    if (nd) Range(api, "srcNdStride", p.srcNdStride, 0, 512);
    const uint64_t nd_num = nd ? p.ndNum : 1;
    *reach = 0;
    if (p.nSize == 0 || p.mSize == 0 || nd_num == 0) return;  // a NOP, as documented
    const uint64_t unit = split ? 8 : 16;
    if (!nd && p.nSize % unit != 0) {
        Fail(ErrorKind::Generic, api,
             "nSize = " + Str(p.nSize) + " is not a multiple of " + Str(unit) + " (required for NZ output" +
                 (split ? std::string(" with isChannelSplit)") : std::string(")")));
    }
    if (p.dstStride == 0) Fail(ErrorKind::Generic, api, "dstStride is 0; it must not be (the reference)");
    if (nd && p.dstStride < p.nSize) {
        Fail(ErrorKind::Generic, api,
             "dstStride = " + Str(p.dstStride) + " elements is less than the row of nSize = " + Str(p.nSize) +
                 ": ND rows would overlap");
    }
    const uint64_t blocks = (p.nSize + 15) / 16;
    const uint64_t src_elems = (nd_num - 1) * p.srcNdStride * 256 + (blocks - 1) * p.srcStride * 16 +
                               static_cast<uint64_t>(p.mSize - 1) * 16 + 16;
    const uint64_t src_off = Operand(&c, src, Bit(kCubeL0C), 64, src_elems * sizeof(U), api, "src",
                                     "Fixpipe reads L0C (TPosition CO1)");
    std::vector<QuantWord> qv;
    QuantWord qs;
    if (quant != nullptr) {  // read whole before anything is written (the hardware's copy to FB)
        if (quant_in_fb) {
            Operand(&c, *quant, Bit(kCubeFb), 128, uint64_t{p.nSize} * sizeof(uint64_t), api,
                    "the quant table (SetFixPipeConfig)",
                    "the tensor quantisation parameters are read from the fixpipe buffer (TPosition C2PIPE2GM)");
        } else {
            Operand(&c, *quant, Bit(kCubeL1), kBlockBytes, uint64_t{p.nSize} * sizeof(uint64_t), api,
                    "the quant tensor (cbufWorkspace)",
                    "the tensor quantisation parameters are read from L1 (TPosition C1)");
        }
        qv.resize(p.nSize);
        for (uint64_t i = 0; i < p.nSize; ++i) qv[i] = DecodeQuant(quant->ptr_[i]);
    } else {
        qs = DecodeQuant(p.deqScalar);
    }
    UnitFlagEnter(c, p.unitFlag, src_off, src_elems * sizeof(U), false, api);
    const uint64_t nblk = blocks;
    auto place = [&](uint64_t n, uint64_t j, uint64_t col) -> uint64_t {
        if (nd) return n * p.dstNdStride + j * p.dstStride + col;
        if (split) return (col / 8) * p.dstStride * 8 + j * 8;
        const uint64_t k = col / 16;
        if constexpr (kIsB8<T>) {
            if (nblk % 2 == 1 && k == nblk - 1) return (k / 2) * p.dstStride * 32 + j * 16;
            return (k / 2) * p.dstStride * 32 + j * 32 + (k % 2) * 16;
        } else {
            return k * p.dstStride * (32 / sizeof(T)) + j * 16;
        }
    };
    for (uint64_t col = 0; col < p.nSize; col += unit) {
        const uint64_t len = p.nSize - col < unit ? p.nSize - col : unit;
        *reach = std::max(*reach, place(nd_num - 1, p.mSize - 1, col) + len);
    }
    put(static_cast<const T*>(nullptr), *reach, uint64_t{0});  // the extent check, before any write
    T run[16];
    for (uint64_t n = 0; n < nd_num; ++n) {
        const U* s0 = src.ptr_ + n * p.srcNdStride * 256;
        for (uint64_t j = 0; j < p.mSize; ++j) {
            for (uint64_t col = 0; col < p.nSize; col += unit) {
                const uint64_t len = p.nSize - col < unit ? p.nSize - col : unit;
                const U* s = s0 + j * 16 + (col / 16) * p.srcStride * 16 + col % 16;
                for (uint64_t e = 0; e < len; ++e) {
                    run[e] = FixConvert<T, U>(s[e], quant != nullptr ? qv[col + e] : qs, p.reluEn);
                }
                put(run, place(n, j, col), len);
            }
        }
    }
}

template <typename T, typename U>
inline void FixpipeToGm(const AscendC::GlobalTensor<T>& dst, const AscendC::LocalTensor<U>& src,
                        const AscendC::FixpipeParamsV220& p, bool nd, const AscendC::LocalTensor<uint64_t>* quant,
                        const char* api, bool quant_in_fb = false) {
    Core& c = CurrentCore();
    CubeOf(c);
    uint64_t reach = 0;
    FixpipeMove<T, U>(c, src, p, nd, false, quant, api, &reach, [&](const T* v, uint64_t at, uint64_t n) {
        if (v == nullptr) {
            dst.CheckRange(c, at, api);
        } else {
            GmStore(c, dst.ptr_ + at, v, n, api);
        }
    }, quant_in_fb);
    const uint64_t nd_num = nd ? p.ndNum : 1;
    c.counters[kUbToGmBytes] += static_cast<int64_t>(nd_num * p.mSize * p.nSize * sizeof(T));
}

template <typename T, typename U>
inline void FixpipeToL1(const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<U>& src,
                        const AscendC::FixpipeParamsV220& p, bool nd, const AscendC::LocalTensor<uint64_t>* quant,
                        const char* api, bool quant_in_fb = false) {
    Core& c = CurrentCore();
    CubeOf(c);
    if (nd) {
        Fail(ErrorKind::Generic, api,
             "CFG_ROW_MAJOR (NZ2ND) into L1: the A2/A3 writes L1 in NZ only; pass CFG_NZ (reference \"Fixpipe\", "
             "L0C -> L1)");
    }
    uint64_t reach = 0;
    FixpipeMove<T, U>(c, src, p, false, true, quant, api, &reach, [&](const T* v, uint64_t at, uint64_t n) {
        if (v == nullptr) {
            if (at != 0) {
                Operand(&c, dst, Bit(kCubeL1), kBlockBytes, at * sizeof(T), api, "dst",
                        "Fixpipe from L0C writes L1 (TPosition A1, B1 or C1) or GM on the A2/A3");
            }
        } else {
            std::memcpy(static_cast<void*>(dst.ptr_ + at), v, n * sizeof(T));
        }
    }, quant_in_fb);
}

// FixpipeParams<T> (bursts) as FixpipeParamsV220, as CANN's dav_c220 implementation converts it
// (FixpipeInfoParams): m = burstLen * 32 / 4 / 16 rows; n = cburstNum * 16 columns, or
// originalNSize with NZ2ND; srcStride (a gap of fractals) becomes a stride in rows of 16,
// srcStride * 16 + m rounded up to 16; the NZ dstStride (a gap) becomes a stride in 32-byte units,
// dstStride + burstLen * sizeof(T) / 4; the NZ2ND dstStride (a row's elements) stays.
template <typename T, typename S>
inline AscendC::FixpipeParamsV220 V220Of(const AscendC::FixpipeParams<S>& q, const char* api) {
    AscendC::FixpipeParamsV220 p;
    const uint32_t rows = q.burstLen * kBlockBytes / sizeof(S) / 16;
    p.mSize = static_cast<uint16_t>(rows);
    p.srcStride = static_cast<uint16_t>(q.srcStride * 16u + (rows + 15) / 16 * 16);
    if (q.nz2ndParams.nz2ndEn) {
        if (q.nz2ndParams.originalNSize == 0) {
            Fail(ErrorKind::Generic, api,
                 "nz2ndParams.originalNSize = 0 with nz2ndEn: NZ2ND writes originalNSize columns of each row; "
                 "set it (reference \"Fixpipe\", Nz2NdParams)");
        }
        p.nSize = q.nz2ndParams.originalNSize;
        p.dstStride = q.dstStride;
    } else {
        p.nSize = static_cast<uint16_t>(q.cburstNum * 16u);
        p.dstStride = q.dstStride + static_cast<uint32_t>(q.burstLen * sizeof(T) / sizeof(S));
    }
    p.quantPre = q.quantParams.quantPre;
    p.deqScalar = q.quantParams.deqScalar;
    p.reluEn = q.reluEn;
    p.ndNum = q.nz2ndParams.ndNum;
    p.srcNdStride = q.nz2ndParams.srcNdStride;
    p.dstNdStride = q.nz2ndParams.dstNdStride;
    p.unitFlag = q.unitFlag;
    return p;
}

template <typename T, typename U, typename S>
inline void FixpipeBursts(const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<U>& src,
                          const AscendC::FixpipeParams<S>& q, const AscendC::LocalTensor<uint64_t>* quant,
                          const char* api) {
    if (q.nz2ndParams.nz2ndEn) {
        Fail(ErrorKind::Generic, api,
             "nz2ndParams.nz2ndEn into L1: the A2/A3 writes L1 in NZ only; leave nz2ndEn false (reference "
             "\"Fixpipe\", L0C -> L1)");
    }
    FixpipeToL1<T, U>(dst, src, V220Of<T>(q, api), false, quant, api);
}

}  // namespace cube
}  // namespace opgen_sim

namespace AscendC {

// Fixpipe from L0C (reference "Fixpipe", L0C -> GM and L0C -> L1, FixpipeParamsV220): the move
// and the conversions are opgen_sim::cube::FixpipeMove's and FixConvert's above.
template <typename T, typename U, const FixpipeConfig& config = CFG_ROW_MAJOR>
inline void Fixpipe(const GlobalTensor<T>& dst, const LocalTensor<U>& src, const FixpipeParamsV220& p) {
    static_assert(config.format != CO2Layout::COLUMN_MAJOR,
                  "Fixpipe: CFG_COLUMN_MAJOR (NZ2DN) is the Ascend 950's; the A2/A3 writes ND or NZ");
    opgen_sim::cube::FixpipeToGm<T, U>(dst, src, p, config.format == CO2Layout::ROW_MAJOR, nullptr,
                                       "Fixpipe(L0C->GM, FixpipeParamsV220)");
}
template <typename T, typename U, const FixpipeConfig& config = CFG_ROW_MAJOR, typename S = uint64_t>
inline void Fixpipe(const GlobalTensor<T>& dst, const LocalTensor<U>& src, const LocalTensor<S>& cbufWorkspace,
                    const FixpipeParamsV220& p) {
    static_assert(std::is_same_v<S, uint64_t>, "Fixpipe: the quant tensor (cbufWorkspace) is a LocalTensor<uint64_t>");
    static_assert(config.format != CO2Layout::COLUMN_MAJOR,
                  "Fixpipe: CFG_COLUMN_MAJOR (NZ2DN) is the Ascend 950's; the A2/A3 writes ND or NZ");
    opgen_sim::cube::FixpipeToGm<T, U>(dst, src, p, config.format == CO2Layout::ROW_MAJOR, &cbufWorkspace,
                                       "Fixpipe(L0C->GM, cbufWorkspace, FixpipeParamsV220)");
}
template <typename T, typename U, const FixpipeConfig& config = CFG_ROW_MAJOR>
inline void Fixpipe(const LocalTensor<T>& dst, const LocalTensor<U>& src, const FixpipeParamsV220& p) {
    static_assert(config.format != CO2Layout::COLUMN_MAJOR,
                  "Fixpipe: CFG_COLUMN_MAJOR (NZ2DN) is the Ascend 950's; the A2/A3 writes L1 in NZ");
    opgen_sim::cube::FixpipeToL1<T, U>(dst, src, p, config.format == CO2Layout::ROW_MAJOR, nullptr,
                                       "Fixpipe(L0C->L1, FixpipeParamsV220)");
}
template <typename T, typename U, const FixpipeConfig& config = CFG_ROW_MAJOR, typename S = uint64_t>
inline void Fixpipe(const LocalTensor<T>& dst, const LocalTensor<U>& src, const LocalTensor<S>& cbufWorkspace,
                    const FixpipeParamsV220& p) {
    static_assert(std::is_same_v<S, uint64_t>, "Fixpipe: the quant tensor (cbufWorkspace) is a LocalTensor<uint64_t>");
    static_assert(config.format != CO2Layout::COLUMN_MAJOR,
                  "Fixpipe: CFG_COLUMN_MAJOR (NZ2DN) is the Ascend 950's; the A2/A3 writes L1 in NZ");
    opgen_sim::cube::FixpipeToL1<T, U>(dst, src, p, config.format == CO2Layout::ROW_MAJOR, &cbufWorkspace,
                                       "Fixpipe(L0C->L1, cbufWorkspace, FixpipeParamsV220)");
}

// The first interface, FixpipeParams<S> with S the L0C type (reference "Fixpipe"): NZ2ND by
// nz2ndParams.nz2ndEn rather than by the template's config.
template <typename T, typename U, typename S = U>
inline void Fixpipe(const GlobalTensor<T>& dst, const LocalTensor<U>& src, const FixpipeParams<S>& q) {
    static_assert(std::is_same_v<S, U>, "Fixpipe: FixpipeParams<T> takes the L0C (source) type");
    constexpr const char* api = "Fixpipe(L0C->GM, FixpipeParams)";
    opgen_sim::cube::FixpipeToGm<T, U>(dst, src, opgen_sim::cube::V220Of<T>(q, api), q.nz2ndParams.nz2ndEn,
                                       nullptr, api);
}
template <typename T, typename U, typename S, typename V = U>
inline void Fixpipe(const GlobalTensor<T>& dst, const LocalTensor<U>& src, const LocalTensor<S>& cbufWorkspace,
                    const FixpipeParams<V>& q) {
    static_assert(std::is_same_v<V, U>, "Fixpipe: FixpipeParams<T> takes the L0C (source) type");
    static_assert(std::is_same_v<S, uint64_t>, "Fixpipe: the quant tensor (cbufWorkspace) is a LocalTensor<uint64_t>");
    constexpr const char* api = "Fixpipe(L0C->GM, cbufWorkspace, FixpipeParams)";
    opgen_sim::cube::FixpipeToGm<T, U>(dst, src, opgen_sim::cube::V220Of<T>(q, api), q.nz2ndParams.nz2ndEn,
                                       &cbufWorkspace, api);
}
template <typename T, typename U, typename S = U>
inline void Fixpipe(const LocalTensor<T>& dst, const LocalTensor<U>& src, const FixpipeParams<S>& q) {
    static_assert(std::is_same_v<S, U>, "Fixpipe: FixpipeParams<T> takes the L0C (source) type");
    opgen_sim::cube::FixpipeBursts<T, U>(dst, src, q, nullptr, "Fixpipe(L0C->L1, FixpipeParams)");
}
template <typename T, typename U, typename S, typename V = U>
inline void Fixpipe(const LocalTensor<T>& dst, const LocalTensor<U>& src, const LocalTensor<S>& cbufWorkspace,
                    const FixpipeParams<V>& q) {
    static_assert(std::is_same_v<V, U>, "Fixpipe: FixpipeParams<T> takes the L0C (source) type");
    static_assert(std::is_same_v<S, uint64_t>, "Fixpipe: the quant tensor (cbufWorkspace) is a LocalTensor<uint64_t>");
    opgen_sim::cube::FixpipeBursts<T, U>(dst, src, q, &cbufWorkspace, "Fixpipe(L0C->L1, cbufWorkspace, FixpipeParams)");
}

}  // namespace AscendC

#include "cube_more.h"
