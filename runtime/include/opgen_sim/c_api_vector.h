// opgen NPU simulator: the C API's vector instructions (c_api/vector_compute/vector_compute.h,
// npu_arch 2201) on the C++ API's mask/repeat forms.
//
// Each instruction has the forms asc-devkit declares:
//  - the mask/repeat form (`repeat` repeats of 256 bytes, block and repeat strides in 32-byte
//    blocks): the C++ API's form with isSetMask = false, which takes the lanes from the mask
//    register (asc_set_vector_mask; counter mode after asc_set_mask_count);
//  - the count form (the first `count` elements): counter mode holding `count`, one issue of the
//    mask/repeat form with the default strides, normal mode again (capi::CountForm);
//  - the _sync form: the count form, then a barrier of all pipes.
// The element types of each instruction are asc-devkit's for npu_arch 2201; another one stops the
// build with the list. Every UB operand is checked over the elements the mask and repeats reach.
#pragma once

#include <type_traits>

#include "opgen_sim/c_api_base.h"

namespace opgen_sim {
namespace capi {

template <typename T>
inline constexpr bool kHalfFloat = kOneOf<T, half, float>;
template <typename T>
inline constexpr bool kArith = kOneOf<T, half, float, int16_t, int32_t>;
template <typename T>
inline constexpr bool kBitwise = kOneOf<T, int16_t, uint16_t>;
template <typename T>
inline constexpr bool kReluType = kOneOf<T, half, float, int32_t>;
template <typename T>
inline constexpr bool kAddReluType = kOneOf<T, half, float, int16_t>;
template <typename T>
inline constexpr bool kDupType =
    kOneOf<T, half, int16_t, uint16_t, bfloat16_t, float, int32_t, uint32_t>;

// Repeat strides of the unary forms are 16-bit parameters of an 8-bit field (UnaryRepeatParams).
inline uint8_t RepStride(const char* api, const char* what, uint16_t v) {
    if (v > 255) {
        Fail(ErrorKind::VectorCount, api, std::string(what) + " " + std::to_string(v) + " is outside [0, 255]");
    }
    return static_cast<uint8_t>(v);
}

// A two-source instruction's mask/repeat form: its operands checked over the lanes the mask
// register and `repeat` reach, then issue(dst, src0, src1, repeat, params).
template <typename T, typename Issue>
inline void Binary(const char* api, const T* dst, const T* src0, const T* src1, uint8_t repeat,
                   uint8_t dst_blk, uint8_t src0_blk, uint8_t src1_blk, uint8_t dst_rep, uint8_t src0_rep,
                   uint8_t src1_rep, Issue issue) {
    const MaskSpec m = ResolveMask<T, false>(api, false, 0, nullptr, repeat);
    const auto d = Ub(api, "dst", dst, ReachEnd<T>(m, dst_blk, dst_rep));
    const auto a = Ub(api, "src0", src0, ReachEnd<T>(m, src0_blk, src0_rep));
    const auto b = Ub(api, "src1", src1, ReachEnd<T>(m, src1_blk, src1_rep));
    issue(d, a, b, repeat, AscendC::BinaryRepeatParams(dst_blk, src0_blk, src1_blk, dst_rep, src0_rep, src1_rep));
}

// A one-source instruction's (or a conversion's) mask/repeat form: the mask counts lanes of the
// wider of D and S (Cast's rule; the same type for the others).
template <typename D, typename S, typename Issue>
inline void Unary(const char* api, const D* dst, const S* src, uint8_t repeat, uint16_t dst_blk, uint16_t src_blk,
                  uint16_t dst_rep, uint16_t src_rep, Issue issue) {
    using W = std::conditional_t<(sizeof(D) >= sizeof(S)), D, S>;
    const uint8_t drep = RepStride(api, "dst_repeat_stride", dst_rep);
    const uint8_t srep = RepStride(api, "src_repeat_stride", src_rep);
    const MaskSpec m = ResolveMask<W, false>(api, false, 0, nullptr, repeat);
    const auto d = Ub(api, "dst", dst, ReachEnd<D>(m, dst_blk, drep));
    const auto s = Ub(api, "src", src, ReachEnd<S>(m, src_blk, srep));
    issue(d, s, repeat, AscendC::UnaryRepeatParams(dst_blk, src_blk, drep, srep));
}

// The count forms' repeat strides: a repeat's lanes of D and of S, each operand contiguous.
template <typename D, typename S>
constexpr uint16_t DefaultRepStride() {
    constexpr uint64_t lanes = kRepeatBytes / (sizeof(D) >= sizeof(S) ? sizeof(D) : sizeof(S));
    return static_cast<uint16_t>(lanes * sizeof(D) / kBlockBytes);
}

// A reduction's mask/repeat form: each repeat writes `per` elements, dst_rep units of them apart.
template <typename T, typename Issue>
inline void Reduce(const char* api, const T* dst, const T* src, uint8_t repeat, uint16_t dst_rep, uint16_t src_blk,
                   uint16_t src_rep, uint64_t per, Issue issue) {
    const MaskSpec m = ResolveMask<T, false>(api, false, 0, nullptr, repeat);
    const uint64_t reach = m.repeats > 0 ? (static_cast<uint64_t>(m.repeats) - 1) * dst_rep * per + per : 0;
    const auto d = Ub(api, "dst", dst, reach);
    const auto s = Ub(api, "src", src, ReachEnd<T>(m, src_blk, src_rep));
    issue(d, s, repeat, dst_rep, src_blk, src_rep);
}

// sub_scalar is add_scalar of 0 - value, computed as asc-devkit does (float for half; integers wrap).
template <typename T>
inline T Negated(T v) {
    if constexpr (std::is_integral_v<T>) {
        return static_cast<T>(uint64_t{0} - static_cast<uint64_t>(v));
    } else {
        return static_cast<T>(0 - static_cast<float>(v));
    }
}

}  // namespace capi
}  // namespace opgen_sim

