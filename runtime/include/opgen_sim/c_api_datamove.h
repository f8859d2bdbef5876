// opgen NPU simulator: the C API's vector data moves (c_api/vector_datamove/vector_datamove.h,
// npu_arch 2201) on the C++ API's DataCopy / DataCopyPad, and its atomic modes of copies to GM.
//
// asc_copy_gm2ub / asc_copy_ub2gm / asc_copy_ub2ub move n_burst bursts of len_burst 32-byte blocks,
// src_gap and dst_gap blocks apart (DataCopy with DataCopyParams; one burst is a contiguous
// DataCopy). Their `size` form is one burst of size / 32 blocks; the reference wants size a multiple
// of 32 bytes, and as for DataCopy a size that is not is an Alignment error (the hardware silently
// drops the tail) unless the launch is not strict about copy lengths. A _sync form ends with a
// barrier of all pipes.
//
// asc_copy_gm2ub_align / asc_copy_ub2gm_align (DataCopyPad): n_burst bursts of len_burst bytes; the
// UB side of a burst takes whole 32-byte blocks. As asc-devkit's implementation hands src_gap and
// dst_gap to the same instructions as DataCopyPad, the gap on the GM side counts bytes and the one
// on the UB side 32-byte blocks (the C API reference says blocks for both). The padding of
// asc_copy_gm2ub_align (left_padding_num / right_padding_num elements, and the block's tail) holds
// the value of asc_set_copy_pad_val once it was called in the block (SetPadValue); padding of
// asc_copy_ub2gm_align is not simulated (an error if asked for).
#pragma once

#include <cstring>
#include <type_traits>

#include "opgen_sim/c_api_base.h"

namespace opgen_sim {
namespace capi {

constexpr uint32_t kMaxBursts = 4095;  // n_burst: [1, 4095] (the reference)

inline void CheckBursts(const char* api, uint32_t n_burst) {
    if (n_burst > kMaxBursts) {
        Fail(ErrorKind::Generic, api,
             "n_burst " + std::to_string(n_burst) + " is outside [1, " + std::to_string(kMaxBursts) + "]");
    }
}

// The 32-byte blocks of a `size` form, as the implementation computes them (size / 32); a size that
// is not a multiple of 32 is an error in a strict launch (DataCopyBytes' rule).
inline uint32_t SizeBlocks(const char* api, uint32_t size) {
    if (size % kBlockBytes != 0 && CurrentCore().strict_datacopy) {
        Fail(ErrorKind::Alignment, api,
             "size " + std::to_string(size) +
                 " bytes is not a multiple of 32 bytes; the hardware silently copies only " +
                 std::to_string(size / kBlockBytes * kBlockBytes) +
                 " bytes. Use asc_copy_gm2ub_align / asc_copy_ub2gm_align for unaligned lengths");
    }
    return size / kBlockBytes;
}

// Bytes from the first burst's start to the last one's end: n bursts of `len` bytes, each `step`
// bytes after the one before.
inline uint64_t Span(uint32_t n, uint64_t len, uint64_t step) { return (static_cast<uint64_t>(n) - 1) * step + len; }

// Calls f with a value of the element type a copy to GM moves: the atomic mode's type while one is
// set (SetAtomicAdd<T> ... : the hardware's copies are untyped, its atomic unit adds T's), else bytes.
template <typename F>
inline void WithStoreType(F f) {
    const Core& c = CurrentCore();
    const char* t = c.atomic_op == kAtomicNone ? nullptr : c.atomic_type;
    if (t == nullptr) return f(uint8_t{});
    if (std::strcmp(t, "float") == 0) return f(float{});
    if (std::strcmp(t, "half") == 0) return f(half{});
    if (std::strcmp(t, "bfloat16_t") == 0) return f(bfloat16_t{});
    if (std::strcmp(t, "int32_t") == 0) return f(int32_t{});
    if (std::strcmp(t, "int16_t") == 0) return f(int16_t{});
    if (std::strcmp(t, "int8_t") == 0) return f(int8_t{});
    return f(uint8_t{});
}

template <typename T>
inline constexpr bool kAlignCopyType =
    kOneOf<T, int8_t, uint8_t, half, bfloat16_t, int16_t, uint16_t, float, int32_t, uint32_t>;

}  // namespace capi
}  // namespace opgen_sim

