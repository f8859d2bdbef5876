// opgen NPU simulator: the filter advanced APIs Select with a byte mask (adv_api/select/
// selectwithbytesmask.h: SelectWithBytesMaskShapeInfo and its two Select forms, tensor/scalar and
// scalar/tensor) and DropOut (adv_api/filter/dropout.h: DropOutShapeInfo, the DROPOUT_MODE_*
// constants, with and without sharedTmpBuffer).
//
// The reference pages (Select.md for the byte-mask form, DropOut.md) give the selection; where
// they are silent the simulator follows CANN's A2/A3 implementation (asc-devkit impl/adv_api/
// detail/select/selectwithbytesmask/selectwithbytesmask_common_impl.h and _v220_impl.h, impl/
// adv_api/detail/filter/dropout/dropout_impl.h, dropout_c220_impl.h, dropout_membase_impl.h):
//
// - Select, element i of the firstAxis * srcLastAxis source: a mask element that is zero picks
//   the tensor operand, any other the scalar (the scalar/tensor form: zero picks the scalar). CANN
//   tests the mask through a cast to half: a 1-byte mask by its value, a 2-byte one by its bits
//   (int16), a 4-byte one by its bits read as a float (so 0x80000000, a float -0.0, counts as
//   zero). With maskLastAxis > srcLastAxis the mask rows are first packed to srcLastAxis elements:
//   in place in the mask with isReuseMask (the default), else in sharedTmpBuffer. The CmpMask
//   register is left holding the scalar (CANN stages it there with SetCmpMask).
// - DropOut, mode from the shapes as CANN picks it (dropOutMode 0): srcLastAxis < maskLastAxis
//   byte mode with the mask rows packed in place first (DROPOUT_MODE_BYTE_MISALIGN), == byte mode
//   (BYTE_ALIGN), == 8 * maskLastAxis bit mode (BIT_ALIGN), else bit mode with the mask rows
//   packed in place first (BIT_MISALIGN). divValue = 1.0f / keepProb (float, then cast to T).
//   Byte mode: a 0 byte gives zero (+0.0), as DropOut.md says ("赋值为零"); CANN's A2 code
//   multiplies instead (x * 0: -0.0 for a negative x, NaN for an infinite one), and the
//   documentation decides. Any other byte gives (float(mask byte) * x) * divValue, each product
//   rounded to T, as CANN computes it (a byte of 1 is x * divValue; the page calls the mask
//   boolean, so 2, which doubles x, is outside it). Bit mode (bit i of the packed mask, least significant bit first): y = (bit
//   ? x : s) * divValue, s the CmpMask register's low element: 0 after CANN's init (which zeroes
//   the register), or what the kernel put there with isInitBitMode = true.
// Rules (SimulatorError naming the API): the types CANN's code accepts (static_assert), the shape
// rules of its checks (Select: srcTensor of firstAxis * srcLastAxis elements, mask of firstAxis *
// maskLastAxis, maskLastAxis >= srcLastAxis, a multiple of 16 and of 32 bytes, srcLastAxis of 32
// bytes; DropOut: keepProb in (0, 1), positive axes, maskLastAxis even in modes 1 and 4, the rows
// packed in whole 2-byte units and 32-byte mask rows), operands holding what the steps read and
// write, and a sharedTmpBuffer of what CANN's kernel uses (Select: 1024 bytes, plus the packed
// mask without isReuseMask; DropOut: 256 bytes for the bit mode's CmpMask init, one 32-element
// chunk of the byte mode's half (and float) buffers).
#pragma once

#include <cstring>
#include <string>
#include <type_traits>

#include "compare_select.h"
#include "norm.h"