// ---- two sources -------------------------------------------------------------------------------------
#define OPGEN_CAPI_BINARY(NAME, OP, OK, TYPES)                                                                \
    template <typename T>                                                                                     \
    inline void NAME(__ubuf__ T* dst, __ubuf__ T* src0, __ubuf__ T* src1, uint8_t repeat,                    \
                     uint8_t dst_block_stride, uint8_t src0_block_stride, uint8_t src1_block_stride,          \
                     uint8_t dst_repeat_stride, uint8_t src0_repeat_stride, uint8_t src1_repeat_stride) {      \
        static_assert(opgen_sim::capi::OK<T>, #NAME " takes " TYPES " (npu_arch 2201)");                      \
        opgen_sim::capi::Binary(#NAME, dst, src0, src1, repeat, dst_block_stride, src0_block_stride,          \
                                src1_block_stride, dst_repeat_stride, src0_repeat_stride, src1_repeat_stride,  \
                                [](const auto& d, const auto& a, const auto& b, uint8_t r, const auto& p) {    \
                                    AscendC::OP<T, false>(d, a, b, AscendC::MASK_PLACEHOLDER, r, p);           \
                                });                                                                           \
    }                                                                                                         \
    template <typename T>                                                                                     \
    inline void NAME(__ubuf__ T* dst, __ubuf__ T* src0, __ubuf__ T* src1, uint32_t count) {                   \
        opgen_sim::capi::CountForm(count, [&] { NAME(dst, src0, src1, 1, 1, 1, 1, 8, 8, 8); });               \
    }                                                                                                         \
    template <typename T>                                                                                     \
    inline void NAME##_sync(__ubuf__ T* dst, __ubuf__ T* src0, __ubuf__ T* src1, uint32_t count) {            \
        NAME(dst, src0, src1, count);                                                                         \
        opgen_sim::capi::SyncPostProcess();                                                                   \
    }
OPGEN_CAPI_BINARY(asc_add, Add, kArith, "half, float, int16_t or int32_t")
OPGEN_CAPI_BINARY(asc_sub, Sub, kArith, "half, float, int16_t or int32_t")
OPGEN_CAPI_BINARY(asc_mul, Mul, kArith, "half, float, int16_t or int32_t")
OPGEN_CAPI_BINARY(asc_max, Max, kArith, "half, float, int16_t or int32_t")
OPGEN_CAPI_BINARY(asc_min, Min, kArith, "half, float, int16_t or int32_t")
OPGEN_CAPI_BINARY(asc_div, Div, kHalfFloat, "half or float")
OPGEN_CAPI_BINARY(asc_and, And, kBitwise, "int16_t or uint16_t")
OPGEN_CAPI_BINARY(asc_or, Or, kBitwise, "int16_t or uint16_t")
OPGEN_CAPI_BINARY(asc_add_relu, AddRelu, kAddReluType, "half, float or int16_t (the same type in and out)")
OPGEN_CAPI_BINARY(asc_sub_relu, SubRelu, kAddReluType, "half, float or int16_t (the same type in and out)")
#undef OPGEN_CAPI_BINARY