// ---- GM -> UB ------------------------------------------------------------------------------------
inline void asc_copy_gm2ub(__ubuf__ void* dst, __gm__ void* src, uint16_t n_burst, uint16_t len_burst,
                           uint16_t src_gap, uint16_t dst_gap) {
    namespace capi = opgen_sim::capi;
    constexpr const char* api = "asc_copy_gm2ub";
    capi::CheckBursts(api, n_burst);
    if (n_burst == 0 || len_burst == 0) return;
    const uint64_t len = static_cast<uint64_t>(len_burst) * opgen_sim::kBlockBytes;
    const auto d = capi::Ub(api, "dst", static_cast<uint8_t*>(dst),
                            capi::Span(n_burst, len, len + dst_gap * uint64_t{opgen_sim::kBlockBytes}));
    const auto s = capi::Gm(api, "src", static_cast<const uint8_t*>(src),
                            capi::Span(n_burst, len, len + src_gap * uint64_t{opgen_sim::kBlockBytes}));
    if (n_burst == 1) {
        AscendC::DataCopy(d, s, static_cast<uint32_t>(len));
    } else {
        AscendC::DataCopy(d, s, AscendC::DataCopyParams(n_burst, len_burst, src_gap, dst_gap));
    }
}
inline void asc_copy_gm2ub(__ubuf__ void* dst, __gm__ void* src, uint32_t size) {
    const uint32_t blocks = opgen_sim::capi::SizeBlocks("asc_copy_gm2ub", size);
    // the UB and GM ranges are checked whole, before the burst length takes its 16 bits
    opgen_sim::capi::Ub("asc_copy_gm2ub", "dst", static_cast<uint8_t*>(dst), uint64_t{blocks} * 32);
    asc_copy_gm2ub(dst, src, 1, static_cast<uint16_t>(blocks), 0, 0);
}
inline void asc_copy_gm2ub_sync(__ubuf__ void* dst, __gm__ void* src, uint32_t size) {
    asc_copy_gm2ub(dst, src, size);
    opgen_sim::capi::SyncPostProcess();
}

// ---- UB -> GM ------------------------------------------------------------------------------------
inline void asc_copy_ub2gm(__gm__ void* dst, __ubuf__ void* src, uint16_t n_burst, uint16_t len_burst,
                           uint16_t src_gap, uint16_t dst_gap) {
    namespace capi = opgen_sim::capi;
    constexpr const char* api = "asc_copy_ub2gm";
    capi::CheckBursts(api, n_burst);
    if (n_burst == 0 || len_burst == 0) return;
    const uint64_t len = static_cast<uint64_t>(len_burst) * opgen_sim::kBlockBytes;
    const uint64_t ub_span = capi::Span(n_burst, len, len + src_gap * uint64_t{opgen_sim::kBlockBytes});
    const uint64_t gm_span = capi::Span(n_burst, len, len + dst_gap * uint64_t{opgen_sim::kBlockBytes});
    capi::WithStoreType([&](auto tag) {
        using T = decltype(tag);
        const auto s = capi::Ub(api, "src", static_cast<const T*>(src), ub_span / sizeof(T));
        const auto d = capi::Gm(api, "dst", static_cast<const T*>(dst), gm_span / sizeof(T));
        if (n_burst == 1) {
            AscendC::DataCopy(d, s, static_cast<uint32_t>(len / sizeof(T)));
        } else {
            AscendC::DataCopy(d, s, AscendC::DataCopyParams(n_burst, len_burst, src_gap, dst_gap));
        }
    });
}
inline void asc_copy_ub2gm(__gm__ void* dst, __ubuf__ void* src, uint32_t size) {
    const uint32_t blocks = opgen_sim::capi::SizeBlocks("asc_copy_ub2gm", size);
    opgen_sim::capi::Ub("asc_copy_ub2gm", "src", static_cast<uint8_t*>(src), uint64_t{blocks} * 32);
    asc_copy_ub2gm(dst, src, 1, static_cast<uint16_t>(blocks), 0, 0);
}
inline void asc_copy_ub2gm_sync(__gm__ void* dst, __ubuf__ void* src, uint32_t size) {
    asc_copy_ub2gm(dst, src, size);
    opgen_sim::capi::SyncPostProcess();
}