namespace AscendC {

struct SelectWithBytesMaskShapeInfo {
    uint32_t firstAxis = 0;
    uint32_t srcLastAxis = 0;
    uint32_t maskLastAxis = 0;
};

struct DropOutShapeInfo {
    uint32_t firstAxis = 0;
    uint32_t srcLastAxis = 0;
    uint32_t maskLastAxis = 0;
};

#ifndef OPGEN_DROPOUT_MODES
#define OPGEN_DROPOUT_MODES
const uint32_t DROPOUT_MODE_BYTE_MISALIGN = 1;
const uint32_t DROPOUT_MODE_BYTE_ALIGN = 2;
const uint32_t DROPOUT_MODE_BIT_ALIGN = 3;
const uint32_t DROPOUT_MODE_BIT_MISALIGN = 4;
#endif

}  // namespace AscendC

namespace opgen_sim {
namespace filter_detail {

// Packs `rows` rows of `keep` bytes, `stride` bytes apart, to the front of dst (GatherMask over
// the rows, front to back).
inline void PackRows(uint8_t* dst, const uint8_t* src, uint32_t rows, uint64_t keep, uint64_t stride) {
    for (uint32_t r = 0; r < rows; ++r) std::memmove(dst + r * keep, src + r * stride, keep);
}

// Whether a mask element is zero as CANN's cast to half sees it.
template <typename U>
inline bool MaskZero(const uint8_t* p) {
    if constexpr (sizeof(U) == 1) {
        return p[0] == 0;
    } else if constexpr (sizeof(U) == 2) {
        uint16_t b;
        std::memcpy(&b, p, 2);
        return b == 0;
    } else {
        uint32_t b;
        std::memcpy(&b, p, 4);
        return (b & 0x7FFFFFFFu) == 0;  // +-0.0 as a float; round-to-odd keeps anything else non-zero
    }
}

template <typename T>
inline void FillCmpMask(T v) {
    uint8_t* reg = reinterpret_cast<uint8_t*>(tls_cmp_mask);
    for (uint32_t i = 0; i < 16 / sizeof(T); ++i) std::memcpy(reg + i * sizeof(T), &v, sizeof(T));
}

template <typename T, typename U, bool isReuseMask, bool reverse>
inline void SelectRun(const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& srcT, T scalar,
                      const AscendC::LocalTensor<U>& mask, const AscendC::LocalTensor<uint8_t>& tmp,
                      const AscendC::SelectWithBytesMaskShapeInfo& info) {
    constexpr const char* api = "Select";
    constexpr const char* page = "Select.md (SelectWithBytesMask)";
    static_assert(std::is_same_v<T, half> || std::is_same_v<T, float>,
                  "Select (byte mask): T is half or float on the Atlas A2/A3");
    static_assert(std::is_same_v<U, bool> || std::is_same_v<U, uint8_t> || std::is_same_v<U, int8_t> ||
                      std::is_same_v<U, uint16_t> || std::is_same_v<U, int16_t> || std::is_same_v<U, uint32_t> ||
                      std::is_same_v<U, int32_t>,
                  "Select (byte mask): the mask type U is bool/uint8_t/int8_t/uint16_t/int16_t/uint32_t/int32_t");
    const uint32_t rows = info.firstAxis, sl = info.srcLastAxis, ml = info.maskLastAxis;
    const uint64_t n = static_cast<uint64_t>(rows) * sl, nm = static_cast<uint64_t>(rows) * ml;
    std::string error;
    if (rows == 0 || sl == 0) {
        error = "info.firstAxis and info.srcLastAxis must be greater than 0";
    } else if (ml < sl) {
        error = "info.maskLastAxis " + Str(ml) + " must be >= info.srcLastAxis " + Str(sl);
    } else if (ml % 16 != 0 || ml * sizeof(U) % kBlockBytes != 0) {
        error = "info.maskLastAxis " + Str(ml) + " must be a multiple of 16 and of 32 bytes of " + TypeName<U>();
    } else if (sl * sizeof(T) % kBlockBytes != 0) {
        error = "info.srcLastAxis " + Str(sl) + " of " + TypeName<T>() + " is not a multiple of 32 bytes";
    } else if (srcT.size_ != n) {
        error = "the source tensor holds " + Str(srcT.size_) + " elements; info.firstAxis * info.srcLastAxis is " +
                Str(n) + " and they must be equal";
    } else if (mask.size_ != nm) {
        error = "mask holds " + Str(mask.size_) + " elements; info.firstAxis * info.maskLastAxis is " + Str(nm) +
                " and they must be equal";
    }
    if (!error.empty()) Fail(ErrorKind::Generic, api, error + " (" + page + ")");
    norm_detail::CheckPos(api, dst, "dst");
    norm_detail::CheckPos(api, srcT, "the source tensor");
    norm_detail::CheckPos(api, mask, "mask");
    norm_detail::CheckPos(api, tmp, "sharedTmpBuffer");
    CheckOperand(dst, static_cast<int64_t>(n), api, "dst");
    CheckOperand(srcT, static_cast<int64_t>(n), api, "the source tensor");
    CheckOperand(mask, static_cast<int64_t>(nm), api, "mask");
    const bool pack = sl != ml;
    const uint64_t packBytes = (!isReuseMask && pack) ? (n * sizeof(U) + kBlockBytes - 1) / kBlockBytes * kBlockBytes : 0;
    CheckUbAligned(tmp, api, "sharedTmpBuffer");
    if (static_cast<uint64_t>(tmp.size_) < 1024 + packBytes) {
        Fail(ErrorKind::LocalMemoryOutOfBounds, api,
             "sharedTmpBuffer holds " + Str(tmp.size_) + " bytes; it needs " + Str(1024 + packBytes) +
                 (packBytes ? " (1024, plus the packed mask without isReuseMask)" : " (1024)") +
                 " (GetSelectMaxMinTmpSize)");
    }
    if (Overlaps(tmp, dst, n) || Overlaps(tmp, srcT, n) || Overlaps(tmp, mask, nm)) {
        Fail(ErrorKind::Generic, api, std::string("sharedTmpBuffer overlaps an operand; ") + page + " does not allow that");
    }
    FlushAll();
    const uint8_t* m = reinterpret_cast<const uint8_t*>(mask.ptr_);
    if (pack) {
        uint8_t* to = isReuseMask ? reinterpret_cast<uint8_t*>(mask.ptr_) : tmp.ptr_;
        PackRows(to, m, rows, static_cast<uint64_t>(sl) * sizeof(U), static_cast<uint64_t>(ml) * sizeof(U));
        m = to;
    }
    FillCmpMask(scalar);
    for (uint64_t i = 0; i < n; ++i) {
        const bool zero = MaskZero<U>(m + i * sizeof(U));
        dst.ptr_[i] = (zero != reverse) ? srcT.ptr_[i] : scalar;
    }
}

template <typename T, bool isInitBitMode, uint32_t dropOutMode>
inline void DropOutRun(const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& src,
                       const AscendC::LocalTensor<uint8_t>& mask, const AscendC::LocalTensor<uint8_t>& tmp,
                       const float keepProb, const AscendC::DropOutShapeInfo& info) {
    constexpr const char* api = "DropOut";
    constexpr const char* page = "DropOut.md";
    static_assert(std::is_same_v<T, half> || std::is_same_v<T, float>, "DropOut: T is half or float on the Atlas A2/A3");
    static_assert(dropOutMode <= 4, "DropOut: dropOutMode is 0, 1, 2, 3 or 4");
    const uint32_t rows = info.firstAxis, sl = info.srcLastAxis, ml = info.maskLastAxis;
    std::string error;
    if (!(keepProb > 0.0f && keepProb < 1.0f)) {
        error = "keepProb is " + std::to_string(keepProb) + "; it must be in (0, 1)";
    } else if (rows == 0 || sl == 0 || ml == 0) {
        error = "info.firstAxis, info.srcLastAxis and info.maskLastAxis must be greater than 0";
    } else if ((dropOutMode == 1 || dropOutMode == 4) && ml % 2 != 0) {
        error = "info.maskLastAxis " + Str(ml) + " must be even with dropOutMode " + Str(dropOutMode);
    }
    if (!error.empty()) Fail(ErrorKind::Generic, api, error + " (" + page + ")");
    uint32_t mode = dropOutMode;
    if (mode == 0) {
        mode = sl < ml ? AscendC::DROPOUT_MODE_BYTE_MISALIGN
               : sl == ml ? AscendC::DROPOUT_MODE_BYTE_ALIGN
               : sl == ml * 8 ? AscendC::DROPOUT_MODE_BIT_ALIGN
                              : AscendC::DROPOUT_MODE_BIT_MISALIGN;
    }
    const bool bitMode = mode == AscendC::DROPOUT_MODE_BIT_ALIGN || mode == AscendC::DROPOUT_MODE_BIT_MISALIGN;
    const bool packed = mode == AscendC::DROPOUT_MODE_BYTE_MISALIGN || mode == AscendC::DROPOUT_MODE_BIT_MISALIGN;
    const uint64_t n = static_cast<uint64_t>(rows) * sl;
    const uint64_t keep = bitMode ? sl / 8 : sl;  // mask bytes a row keeps
    if (packed) {
        const uint64_t unit = bitMode ? 16 : 2;  // CANN packs the rows in 2-byte units
        if (sl % unit != 0 || ml % kBlockBytes != 0 || keep > ml) {
            Fail(ErrorKind::Alignment, api,
                 "info.srcLastAxis " + Str(sl) + " must be a multiple of " + Str(unit) +
                     " and info.maskLastAxis " + Str(ml) + " a multiple of 32 bytes holding a row's mask (mode " +
                     Str(mode) + " packs the mask rows in 2-byte units, " + page + ")");
        }
    }
    const uint64_t maskBytes = packed ? static_cast<uint64_t>(rows) * ml : (bitMode ? (n + 7) / 8 : n);
    norm_detail::CheckPos(api, dst, "dstLocal");
    norm_detail::CheckPos(api, src, "srcLocal");
    norm_detail::CheckPos(api, mask, "maskLocal");
    norm_detail::CheckPos(api, tmp, "sharedTmpBuffer");
    CheckOperand(dst, static_cast<int64_t>(n), api, "dstLocal");
    CheckOperand(src, static_cast<int64_t>(n), api, "srcLocal");
    CheckOperand(mask, static_cast<int64_t>(maskBytes), api, "maskLocal");
    CheckUbAligned(tmp, api, "sharedTmpBuffer");
    // the bit mode's init zeroes one 256-byte repeat; the byte mode's chunks are whole 32 elements
    // of a half buffer (and of a float one for float)
    const uint64_t need = bitMode ? (isInitBitMode ? 0 : kRepeatBytes) : kBlockBytes * (sizeof(T) == 2 ? 2 : 6);
    if (static_cast<uint64_t>(tmp.size_) < need) {
        Fail(ErrorKind::LocalMemoryOutOfBounds, api,
             "sharedTmpBuffer holds " + Str(tmp.size_) + " bytes; DropOut's " + (bitMode ? "bit" : "byte") +
                 " mode needs " + Str(need) + " (GetDropOutMaxMinTmpSize's minimum is 512)");
    }
    if (Overlaps(tmp, dst, n) || Overlaps(tmp, src, n) || Overlaps(tmp, mask, maskBytes)) {
        Fail(ErrorKind::Generic, api, std::string("sharedTmpBuffer overlaps an operand; ") + page + " does not allow that");
    }
    FlushAll();
    uint8_t* m = mask.ptr_;
    if (packed) PackRows(m, m, rows, keep, ml);
    const float divF = 1.0f / keepProb;
    const T div = static_cast<T>(divF);
    auto mul = [](T a, T b) { return static_cast<T>(a * b); };  // the Mul/Muls lanes
    if (bitMode) {
        if constexpr (!isInitBitMode) {
            std::memset(tmp.ptr_, 0, kRepeatBytes);
            std::memset(tls_cmp_mask, 0, 16);
        }
        T s;
        std::memcpy(&s, tls_cmp_mask, sizeof(T));
        for (uint64_t i = 0; i < n; ++i) {
            const bool on = (m[i / 8] >> (i % 8)) & 1u;
            dst.ptr_[i] = mul(on ? src.ptr_[i] : s, div);
        }
    } else {
        for (uint64_t i = 0; i < n; ++i) {
            const T mv = static_cast<T>(static_cast<float>(m[i]));  // exact: a byte in half
            dst.ptr_[i] = m[i] == 0 ? static_cast<T>(0.0f) : mul(mul(mv, src.ptr_[i]), div);
        }
    }
}

}  // namespace filter_detail
}  // namespace opgen_sim