// ---- a source and a scalar -----------------------------------------------------------------------
#define OPGEN_CAPI_SCALAR(NAME, OP, VALUE, OK, TYPES)                                                        \
    template <typename T>                                                                                     \
    inline void NAME(__ubuf__ T* dst, __ubuf__ T* src, typename opgen_sim::Id<T>::type value, uint8_t repeat, \
                     uint16_t dst_block_stride, uint16_t src_block_stride, uint16_t dst_repeat_stride,        \
                     uint16_t src_repeat_stride) {                                                            \
        static_assert(opgen_sim::capi::OK<T>, #NAME " takes " TYPES " (npu_arch 2201)");                      \
        const T v = VALUE;                                                                                    \
        opgen_sim::capi::Unary(#NAME, dst, src, repeat, dst_block_stride, src_block_stride, dst_repeat_stride, \
                               src_repeat_stride, [v](const auto& d, const auto& s, uint8_t r, const auto& p) { \
                                   AscendC::OP<T, false>(d, s, v, AscendC::MASK_PLACEHOLDER, r, p);            \
                               });                                                                            \
    }                                                                                                         \
    template <typename T>                                                                                     \
    inline void NAME(__ubuf__ T* dst, __ubuf__ T* src, typename opgen_sim::Id<T>::type value, uint32_t count) { \
        opgen_sim::capi::CountForm(count, [&] { NAME(dst, src, value, 1, 1, 1, 8, 8); });                     \
    }                                                                                                         \
    template <typename T>                                                                                     \
    inline void NAME##_sync(__ubuf__ T* dst, __ubuf__ T* src, typename opgen_sim::Id<T>::type value,         \
                            uint32_t count) {                                                                 \
        NAME(dst, src, value, count);                                                                         \
        opgen_sim::capi::SyncPostProcess();                                                                   \
    }
OPGEN_CAPI_SCALAR(asc_add_scalar, Adds, value, kArith, "half, float, int16_t or int32_t")
OPGEN_CAPI_SCALAR(asc_sub_scalar, Adds, opgen_sim::capi::Negated<T>(value), kArith, "half, float, int16_t or int32_t")
OPGEN_CAPI_SCALAR(asc_mul_scalar, Muls, value, kArith, "half, float, int16_t or int32_t")
OPGEN_CAPI_SCALAR(asc_max_scalar, Maxs, value, kArith, "half, float, int16_t or int32_t")
OPGEN_CAPI_SCALAR(asc_min_scalar, Mins, value, kArith, "half, float, int16_t or int32_t")
OPGEN_CAPI_SCALAR(asc_leakyrelu, LeakyRelu, value, kHalfFloat, "half or float")
#undef OPGEN_CAPI_SCALAR

// ---- one source ------------------------------------------------------------------------------------
#define OPGEN_CAPI_UNARY(NAME, OP, OK, TYPES)                                                                \
    template <typename T>                                                                                     \
    inline void NAME(__ubuf__ T* dst, __ubuf__ T* src, uint8_t repeat, uint16_t dst_block_stride,            \
                     uint16_t src_block_stride, uint16_t dst_repeat_stride, uint16_t src_repeat_stride) {     \
        static_assert(opgen_sim::capi::OK<T>, #NAME " takes " TYPES " (npu_arch 2201)");                      \
        opgen_sim::capi::Unary(#NAME, dst, src, repeat, dst_block_stride, src_block_stride, dst_repeat_stride, \
                               src_repeat_stride, [](const auto& d, const auto& s, uint8_t r, const auto& p) {  \
                                   AscendC::OP<T, false>(d, s, AscendC::MASK_PLACEHOLDER, r, p);               \
                               });                                                                            \
    }                                                                                                         \
    template <typename T>                                                                                     \
    inline void NAME(__ubuf__ T* dst, __ubuf__ T* src, uint32_t count) {                                      \
        opgen_sim::capi::CountForm(count, [&] { NAME(dst, src, 1, 1, 1, 8, 8); });                            \
    }                                                                                                         \
    template <typename T>                                                                                     \
    inline void NAME##_sync(__ubuf__ T* dst, __ubuf__ T* src, uint32_t count) {                               \
        NAME(dst, src, count);                                                                                \
        opgen_sim::capi::SyncPostProcess();                                                                   \
    }
OPGEN_CAPI_UNARY(asc_abs, Abs, kHalfFloat, "half or float")
OPGEN_CAPI_UNARY(asc_exp, Exp, kHalfFloat, "half or float")
OPGEN_CAPI_UNARY(asc_log, Ln, kHalfFloat, "half or float")
OPGEN_CAPI_UNARY(asc_sqrt, Sqrt, kHalfFloat, "half or float")
OPGEN_CAPI_UNARY(asc_rsqrt, Rsqrt, kHalfFloat, "half or float")
OPGEN_CAPI_UNARY(asc_rcp, Reciprocal, kHalfFloat, "half or float")
OPGEN_CAPI_UNARY(asc_relu, Relu, kReluType, "half, float or int32_t")
OPGEN_CAPI_UNARY(asc_not, Not, kBitwise, "int16_t or uint16_t")
#undef OPGEN_CAPI_UNARY

