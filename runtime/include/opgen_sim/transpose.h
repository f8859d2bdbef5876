// opgen NPU simulator: Transpose (the 16x16 two-byte form and the extended form with
// TransposeParamsExt: TRANSPOSE_ND2ND_B16, TRANSPOSE_NCHW2NHWC, TRANSPOSE_NHWC2NCHW) and
// TransDataTo5HD for 16-bit data.
//
// Ascend C reference, "Transpose": the plain form transposes one 16x16 matrix of 2-byte elements;
// the extended form also converts [N,C,H,W] <-> [N,H,W,C] (cSize <= 4095, hSize * wSize <= 4095
// and a multiple of 32 bytes), with a sharedTmpBuffer of (cSize + 2) * 16 * (32 / sizeof(T)) *
// sizeof(T) bytes for NCHW2NHWC and (2 * cSize + 1) * ... for NHWC2NCHW (h0 = 32 for 8-bit data).
// TRANSPOSE_TYPE_NONE does nothing, as documented; the other types are documented as unsupported.
//
// TransDataTo5HD (reference, "TransDataTo5HD"), 16-bit data: a repeat reads 16 blocks of 16
// elements (srcList[i] + the repeat's offset) and writes 16 blocks: element j of dst block i is
// element i of src block j. Repeat r's offset is r * repStride blocks, and with repeatTimes 1 it
// is repStride blocks (documented). 32-bit data: element k of the 16 src blocks (8 elements each)
// fills dst blocks 2k (from src blocks 0-7) and 2k + 1 (src blocks 8-15). The 8-bit layout
// (dstHighHalf/srcHighHalf) is not simulated.
#pragma once

#include "vector_masked.h"

namespace AscendC {

enum class TransposeType : uint8_t {
    TRANSPOSE_TYPE_NONE,
    TRANSPOSE_NZ2ND_0213,
    TRANSPOSE_NZ2NZ_0213,
    TRANSPOSE_NZ2NZ_012_WITH_N,
    TRANSPOSE_NZ2ND_012_WITH_N,
    TRANSPOSE_NZ2ND_012_WITHOUT_N,
    TRANSPOSE_NZ2NZ_012_WITHOUT_N,
    TRANSPOSE_ND2ND_ONLY,
    TRANSPOSE_ND_UB_GM,
    TRANSPOSE_GRAD_ND_UB_GM,
    TRANSPOSE_ND2ND_B16,
    TRANSPOSE_NCHW2NHWC,
    TRANSPOSE_NHWC2NCHW,
    TRANSPOSE_ND2ND_021,         // the advanced Transpose's scenes 13 to 16: Ascend 950 only
    TRANSPOSE_ND2ND_102,
    TRANSPOSE_ND2ND_210,
    TRANSPOSE_ND2NZ_WITH_INTLV,
};

struct TransposeParamsExt {
    constexpr TransposeParamsExt() = default;
    constexpr TransposeParamsExt(const uint16_t nSizeIn, const uint16_t cSizeIn, const uint16_t hSizeIn,
                                 const uint16_t wSizeIn, const TransposeType transposeTypeIn)
        : nSize(nSizeIn), cSize(cSizeIn), hSize(hSizeIn), wSize(wSizeIn), transposeType(transposeTypeIn) {}
    uint16_t nSize = 0;
    uint16_t cSize = 0;
    uint16_t hSize = 0;
    uint16_t wSize = 0;
    TransposeType transposeType = TransposeType::TRANSPOSE_ND2ND_B16;
};

struct TransDataTo5HDParams {
    constexpr TransDataTo5HDParams() = default;
    constexpr TransDataTo5HDParams(const bool dstHighHalfIn, const bool srcHighHalfIn, const uint8_t repeatTimesIn,
                                   const uint16_t dstRepStrideIn, const uint16_t srcRepStrideIn)
        : dstHighHalf(dstHighHalfIn), srcHighHalf(srcHighHalfIn), repeatTimes(repeatTimesIn),
          dstRepStride(dstRepStrideIn), srcRepStride(srcRepStrideIn) {}
    bool dstHighHalf = false;
    bool srcHighHalf = false;
    uint8_t repeatTimes = 1;
    uint16_t dstRepStride = 0;
    uint16_t srcRepStride = 0;
};

constexpr int32_t NCHW_CONV_ADDR_LIST_SIZE = 16;

}  // namespace AscendC