// ---- UB -> UB ------------------------------------------------------------------------------------
inline void asc_copy_ub2ub(__ubuf__ void* dst, __ubuf__ void* src, uint16_t n_burst, uint16_t len_burst,
                           uint16_t src_gap, uint16_t dst_gap) {
    namespace capi = opgen_sim::capi;
    constexpr const char* api = "asc_copy_ub2ub";
    capi::CheckBursts(api, n_burst);
    if (n_burst == 0 || len_burst == 0) return;
    const uint64_t len = static_cast<uint64_t>(len_burst) * opgen_sim::kBlockBytes;
    const auto d = capi::Ub(api, "dst", static_cast<uint8_t*>(dst),
                            capi::Span(n_burst, len, len + dst_gap * uint64_t{opgen_sim::kBlockBytes}));
    const auto s = capi::Ub(api, "src", static_cast<const uint8_t*>(src),
                            capi::Span(n_burst, len, len + src_gap * uint64_t{opgen_sim::kBlockBytes}));
    if (n_burst == 1) {
        AscendC::DataCopy(d, s, static_cast<uint32_t>(len));
    } else {
        AscendC::DataCopy(d, s, AscendC::DataCopyParams(n_burst, len_burst, src_gap, dst_gap));
    }
}
inline void asc_copy_ub2ub(__ubuf__ void* dst, __ubuf__ void* src, uint32_t size) {
    const uint32_t blocks = opgen_sim::capi::SizeBlocks("asc_copy_ub2ub", size);
    opgen_sim::capi::Ub("asc_copy_ub2ub", "dst", static_cast<uint8_t*>(dst), uint64_t{blocks} * 32);
    opgen_sim::capi::Ub("asc_copy_ub2ub", "src", static_cast<uint8_t*>(src), uint64_t{blocks} * 32);
    asc_copy_ub2ub(dst, src, 1, static_cast<uint16_t>(blocks), 0, 0);
}
inline void asc_copy_ub2ub_sync(__ubuf__ void* dst, __ubuf__ void* src, uint32_t size) {
    asc_copy_ub2ub(dst, src, size);
    opgen_sim::capi::SyncPostProcess();
}

// ---- unaligned lengths: DataCopyPad ----------------------------------------------------------------
template <typename T>
inline void asc_set_copy_pad_val(T pad_value) {
    static_assert(opgen_sim::capi::kAlignCopyType<T>,
                  "asc_set_copy_pad_val takes int8_t, uint8_t, int16_t, uint16_t, half, bfloat16_t, int32_t, "
                  "uint32_t or float");
    AscendC::SetPadValue<T>(pad_value);
}

template <typename T>
inline void asc_copy_gm2ub_align(__ubuf__ T* dst, __gm__ T* src, uint16_t n_burst, uint32_t len_burst,
                                 uint8_t left_padding_num, uint8_t right_padding_num, uint32_t src_gap,
                                 uint32_t dst_gap) {
    namespace capi = opgen_sim::capi;
    static_assert(capi::kAlignCopyType<T>,
                  "asc_copy_gm2ub_align takes int8_t, uint8_t, half, bfloat16_t, int16_t, uint16_t, float, int32_t or "
                  "uint32_t");
    constexpr const char* api = "asc_copy_gm2ub_align";
    capi::CheckBursts(api, n_burst);
    if (left_padding_num * sizeof(T) > 32 || right_padding_num * sizeof(T) > 32) {
        opgen_sim::Fail(opgen_sim::ErrorKind::Generic, api,
                        "left_padding_num / right_padding_num (" + std::to_string(left_padding_num) + ", " +
                            std::to_string(right_padding_num) + " elements) may not exceed 32 bytes each");
    }
    if (n_burst == 0 || len_burst == 0) return;
    const uint64_t row = opgen_sim::RoundUp((left_padding_num + right_padding_num) * sizeof(T) + len_burst, 32);
    const auto d = capi::Ub(api, "dst", dst, capi::Span(n_burst, row, row + dst_gap * uint64_t{32}) / sizeof(T));
    const auto s = capi::Gm(api, "src", src, capi::Span(n_burst, len_burst, uint64_t{len_burst} + src_gap) / sizeof(T));
    AscendC::DataCopyPad(d, s, AscendC::DataCopyExtParams(n_burst, len_burst, src_gap, dst_gap, 0),
                         AscendC::DataCopyPadExtParams<T>(false, left_padding_num, right_padding_num, T{}));
}
template <typename T>
inline void asc_copy_gm2ub_align(__ubuf__ T* dst, __gm__ T* src, uint32_t size) {
    asc_copy_gm2ub_align(dst, src, 1, size, 0, 0, 0, 0);
}
template <typename T>
inline void asc_copy_gm2ub_align_sync(__ubuf__ T* dst, __gm__ T* src, uint32_t size) {
    asc_copy_gm2ub_align(dst, src, size);
    opgen_sim::capi::SyncPostProcess();
}