// ---- asc_axpy: dst = src * value + dst ---------------------------------------------------------------
template <typename T>
inline void asc_axpy(__ubuf__ T* dst, __ubuf__ T* src, typename opgen_sim::Id<T>::type value, uint8_t repeat,
                     uint16_t dst_block_stride, uint16_t src_block_stride, uint16_t dst_repeat_stride,
                     uint16_t src_repeat_stride) {
    static_assert(opgen_sim::capi::kHalfFloat<T>, "asc_axpy takes half or float (or float dst, half src)");
    const T v = value;
    opgen_sim::capi::Unary("asc_axpy", dst, src, repeat, dst_block_stride, src_block_stride, dst_repeat_stride,
                           src_repeat_stride, [v](const auto& d, const auto& s, uint8_t r, const auto& p) {
                               AscendC::Axpy<T, T, false>(d, s, v, AscendC::MASK_PLACEHOLDER, r, p);
                           });
}
template <typename T>
inline void asc_axpy(__ubuf__ T* dst, __ubuf__ T* src, typename opgen_sim::Id<T>::type value, uint32_t count) {
    opgen_sim::capi::CountForm(count, [&] { asc_axpy(dst, src, value, 1, 1, 1, 8, 8); });
}
// float dst, half src: 64 lanes a repeat, the half source read half a repeat's bytes at a time; the
// count form only (as the C++ API's Axpy simulates it)
inline void asc_axpy(__ubuf__ float* dst, __ubuf__ half* src, half value, uint32_t count) {
    namespace capi = opgen_sim::capi;
    const auto d = capi::Ub("asc_axpy", "dst", dst, count);
    const auto s = capi::Ub("asc_axpy", "src", src, count);
    capi::CountForm(count, [&] { AscendC::Axpy(d, s, value, static_cast<int32_t>(count)); });
}
template <typename T, typename U>
inline void asc_axpy_sync(__ubuf__ T* dst, __ubuf__ U* src, typename opgen_sim::Id<U>::type value, uint32_t count) {
    asc_axpy(dst, src, value, count);
    opgen_sim::capi::SyncPostProcess();
}

// ---- reductions: of each repeat (vcadd / vcmax / vcmin), of each data block (vcgadd / ...) -------------
// asc_repeat_reduce_max/min_<order> write the value and its lane index (as a T's bits) in the order of
// the name, or one of them (only_value / only_index); dst_repeat_stride counts those results.
// asc_datablock_reduce_* write a repeat's 8 block results together, dst_repeat_stride counting 8.
// The count form reduces each repeat's share of the first `count` elements (one result each).
#define OPGEN_CAPI_REDUCE(NAME, PER, CALL)                                                                     \
    template <typename T>                                                                                     \
    inline void NAME(__ubuf__ T* dst, __ubuf__ T* src, uint8_t repeat, uint16_t dst_repeat_stride,           \
                     uint16_t src_block_stride, uint16_t src_repeat_stride) {                                 \
        static_assert(opgen_sim::capi::kHalfFloat<T>, #NAME " takes half or float (npu_arch 2201)");           \
        opgen_sim::capi::Reduce(#NAME, dst, src, repeat, dst_repeat_stride, src_block_stride, src_repeat_stride, \
                                PER, [](const auto& d, const auto& s, int32_t r, int32_t dr, int32_t sb, int32_t sr) { \
                                    CALL;                                                                     \
                                });                                                                           \
    }                                                                                                         \
    template <typename T>                                                                                     \
    inline void NAME(__ubuf__ T* dst, __ubuf__ T* src, uint32_t count) {                                      \
        opgen_sim::capi::CountForm(count, [&] { NAME(dst, src, 1, 1, 1, 8); });                               \
    }                                                                                                         \
    template <typename T>                                                                                     \
    inline void NAME##_sync(__ubuf__ T* dst, __ubuf__ T* src, uint32_t count) {                               \
        NAME(dst, src, count);                                                                                \
        opgen_sim::capi::SyncPostProcess();                                                                   \
    }
#define OPGEN_CAPI_WHOLE(OP, ORDER) AscendC::OP<T, false>(d, s, int32_t{0}, r, dr, sb, sr, AscendC::ReduceOrder::ORDER)
OPGEN_CAPI_REDUCE(asc_repeat_reduce_sum, 1, (AscendC::WholeReduceSum<T, false>(d, s, int32_t{0}, r, dr, sb, sr)))
OPGEN_CAPI_REDUCE(asc_repeat_reduce_max_value_index, 2, OPGEN_CAPI_WHOLE(WholeReduceMax, ORDER_VALUE_INDEX))
OPGEN_CAPI_REDUCE(asc_repeat_reduce_max_index_value, 2, OPGEN_CAPI_WHOLE(WholeReduceMax, ORDER_INDEX_VALUE))
OPGEN_CAPI_REDUCE(asc_repeat_reduce_max_only_value, 1, OPGEN_CAPI_WHOLE(WholeReduceMax, ORDER_ONLY_VALUE))
OPGEN_CAPI_REDUCE(asc_repeat_reduce_max_only_index, 2, OPGEN_CAPI_WHOLE(WholeReduceMax, ORDER_ONLY_INDEX))
OPGEN_CAPI_REDUCE(asc_repeat_reduce_min_value_index, 2, OPGEN_CAPI_WHOLE(WholeReduceMin, ORDER_VALUE_INDEX))
OPGEN_CAPI_REDUCE(asc_repeat_reduce_min_index_value, 2, OPGEN_CAPI_WHOLE(WholeReduceMin, ORDER_INDEX_VALUE))
OPGEN_CAPI_REDUCE(asc_repeat_reduce_min_only_value, 1, OPGEN_CAPI_WHOLE(WholeReduceMin, ORDER_ONLY_VALUE))
OPGEN_CAPI_REDUCE(asc_repeat_reduce_min_only_index, 2, OPGEN_CAPI_WHOLE(WholeReduceMin, ORDER_ONLY_INDEX))
OPGEN_CAPI_REDUCE(asc_datablock_reduce_sum, 8, (AscendC::BlockReduceSum<T, false>(d, s, r, int32_t{0}, dr, sb, sr)))
OPGEN_CAPI_REDUCE(asc_datablock_reduce_max, 8, (AscendC::BlockReduceMax<T, false>(d, s, r, int32_t{0}, dr, sb, sr)))
OPGEN_CAPI_REDUCE(asc_datablock_reduce_min, 8, (AscendC::BlockReduceMin<T, false>(d, s, r, int32_t{0}, dr, sb, sr)))
#undef OPGEN_CAPI_WHOLE
#undef OPGEN_CAPI_REDUCE

