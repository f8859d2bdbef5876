// opgen NPU simulator: the basic API's scalar computations (reference "标量计算"): bit counts,
// leading zeros, sign-bit runs, the first set or clear bit, and the scalar Cast.
#pragma once

#include <cstdint>
#include <type_traits>

#include "vector.h"

namespace AscendC {

// GetBitCount<1>(v) / GetBitCount<0>(v): how many bits of v are 1 / 0.
template <int countValue>
inline int64_t GetBitCount(uint64_t valueIn) {
    static_assert(countValue == 0 || countValue == 1, "GetBitCount<countValue>: countValue must be 1 or 0");
    const int64_t ones = __builtin_popcountll(valueIn);
    return countValue == 1 ? ones : 64 - ones;
}
template <int countValue>
inline int64_t ScalarGetCountOfValue(uint64_t valueIn) {  // GetBitCount's former name
    return GetBitCount<countValue>(valueIn);
}

// CountLeadingZero(v): the 0 bits above v's highest 1 (64 for 0).
inline int64_t CountLeadingZero(uint64_t valueIn) { return valueIn == 0 ? 64 : __builtin_clzll(valueIn); }
inline int64_t ScalarCountLeadingZero(uint64_t valueIn) { return CountLeadingZero(valueIn); }  // former name

// CountBitsCntSameAsSignBit(v): the bits below the sign bit, from the highest down, equal to it
// (the reference's example: 0x0100000000000020 gives 6); -1 for 0 and -1, as the reference says.
inline int64_t CountBitsCntSameAsSignBit(int64_t valueIn) {
    return valueIn == 0 || valueIn == -1 ? -1 : __builtin_clrsbll(valueIn);
}

// GetSFFValue<1>(v) / GetSFFValue<0>(v): the position of v's lowest 1 / 0 bit, -1 if none.
template <int countValue>
inline int64_t GetSFFValue(uint64_t valueIn) {
    static_assert(countValue == 0 || countValue == 1, "GetSFFValue<countValue>: countValue must be 1 or 0");
    const uint64_t bits = countValue == 1 ? valueIn : ~valueIn;
    return bits == 0 ? -1 : __builtin_ctzll(bits);
}
template <int countValue>
inline int64_t ScalarGetSFFValue(uint64_t valueIn) {  // GetSFFValue's former name
    return GetSFFValue<countValue>(valueIn);
}

// Cast<T, U, roundMode>(v) (reference "Cast（float转half/int32_t）"): float to half with
// CAST_ODD, float to int32_t with CAST_ROUND, CAST_CEIL, CAST_FLOOR or CAST_RINT; the rounding is
// the vector Cast's (opgen_sim's "精度转换" table).
template <typename T, typename U, RoundMode roundMode>
inline U Cast(T valueIn) {
    static_assert(std::is_same_v<T, float> &&
                      ((std::is_same_v<U, half> && roundMode == RoundMode::CAST_ODD) ||
                       (std::is_same_v<U, int32_t> &&
                        (roundMode == RoundMode::CAST_ROUND || roundMode == RoundMode::CAST_CEIL ||
                         roundMode == RoundMode::CAST_FLOOR || roundMode == RoundMode::CAST_RINT))),
                  "scalar Cast<T, U, roundMode>: the A2/A3 converts float to half with CAST_ODD, and float to "
                  "int32_t with CAST_ROUND, CAST_CEIL, CAST_FLOOR or CAST_RINT");
    return cast_detail::Convert<U>(valueIn, roundMode);
}
template <typename T, typename U, RoundMode roundMode>
inline U ScalarCast(T valueIn) {  // Cast's former name
    return Cast<T, U, roundMode>(valueIn);
}

}  // namespace AscendC