template <typename T>
inline void asc_copy_ub2gm_align(__gm__ T* dst, __ubuf__ T* src, uint16_t n_burst, uint32_t len_burst,
                                 uint8_t left_padding_num, uint8_t right_padding_num, uint32_t src_gap,
                                 uint32_t dst_gap) {
    namespace capi = opgen_sim::capi;
    static_assert(capi::kAlignCopyType<T> || capi::kOneOf<T, int64_t, uint64_t, double>,
                  "asc_copy_ub2gm_align takes 8-, 16-, 32- or 64-bit elements");
    constexpr const char* api = "asc_copy_ub2gm_align";
    capi::CheckBursts(api, n_burst);
    if (left_padding_num != 0 || right_padding_num != 0) {
        opgen_sim::Fail(opgen_sim::ErrorKind::Generic, api,
                        "left_padding_num / right_padding_num of a copy to GM are not simulated (give 0)");
    }
    if (n_burst == 0 || len_burst == 0) return;
    const uint64_t row = opgen_sim::RoundUp(len_burst, 32);
    const auto s = capi::Ub(api, "src", src, capi::Span(n_burst, len_burst, row + src_gap * uint64_t{32}) / sizeof(T));
    const auto d = capi::Gm(api, "dst", dst, capi::Span(n_burst, len_burst, uint64_t{len_burst} + dst_gap) / sizeof(T));
    AscendC::DataCopyPad(d, s, AscendC::DataCopyExtParams(n_burst, len_burst, src_gap, dst_gap, 0));
}
template <typename T>
inline void asc_copy_ub2gm_align(__gm__ T* dst, __ubuf__ T* src, uint32_t size) {
    asc_copy_ub2gm_align(dst, src, 1, size, 0, 0, 0, 0);
}
template <typename T>
inline void asc_copy_ub2gm_align_sync(__gm__ T* dst, __ubuf__ T* src, uint32_t size) {
    asc_copy_ub2gm_align(dst, src, size);
    opgen_sim::capi::SyncPostProcess();
}

// ---- atomic modes of copies to GM (c_api/atomic/atomic.h) -------------------------------------------
#define OPGEN_CAPI_ATOMIC(NAME, SET, T) \
    inline void NAME() { AscendC::SET<T>(); }
OPGEN_CAPI_ATOMIC(asc_set_atomic_add_float, SetAtomicAdd, float)
OPGEN_CAPI_ATOMIC(asc_set_atomic_add_float16, SetAtomicAdd, half)
OPGEN_CAPI_ATOMIC(asc_set_atomic_add_bfloat, SetAtomicAdd, bfloat16_t)
OPGEN_CAPI_ATOMIC(asc_set_atomic_add_int, SetAtomicAdd, int32_t)
OPGEN_CAPI_ATOMIC(asc_set_atomic_add_int16, SetAtomicAdd, int16_t)
OPGEN_CAPI_ATOMIC(asc_set_atomic_add_int8, SetAtomicAdd, int8_t)
OPGEN_CAPI_ATOMIC(asc_set_atomic_max_float, SetAtomicMax, float)
OPGEN_CAPI_ATOMIC(asc_set_atomic_max_float16, SetAtomicMax, half)
OPGEN_CAPI_ATOMIC(asc_set_atomic_max_bfloat, SetAtomicMax, bfloat16_t)
OPGEN_CAPI_ATOMIC(asc_set_atomic_max_int, SetAtomicMax, int32_t)
OPGEN_CAPI_ATOMIC(asc_set_atomic_max_int16, SetAtomicMax, int16_t)
OPGEN_CAPI_ATOMIC(asc_set_atomic_max_int8, SetAtomicMax, int8_t)
OPGEN_CAPI_ATOMIC(asc_set_atomic_min_float, SetAtomicMin, float)
OPGEN_CAPI_ATOMIC(asc_set_atomic_min_float16, SetAtomicMin, half)
OPGEN_CAPI_ATOMIC(asc_set_atomic_min_bfloat, SetAtomicMin, bfloat16_t)
OPGEN_CAPI_ATOMIC(asc_set_atomic_min_int, SetAtomicMin, int32_t)
OPGEN_CAPI_ATOMIC(asc_set_atomic_min_int16, SetAtomicMin, int16_t)
OPGEN_CAPI_ATOMIC(asc_set_atomic_min_int8, SetAtomicMin, int8_t)
#undef OPGEN_CAPI_ATOMIC
inline void asc_set_atomic_none() { AscendC::SetAtomicNone(); }