// ---- compare and select -------------------------------------------------------------------------------
// asc_<cmp>(dst, src0, src1, repeat, ...): a bit per lane into dst (uint8_t), every lane of `repeat`
// repeats (the mask and dst's strides are not used on the A2, Compare); asc_<cmp>(src0, src1, ...):
// one repeat, the lanes of the mask register, into the CmpMask register (asc_get_cmp_mask reads it,
// asc_set_cmp_mask loads it); asc_<cmp>_scalar against a scalar. asc_select takes src0's lane where
// the CmpMask register's bit is 1, src1's where it is 0 (vsel, mode VSEL_CMPMASK_SPR).
namespace opgen_sim {
namespace capi {
template <typename T>
inline void CompareBits(const char* api, AscendC::CMPMODE mode, const uint8_t* dst, const T* src0, const T* src1,
                        uint8_t repeat, const AscendC::BinaryRepeatParams& p) {
    const MaskSpec m = AllLanes<T>(api, repeat);
    const auto d = Ub(api, "dst", dst, (static_cast<uint64_t>(m.repeats) * m.lanes + 7) / 8);
    const auto a = Ub(api, "src0", src0, ReachEnd<T>(m, p.src0BlkStride, p.src0RepStride));
    const auto b = Ub(api, "src1", src1, ReachEnd<T>(m, p.src1BlkStride, p.src1RepStride));
    AscendC::Compare<T, uint8_t, false>(d, a, b, mode, AscendC::MASK_PLACEHOLDER, repeat, p);
}
template <typename T>
inline void CompareRegister(const char* api, AscendC::CMPMODE mode, const T* src0, const T* src1,
                            const AscendC::BinaryRepeatParams& p) {
    const MaskSpec m = ResolveMask<T, false>(api, false, 0, nullptr, 1);
    const auto a = Ub(api, "src0", src0, ReachEnd<T>(m, p.src0BlkStride, p.src0RepStride));
    const auto b = Ub(api, "src1", src1, ReachEnd<T>(m, p.src1BlkStride, p.src1RepStride));
    AscendC::Compare<T, false>(a, b, mode, AscendC::MASK_PLACEHOLDER, p);
}
template <typename T>
inline void CompareScalarBits(const char* api, AscendC::CMPMODE mode, const uint8_t* dst, const T* src, T value,
                              uint8_t repeat, uint16_t dst_blk, uint16_t src_blk, uint16_t dst_rep, uint16_t src_rep) {
    const MaskSpec m = AllLanes<T>(api, repeat);
    const AscendC::UnaryRepeatParams p(dst_blk, src_blk, RepStride(api, "dst_repeat_stride", dst_rep),
                                       RepStride(api, "src_repeat_stride", src_rep));
    const auto d = Ub(api, "dst", dst, (static_cast<uint64_t>(m.repeats) * m.lanes + 7) / 8);
    const auto s = Ub(api, "src", src, ReachEnd<T>(m, p.srcBlkStride, p.srcRepStride));
    AscendC::CompareScalar<T, uint8_t, false>(d, s, value, mode, AscendC::MASK_PLACEHOLDER, repeat, p);
}
}  // namespace capi
}  // namespace opgen_sim

#define OPGEN_CAPI_BINARY_PARAMS                                                                              \
    uint8_t repeat, uint8_t dst_block_stride, uint8_t src0_block_stride, uint8_t src1_block_stride,           \
        uint8_t dst_repeat_stride, uint8_t src0_repeat_stride, uint8_t src1_repeat_stride
#define OPGEN_CAPI_BINARY_ARGS                                                                                \
    repeat, dst_block_stride, src0_block_stride, src1_block_stride, dst_repeat_stride, src0_repeat_stride,    \
        src1_repeat_stride