namespace opgen_sim {

template <typename T>
inline void CheckHolds(const char* api, const AscendC::LocalTensor<T>& t, uint64_t n, const char* what,
                       const std::string& why) {
    if (n > t.size_) {
        Fail(ErrorKind::LocalMemoryOutOfBounds, api,
             std::string(what) + ": " + why + " needs " + Str(n) + " elements but the LocalTensor<" + TypeName<T>() +
                 "> has " + Str(t.size_));
    }
}

template <typename T>
inline void Transpose16(const char* api, const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& src) {
    static_assert(sizeof(T) == 2, "the 16x16 Transpose takes 2-byte elements (int16_t, uint16_t, half)");
    CheckUbAligned(dst, api, "dst");
    CheckUbAligned(src, api, "src");
    CheckHolds(api, dst, 256, "dst", "a 16x16 matrix");
    CheckHolds(api, src, 256, "src", "a 16x16 matrix");
    T tmp[256];
    for (int i = 0; i < 16; ++i) {
        for (int j = 0; j < 16; ++j) tmp[j * 16 + i] = src.ptr_[i * 16 + j];
    }
    std::memcpy(dst.ptr_, tmp, sizeof(tmp));
    CountVector<T>(256);
}

}  // namespace opgen_sim

namespace AscendC {

template <typename T>
inline void Transpose(const LocalTensor<T>& dst, const LocalTensor<T>& src) {
    opgen_sim::Transpose16("Transpose", dst, src);
}

template <typename T>
inline void Transpose(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint8_t>& sharedTmpBuffer,
                      const TransposeParamsExt& transposeParams) {
    constexpr const char* api = "Transpose";
    const TransposeParamsExt& p = transposeParams;
    switch (p.transposeType) {
        case TransposeType::TRANSPOSE_TYPE_NONE: return;
        case TransposeType::TRANSPOSE_ND2ND_B16:
            if constexpr (sizeof(T) == 2) {
                opgen_sim::Transpose16(api, dst, src);
            } else {
                opgen_sim::Fail(opgen_sim::ErrorKind::Generic, api,
                                std::string("TRANSPOSE_ND2ND_B16 takes 2-byte elements, not ") +
                                    opgen_sim::TypeName<T>());
            }
            return;
        case TransposeType::TRANSPOSE_NCHW2NHWC:
        case TransposeType::TRANSPOSE_NHWC2NCHW: break;
        default:
            opgen_sim::Fail(opgen_sim::ErrorKind::Generic, api,
                            "transposeType " + std::to_string(static_cast<int>(p.transposeType)) +
                                " is not supported (the reference lists TRANSPOSE_TYPE_NONE, TRANSPOSE_ND2ND_B16, "
                                "TRANSPOSE_NCHW2NHWC and TRANSPOSE_NHWC2NCHW)");
    }
    static_assert(sizeof(T) <= 4, "Transpose takes 8-, 16- or 32-bit elements");
    const bool to_nhwc = p.transposeType == TransposeType::TRANSPOSE_NCHW2NHWC;
    const uint64_t hw = static_cast<uint64_t>(p.hSize) * p.wSize;
    if (p.cSize > 4095) {
        opgen_sim::Fail(opgen_sim::ErrorKind::Generic, api,
                        "cSize " + std::to_string(p.cSize) + " is outside [0, 4095]");
    }
    if (hw > 4095) {
        opgen_sim::Fail(opgen_sim::ErrorKind::Generic, api,
                        "hSize * wSize = " + opgen_sim::Str(hw) + " is outside [0, 4095]");
    }
    if (hw * sizeof(T) % opgen_sim::kBlockBytes != 0) {
        opgen_sim::Fail(opgen_sim::ErrorKind::Alignment, api,
                        "hSize * wSize * sizeof(T) = " + opgen_sim::Str(hw * sizeof(T)) +
                            " bytes is not a multiple of 32");
    }
    opgen_sim::CheckUbAligned(dst, api, "dst");
    opgen_sim::CheckUbAligned(src, api, "src");
    opgen_sim::CheckUbAligned(sharedTmpBuffer, api, "sharedTmpBuffer");
    const uint64_t total = static_cast<uint64_t>(p.nSize) * p.cSize * hw;
    const std::string shape = "[" + std::to_string(p.nSize) + ", " + std::to_string(p.cSize) + ", " +
                              std::to_string(p.hSize) + ", " + std::to_string(p.wSize) + "] (N, C, H, W)";
    opgen_sim::CheckHolds(api, dst, total, "dst", shape);
    opgen_sim::CheckHolds(api, src, total, "src", shape);
    const uint64_t h0 = sizeof(T) == 1 ? 32 : 16;
    const uint64_t w0 = opgen_sim::kBlockBytes / sizeof(T);
    const uint64_t need = (to_nhwc ? p.cSize + 2ull : 2ull * p.cSize + 1) * h0 * w0 * sizeof(T);
    if (sharedTmpBuffer.size_ < need) {
        opgen_sim::Fail(opgen_sim::ErrorKind::LocalMemoryOutOfBounds, api,
                        "sharedTmpBuffer holds " + opgen_sim::Str(sharedTmpBuffer.size_) + " bytes; " +
                            (to_nhwc ? "TRANSPOSE_NCHW2NHWC" : "TRANSPOSE_NHWC2NCHW") + " with cSize " +
                            std::to_string(p.cSize) + " needs " + opgen_sim::Str(need) +
                            " (the reference's formula)");
    }
    if (opgen_sim::Overlaps(reinterpret_cast<const uint8_t*>(dst.ptr_), total * sizeof(T),
                            reinterpret_cast<const uint8_t*>(src.ptr_), total * sizeof(T))) {
        opgen_sim::Fail(opgen_sim::ErrorKind::Generic, api, "dst overlaps src");
    }
    const uint64_t C = p.cSize;
    for (uint64_t n = 0; n < p.nSize; ++n) {
        const T* s = src.ptr_ + n * C * hw;
        T* d = dst.ptr_ + n * C * hw;
        for (uint64_t c = 0; c < C; ++c) {
            for (uint64_t k = 0; k < hw; ++k) {
                if (to_nhwc) {
                    d[k * C + c] = s[c * hw + k];
                } else {
                    d[c * hw + k] = s[k * C + c];
                }
            }
        }
    }
    opgen_sim::CountVector<T>(total);
}

// ---- TransDataTo5HD ----------------------------------------------------------------------------
namespace transdata_detail {
template <typename T>
inline void Run(const uint64_t* dstList, const uint64_t* srcList, const TransDataTo5HDParams& p) {
    constexpr const char* api = "TransDataTo5HD";
    if constexpr (sizeof(T) != 2 && sizeof(T) != 4) {
        opgen_sim::Fail(opgen_sim::ErrorKind::Generic, api,
                        std::string("the simulator covers 16- and 32-bit data only, not ") + opgen_sim::TypeName<T>());
    }
    opgen_sim::Core& c = opgen_sim::CurrentCore();
    constexpr uint64_t kBlk = opgen_sim::kBlockBytes;
    for (int i = 0; i < NCHW_CONV_ADDR_LIST_SIZE; ++i) {
        for (const uint64_t* list : {dstList, srcList}) {
            if (list[i] % kBlk != 0) {
                opgen_sim::Fail(opgen_sim::ErrorKind::Alignment, api,
                                std::string(list == dstList ? "dstList[" : "srcList[") + std::to_string(i) +
                                    "] = UB offset " + opgen_sim::Str(list[i]) + " is not 32-byte aligned");
            }
        }
    }
    const auto at = [&](uint64_t base, uint64_t stride, int32_t r, const char* what, int i) -> uint8_t* {
        const uint64_t off = base + (p.repeatTimes == 1 ? stride : static_cast<uint64_t>(r) * stride) * kBlk;
        if (off + kBlk > c.ub_capacity) {
            opgen_sim::Fail(opgen_sim::ErrorKind::UnifiedBufferOverflow, api,
                            std::string(what) + "[" + std::to_string(i) + "] at repeat " + std::to_string(r) +
                                " reaches UB bytes [" + opgen_sim::Str(off) + ", " + opgen_sim::Str(off + kBlk) +
                                "), past the Unified Buffer of " + opgen_sim::Str(c.ub_capacity) + " bytes");
        }
        return c.ub + off;
    };
    // A repeat gathers the 16 source blocks, then writes the 16 destination blocks. 16-bit data:
    // element j of dst block i is element i of src block j. 32-bit data (reference: "每个DataBlock
    // 包含8个数，从指定的16个DataBlock中的对应位置取值，组成2个新的DataBlock"): element k of the 16
    // src blocks fills dst blocks 2k (src blocks 0-7) and 2k + 1 (src blocks 8-15).
    using E = std::conditional_t<sizeof(T) == 2, uint16_t, uint32_t>;
    constexpr int kPerBlock = static_cast<int>(kBlk / sizeof(E));
    for (int32_t r = 0; r < p.repeatTimes; ++r) {
        E m[16][kPerBlock];
        for (int j = 0; j < 16; ++j) {
            const uint8_t* s = at(srcList[j], p.srcRepStride, r, "srcList", j);
            opgen_sim::FlushUb(s, kBlk);
            std::memcpy(m[j], s, kBlk);
        }
        for (int i = 0; i < 16; ++i) {
            uint8_t* d = at(dstList[i], p.dstRepStride, r, "dstList", i);
            opgen_sim::FlushUb(d, kBlk);
            E row[kPerBlock];
            for (int j = 0; j < kPerBlock; ++j) {
                if constexpr (sizeof(E) == 2) {
                    row[j] = m[j][i];
                } else {
                    row[j] = m[(i % 2) * kPerBlock + j][i / 2];
                }
            }
            std::memcpy(d, row, kBlk);
        }
    }
    c.counters[opgen_sim::kVectorInstructions] += 1;
    c.counters[opgen_sim::kVectorRepeats] += p.repeatTimes;
}
}  // namespace transdata_detail

template <typename T>
inline void TransDataTo5HD(uint64_t dstList[NCHW_CONV_ADDR_LIST_SIZE], uint64_t srcList[NCHW_CONV_ADDR_LIST_SIZE],
                           const TransDataTo5HDParams& nchwconvParams) {
    transdata_detail::Run<T>(dstList, srcList, nchwconvParams);
}

template <typename T>
inline void TransDataTo5HD(const LocalTensor<T> (&dstList)[NCHW_CONV_ADDR_LIST_SIZE],
                           const LocalTensor<T> (&srcList)[NCHW_CONV_ADDR_LIST_SIZE],
                           const TransDataTo5HDParams& nchwconvParams) {
    uint64_t d[NCHW_CONV_ADDR_LIST_SIZE];
    uint64_t s[NCHW_CONV_ADDR_LIST_SIZE];
    for (int i = 0; i < NCHW_CONV_ADDR_LIST_SIZE; ++i) {
        dstList[i].CheckLive("TransDataTo5HD");
        srcList[i].CheckLive("TransDataTo5HD");
        d[i] = dstList[i].GetPhyAddr();
        s[i] = srcList[i].GetPhyAddr();
    }
    transdata_detail::Run<T>(d, s, nchwconvParams);
}

template <typename T>
inline void TransDataTo5HD(const LocalTensor<uint64_t>& dst, const LocalTensor<uint64_t>& src,
                           const TransDataTo5HDParams& nchwconvParams) {
    constexpr const char* api = "TransDataTo5HD";
    opgen_sim::CheckUbAligned(dst, api, "dst");
    opgen_sim::CheckUbAligned(src, api, "src");
    opgen_sim::CheckHolds(api, dst, NCHW_CONV_ADDR_LIST_SIZE, "dst", "the address list");
    opgen_sim::CheckHolds(api, src, NCHW_CONV_ADDR_LIST_SIZE, "src", "the address list");
    transdata_detail::Run<T>(dst.ptr_, src.ptr_, nchwconvParams);
}

// TransDataTo5HDImpl: CANN's implementation layer (asc-devkit impl/basic_api/dav_c220/
// kernel_operator_vec_transpose_impl.h), which ops-nn's kernels call directly with lists of
// UB addresses: uint64_t values, or `__ubuf__ T*` pointers made from LocalTensor::GetPhyAddr()
// (a UB offset here, as on the NPU). Both are the public form's address lists.
template <typename T>
inline void TransDataTo5HDImpl(uint64_t dstList[NCHW_CONV_ADDR_LIST_SIZE], uint64_t srcList[NCHW_CONV_ADDR_LIST_SIZE],
                               const TransDataTo5HDParams& transDataTo5HDParams) {
    transdata_detail::Run<T>(dstList, srcList, transDataTo5HDParams);
}
template <typename T>
inline void TransDataTo5HDImpl(__ubuf__ T* dstList[NCHW_CONV_ADDR_LIST_SIZE], __ubuf__ T* srcList[NCHW_CONV_ADDR_LIST_SIZE],
                               const TransDataTo5HDParams& transDataTo5HDParams) {
    uint64_t d[NCHW_CONV_ADDR_LIST_SIZE];
    uint64_t s[NCHW_CONV_ADDR_LIST_SIZE];
    for (int i = 0; i < NCHW_CONV_ADDR_LIST_SIZE; ++i) {
        d[i] = static_cast<uint64_t>(reinterpret_cast<uintptr_t>(dstList[i]));
        s[i] = static_cast<uint64_t>(reinterpret_cast<uintptr_t>(srcList[i]));
    }
    transdata_detail::Run<T>(d, s, transDataTo5HDParams);
}

}  // namespace AscendC