namespace AscendC {

// ---- Select with a byte mask (Select.md: SelectWithBytesMask) ---------------------------------
template <typename T, typename U, bool isReuseMask = true>
inline void Select(const LocalTensor<T>& dst, const LocalTensor<T>& src0, T src1, const LocalTensor<U>& mask,
                   const LocalTensor<uint8_t>& sharedTmpBuffer, const SelectWithBytesMaskShapeInfo& info) {
    opgen_sim::filter_detail::SelectRun<T, U, isReuseMask, false>(dst, src0, src1, mask, sharedTmpBuffer, info);
}
template <typename T, typename U, bool isReuseMask = true>
inline void Select(const LocalTensor<T>& dst, T src0, const LocalTensor<T>& src1, const LocalTensor<U>& mask,
                   const LocalTensor<uint8_t>& sharedTmpBuffer, const SelectWithBytesMaskShapeInfo& info) {
    opgen_sim::filter_detail::SelectRun<T, U, isReuseMask, true>(dst, src1, src0, mask, sharedTmpBuffer, info);
}

// SelectWithBytesMask: the same two forms under CANN 8's name, which real kernels still call
// (ops-nn's scaled_masked_softmax_v2); asc-devkit now names them Select.
template <typename T, typename U, bool isReuseMask = true>
inline void SelectWithBytesMask(const LocalTensor<T>& dst, const LocalTensor<T>& src0, T src1,
                                const LocalTensor<U>& mask, const LocalTensor<uint8_t>& sharedTmpBuffer,
                                const SelectWithBytesMaskShapeInfo& info) {
    Select<T, U, isReuseMask>(dst, src0, src1, mask, sharedTmpBuffer, info);
}
template <typename T, typename U, bool isReuseMask = true>
inline void SelectWithBytesMask(const LocalTensor<T>& dst, T src0, const LocalTensor<T>& src1,
                                const LocalTensor<U>& mask, const LocalTensor<uint8_t>& sharedTmpBuffer,
                                const SelectWithBytesMaskShapeInfo& info) {
    Select<T, U, isReuseMask>(dst, src0, src1, mask, sharedTmpBuffer, info);
}

// ---- DropOut (DropOut.md) ------------------------------------------------------------------------
template <typename T, bool isInitBitMode = false, uint32_t dropOutMode = 0>
inline void DropOut(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal, const LocalTensor<uint8_t>& maskLocal,
                    const LocalTensor<uint8_t>& sharedTmpBuffer, const float keepProb, const DropOutShapeInfo& info) {
    opgen_sim::filter_detail::DropOutRun<T, isInitBitMode, dropOutMode>(dstLocal, srcLocal, maskLocal,
                                                                        sharedTmpBuffer, keepProb, info);
}
template <typename T, bool isInitBitMode = false, uint32_t dropOutMode = 0>
inline void DropOut(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal, const LocalTensor<uint8_t>& maskLocal,
                    const float keepProb, const DropOutShapeInfo& info) {
    LocalTensor<uint8_t> stack;
    PopStackBuffer<uint8_t, TPosition::LCM>(stack);
    opgen_sim::filter_detail::DropOutRun<T, isInitBitMode, dropOutMode>(dstLocal, srcLocal, maskLocal, stack,
                                                                        keepProb, info);
}

}  // namespace AscendC