#define OPGEN_CAPI_REPEAT_PARAMS                                                                              \
    AscendC::BinaryRepeatParams(dst_block_stride, src0_block_stride, src1_block_stride, dst_repeat_stride,    \
                                src0_repeat_stride, src1_repeat_stride)
#define OPGEN_CAPI_UNARY_PARAMS                                                                               \
    uint8_t repeat, uint16_t dst_block_stride, uint16_t src_block_stride, uint16_t dst_repeat_stride,         \
        uint16_t src_repeat_stride
#define OPGEN_CAPI_UNARY_ARGS repeat, dst_block_stride, src_block_stride, dst_repeat_stride, src_repeat_stride
#define OPGEN_CAPI_COMPARE(NAME, MODE, OK, TYPES)                                                              \
    template <typename T>                                                                                     \
    inline void NAME(__ubuf__ uint8_t* dst, __ubuf__ T* src0, __ubuf__ T* src1, OPGEN_CAPI_BINARY_PARAMS) {   \
        static_assert(OK, #NAME " takes " TYPES " (npu_arch 2201)");                                          \
        opgen_sim::capi::CompareBits(#NAME, AscendC::CMPMODE::MODE, dst, src0, src1, repeat,                  \
                                     OPGEN_CAPI_REPEAT_PARAMS);                                               \
    }                                                                                                         \
    template <typename T>                                                                                     \
    inline void NAME##_sync(__ubuf__ uint8_t* dst, __ubuf__ T* src0, __ubuf__ T* src1, OPGEN_CAPI_BINARY_PARAMS) { \
        NAME(dst, src0, src1, OPGEN_CAPI_BINARY_ARGS);                                                        \
        opgen_sim::capi::SyncPostProcess();                                                                   \
    }                                                                                                         \
    /* into the CmpMask register: one repeat (the register holds one repeat's bits) */                        \
    template <typename T>                                                                                     \
    inline void NAME(__ubuf__ T* src0, __ubuf__ T* src1, OPGEN_CAPI_BINARY_PARAMS) {                          \
        static_assert(opgen_sim::capi::kHalfFloat<T>, #NAME " into the CmpMask register takes half or float"); \
        (void)repeat;                                                                                         \
        opgen_sim::capi::CompareRegister(#NAME, AscendC::CMPMODE::MODE, src0, src1, OPGEN_CAPI_REPEAT_PARAMS); \
    }                                                                                                         \
    template <typename T>                                                                                     \
    inline void NAME##_sync(__ubuf__ T* src0, __ubuf__ T* src1, OPGEN_CAPI_BINARY_PARAMS) {                   \
        NAME(src0, src1, OPGEN_CAPI_BINARY_ARGS);                                                             \
        opgen_sim::capi::SyncPostProcess();                                                                   \
    }                                                                                                         \
    template <typename T>                                                                                     \
    inline void NAME##_scalar(__ubuf__ uint8_t* dst, __ubuf__ T* src, typename opgen_sim::Id<T>::type value,  \
                              OPGEN_CAPI_UNARY_PARAMS) {                                                      \
        static_assert(OK, #NAME "_scalar takes " TYPES " (npu_arch 2201)");                                   \
        opgen_sim::capi::CompareScalarBits<T>(#NAME "_scalar", AscendC::CMPMODE::MODE, dst, src, value,       \
                                              OPGEN_CAPI_UNARY_ARGS);                                         \
    }                                                                                                         \
    template <typename T>                                                                                     \
    inline void NAME##_scalar_sync(__ubuf__ uint8_t* dst, __ubuf__ T* src, typename opgen_sim::Id<T>::type value, \
                                   OPGEN_CAPI_UNARY_PARAMS) {                                                 \
        NAME##_scalar(dst, src, value, OPGEN_CAPI_UNARY_ARGS);                                                \
        opgen_sim::capi::SyncPostProcess();                                                                   \
    }
OPGEN_CAPI_COMPARE(asc_eq, EQ, (opgen_sim::capi::kOneOf<T, half, float, int32_t>), "half, float or int32_t")
OPGEN_CAPI_COMPARE(asc_ne, NE, opgen_sim::capi::kHalfFloat<T>, "half or float")
OPGEN_CAPI_COMPARE(asc_gt, GT, opgen_sim::capi::kHalfFloat<T>, "half or float")
OPGEN_CAPI_COMPARE(asc_ge, GE, opgen_sim::capi::kHalfFloat<T>, "half or float")
OPGEN_CAPI_COMPARE(asc_lt, LT, opgen_sim::capi::kHalfFloat<T>, "half or float")
OPGEN_CAPI_COMPARE(asc_le, LE, opgen_sim::capi::kHalfFloat<T>, "half or float")
#undef OPGEN_CAPI_COMPARE
#undef OPGEN_CAPI_UNARY_ARGS
#undef OPGEN_CAPI_UNARY_PARAMS
#undef OPGEN_CAPI_REPEAT_PARAMS
#undef OPGEN_CAPI_BINARY_ARGS
#undef OPGEN_CAPI_BINARY_PARAMS

// The 128-bit CmpMask register to / from 16 bytes of UB.
inline void asc_get_cmp_mask(__ubuf__ void* dst) {
    AscendC::GetCmpMask(opgen_sim::capi::Ub("asc_get_cmp_mask", "dst", static_cast<uint8_t*>(dst), 16));
}
inline void asc_set_cmp_mask(__ubuf__ void* sel_mask) {
    AscendC::SetCmpMask(opgen_sim::capi::Ub("asc_set_cmp_mask", "sel_mask", static_cast<uint8_t*>(sel_mask), 16));
}

template <typename T>
inline void asc_select(__ubuf__ T* dst, __ubuf__ T* src0, __ubuf__ T* src1, uint8_t repeat, uint8_t dst_block_stride,
                       uint8_t src0_block_stride, uint8_t src1_block_stride, uint8_t dst_repeat_stride,
                       uint8_t src0_repeat_stride, uint8_t src1_repeat_stride) {
    static_assert(opgen_sim::capi::kHalfFloat<T>, "asc_select takes half or float (npu_arch 2201)");
    opgen_sim::capi::Binary("asc_select", dst, src0, src1, repeat, dst_block_stride, src0_block_stride,
                            src1_block_stride, dst_repeat_stride, src0_repeat_stride, src1_repeat_stride,
                            [](const auto& d, const auto& a, const auto& b, uint8_t r, const auto& p) {
                                const opgen_sim::MaskSpec m =
                                    opgen_sim::ResolveMask<T, false>("asc_select", false, 0, nullptr, r);
                                opgen_sim::SelectRep("asc_select", d, &d, a, b,
                                                     AscendC::SELMODE::VSEL_CMPMASK_SPR, m, p);
                            });
}
template <typename T>
inline void asc_select(__ubuf__ T* dst, __ubuf__ T* src0, __ubuf__ T* src1, uint32_t count) {
    opgen_sim::capi::CountForm(count, [&] { asc_select(dst, src0, src1, 1, 1, 1, 1, 8, 8, 8); });
}
template <typename T>
inline void asc_select_sync(__ubuf__ T* dst, __ubuf__ T* src0, __ubuf__ T* src1, uint32_t count) {
    asc_select(dst, src0, src1, count);
    opgen_sim::capi::SyncPostProcess();
}

// ---- asc_duplicate: a scalar into every lane -----------------------------------------------------------
template <typename T>
inline void asc_duplicate(__ubuf__ T* dst, typename opgen_sim::Id<T>::type src, uint8_t repeat,
                          uint16_t dst_block_stride, uint16_t dst_repeat_stride) {
    static_assert(opgen_sim::capi::kDupType<T>,
                  "asc_duplicate takes half, int16_t, uint16_t, bfloat16_t, float, int32_t or uint32_t "
                  "(npu_arch 2201)");
    namespace capi = opgen_sim::capi;
    constexpr const char* api = "asc_duplicate";
    const uint8_t rep = capi::RepStride(api, "dst_repeat_stride", dst_repeat_stride);
    const opgen_sim::MaskSpec m = opgen_sim::ResolveMask<T, false>(api, false, 0, nullptr, repeat);
    const auto d = capi::Ub(api, "dst", dst, opgen_sim::ReachEnd<T>(m, dst_block_stride, rep));
    AscendC::Duplicate<T, false>(d, static_cast<T>(src), AscendC::MASK_PLACEHOLDER, repeat, dst_block_stride, rep);
}
template <typename T>
inline void asc_duplicate(__ubuf__ T* dst, typename opgen_sim::Id<T>::type src, uint32_t count) {
    opgen_sim::capi::CountForm(count, [&] { asc_duplicate(dst, src, 1, 1, 8); });
}
template <typename T>
inline void asc_duplicate_sync(__ubuf__ T* dst, typename opgen_sim::Id<T>::type src, uint32_t count) {
    asc_duplicate(dst, src, count);
    opgen_sim::capi::SyncPostProcess();
}

// ---- conversions (vconv): asc_<S>2<D>[_mode] ---------------------------------------------------------
// The suffix is the rounding (Cast's RoundMode): none CAST_NONE (RINT where the value does not fit),
// _rn RINT, _rna ROUND, _rd FLOOR, _ru CEIL, _rz TRUNC, _ro ODD. Saturation, the pairs and their modes
// are Cast's (vector.h, cast_detail).
#define OPGEN_CAPI_CONVERT(NAME, D, S, MODE)                                                                  \
    inline void NAME(__ubuf__ D* dst, __ubuf__ S* src, uint8_t repeat, uint16_t dst_block_stride,            \
                     uint16_t src_block_stride, uint16_t dst_repeat_stride, uint16_t src_repeat_stride) {     \
        opgen_sim::capi::Unary(#NAME, dst, src, repeat, dst_block_stride, src_block_stride, dst_repeat_stride, \
                               src_repeat_stride, [](const auto& d, const auto& s, uint8_t r, const auto& p) {  \
                                   AscendC::Cast<D, S, false>(d, s, AscendC::RoundMode::MODE,                  \
                                                              AscendC::MASK_PLACEHOLDER, r, p);                \
                               });                                                                            \
    }                                                                                                         \
    inline void NAME(__ubuf__ D* dst, __ubuf__ S* src, uint32_t count) {                                      \
        opgen_sim::capi::CountForm(count, [&] {                                                               \
            NAME(dst, src, 1, 1, 1, opgen_sim::capi::DefaultRepStride<D, S>(),                                \
                 opgen_sim::capi::DefaultRepStride<S, D>());                                                  \
        });                                                                                                   \
    }                                                                                                         \
    inline void NAME##_sync(__ubuf__ D* dst, __ubuf__ S* src, uint32_t count) {                               \
        NAME(dst, src, count);                                                                                \
        opgen_sim::capi::SyncPostProcess();                                                                   \
    }
// the five modes of the RFCRT pairs: _rn _rna _rd _ru _rz
#define OPGEN_CAPI_CONVERT_RFCRT(NAME, D, S)                 \
    OPGEN_CAPI_CONVERT(NAME##_rn, D, S, CAST_RINT)           \
    OPGEN_CAPI_CONVERT(NAME##_rna, D, S, CAST_ROUND)         \
    OPGEN_CAPI_CONVERT(NAME##_rd, D, S, CAST_FLOOR)          \
    OPGEN_CAPI_CONVERT(NAME##_ru, D, S, CAST_CEIL)           \
    OPGEN_CAPI_CONVERT(NAME##_rz, D, S, CAST_TRUNC)

OPGEN_CAPI_CONVERT(asc_float2half, half, float, CAST_NONE)
OPGEN_CAPI_CONVERT_RFCRT(asc_float2half, half, float)
OPGEN_CAPI_CONVERT(asc_float2half_ro, half, float, CAST_ODD)
OPGEN_CAPI_CONVERT(asc_half2float, float, half, CAST_NONE)
OPGEN_CAPI_CONVERT_RFCRT(asc_float2bfloat16, bfloat16_t, float)
OPGEN_CAPI_CONVERT(asc_bfloat162float, float, bfloat16_t, CAST_NONE)
OPGEN_CAPI_CONVERT_RFCRT(asc_bfloat162int32, int32_t, bfloat16_t)
OPGEN_CAPI_CONVERT_RFCRT(asc_float2float, float, float)
OPGEN_CAPI_CONVERT_RFCRT(asc_float2int16, int16_t, float)
OPGEN_CAPI_CONVERT_RFCRT(asc_float2int32, int32_t, float)
OPGEN_CAPI_CONVERT_RFCRT(asc_float2int64, int64_t, float)
OPGEN_CAPI_CONVERT_RFCRT(asc_half2int16, int16_t, half)
OPGEN_CAPI_CONVERT_RFCRT(asc_half2int32, int32_t, half)
OPGEN_CAPI_CONVERT(asc_half2int8, int8_t, half, CAST_NONE)
OPGEN_CAPI_CONVERT_RFCRT(asc_half2int8, int8_t, half)
OPGEN_CAPI_CONVERT(asc_half2uint8, uint8_t, half, CAST_NONE)
OPGEN_CAPI_CONVERT_RFCRT(asc_half2uint8, uint8_t, half)
OPGEN_CAPI_CONVERT(asc_int162float, float, int16_t, CAST_NONE)
OPGEN_CAPI_CONVERT(asc_int162half, half, int16_t, CAST_NONE)
OPGEN_CAPI_CONVERT_RFCRT(asc_int162half, half, int16_t)
OPGEN_CAPI_CONVERT(asc_int322float, float, int32_t, CAST_NONE)
OPGEN_CAPI_CONVERT_RFCRT(asc_int322float, float, int32_t)
OPGEN_CAPI_CONVERT(asc_int322int16, int16_t, int32_t, CAST_NONE)
OPGEN_CAPI_CONVERT(asc_int322int64, int64_t, int32_t, CAST_NONE)
OPGEN_CAPI_CONVERT(asc_int642int32, int32_t, int64_t, CAST_NONE)
OPGEN_CAPI_CONVERT_RFCRT(asc_int642float, float, int64_t)
OPGEN_CAPI_CONVERT(asc_int82half, half, int8_t, CAST_NONE)
OPGEN_CAPI_CONVERT(asc_uint82half, half, uint8_t, CAST_NONE)
#undef OPGEN_CAPI_CONVERT_RFCRT
#undef OPGEN_CAPI_CONVERT
