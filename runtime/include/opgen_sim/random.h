// opgen NPU simulator: the random-number advanced API (adv_api/math/philox.h): PhiloxRandom in its
// two forms, with PhiloxKey, PhiloxCounter and PhiloxRandomParams.
//
// PhiloxRandom.md lists the Ascend 950 only; for npu arch 2201 CANN's header compiles the call to
// nothing. The simulator runs it on every target (as it does the math_more.h APIs and Sort with a
// SortConfig), with the reference's algorithm: Philox4x32 with `Rounds` rounds (7 or 10) on a
// 128-bit counter C (philoxCounter, word 0 the least significant) and a 64-bit key (philoxKey).
// One round maps (c0, c1, c2, c3) with key (k0, k1) to
//   (hi(M1 * c2) ^ c1 ^ k0, lo(M1 * c2), hi(M0 * c0) ^ c3 ^ k1, lo(M0 * c0))
// with M0 = 0xD2511F53, M1 = 0xCD9E8D57 (32 x 32 -> 64-bit products), and the key is bumped by
// (0x9E3779B9, 0xBB67AE85) between rounds. Where the reference is silent the simulator follows
// CANN's implementation (impl/adv_api/detail/math/philox/philox_3510_impl.h):
// - element e of the output is word e % 4 of the block of counter C + e / 4 (a 128-bit add with
//   carry, wrapping); a count that is not a multiple of 4 stores the first words of its last block;
// - stride mode writes row r's `column` values at dst[r * column] (a compact row x column result)
//   from counters C + (r * stride + j) / 4, so the counters of stride - column values a row are
//   skipped (row == 1 or stride == column is the continuous form with row * column values);
// - T = float takes a word's 23 low bits as the mantissa of a float in [1, 2) and subtracts 1.0f
//   (exact), a value in [0, 1) with 2^-23 steps; int32_t/uint32_t take the word's bits.
// Rules: T int32_t/uint32_t/float and Rounds 7 or 10 (static_assert naming the API); dst 32-byte
// aligned in a vector buffer and holding the values written; stride and column multiples of 4,
// stride >= column, row and column > 0 (a SimulatorError naming PhiloxRandom and the argument).
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>

#include "vector_more.h"

namespace AscendC {

constexpr uint16_t PHILOX_KEY_SIZE = 2;
constexpr uint16_t PHILOX_COUNTER_SIZE = 4;
using PhiloxKey = uint32_t[PHILOX_KEY_SIZE];
using PhiloxCounter = uint32_t[PHILOX_COUNTER_SIZE];

struct PhiloxRandomParams {
    uint32_t stride;
    uint32_t row;
    uint32_t column;
};

}  // namespace AscendC

namespace opgen_sim {
namespace random_detail {

constexpr uint32_t kMul0 = 0xD2511F53u;
constexpr uint32_t kMul1 = 0xCD9E8D57u;
constexpr uint32_t kBump0 = 0x9E3779B9u;
constexpr uint32_t kBump1 = 0xBB67AE85u;

struct Block {
    uint32_t w[4];
};

// C + n as one 128-bit little-endian integer (wrapping).
inline Block CounterPlus(const uint32_t c[4], uint64_t n) {
    Block r;
    uint64_t carry = n;
    for (int i = 0; i < 4; ++i) {
        const uint64_t s = static_cast<uint64_t>(c[i]) + (carry & 0xffffffffu);
        r.w[i] = static_cast<uint32_t>(s);
        carry = (carry >> 32) + (s >> 32);
    }
    return r;
}

template <uint16_t Rounds>
inline Block Philox(Block c, uint32_t k0, uint32_t k1) {
    for (uint16_t i = 0; i < Rounds; ++i) {
        const uint64_t p0 = static_cast<uint64_t>(kMul0) * c.w[0];
        const uint64_t p1 = static_cast<uint64_t>(kMul1) * c.w[2];
        const Block n = {{static_cast<uint32_t>(p1 >> 32) ^ c.w[1] ^ k0, static_cast<uint32_t>(p1),
                          static_cast<uint32_t>(p0 >> 32) ^ c.w[3] ^ k1, static_cast<uint32_t>(p0)}};
        c = n;
        k0 += kBump0;
        k1 += kBump1;
    }
    return c;
}

template <typename T>
inline T FromWord(uint32_t w) {
    if constexpr (std::is_same_v<T, float>) {
        const uint32_t bits = (w & 0x007fffffu) | 0x3f800000u;
        float f;
        std::memcpy(&f, &bits, 4);
        return f - 1.0f;
    } else {
        T v;
        std::memcpy(&v, &w, 4);
        return v;
    }
}

// `n` values from counter offset `first` (in blocks) into d[0, n).
template <uint16_t Rounds, typename T>
inline void Fill(T* d, uint32_t n, const uint32_t key[2], const uint32_t ctr[4], uint64_t first) {
    for (uint32_t e = 0; e < n; e += 4) {
        const Block b = Philox<Rounds>(CounterPlus(ctr, first + e / 4), key[0], key[1]);
        const uint32_t take = n - e < 4 ? n - e : 4;
        for (uint32_t j = 0; j < take; ++j) d[e + j] = FromWord<T>(b.w[j]);
    }
}

template <uint16_t Rounds, typename T>
inline void CheckTypes() {
    static_assert(std::is_same_v<T, int32_t> || std::is_same_v<T, uint32_t> || std::is_same_v<T, float>,
                  "PhiloxRandom: T must be uint32_t, int32_t or float (PhiloxRandom.md)");
    static_assert(Rounds == 7 || Rounds == 10, "PhiloxRandom: Rounds must be 7 or 10 (PhiloxRandom.md)");
}

template <typename T>
inline void CheckDst(const AscendC::LocalTensor<T>& dst, uint64_t n) {
    constexpr const char* api = "PhiloxRandom";
    CheckOperand(dst, static_cast<int64_t>(n), api, "dstLocal");
    if (!IsVecPosition(dst.pos_)) {
        Fail(ErrorKind::Generic, api,
             "dstLocal must be a VECIN/VECCALC/VECOUT LocalTensor (TPosition " +
                 std::to_string(static_cast<int>(dst.pos_)) + ")");
    }
}

[[noreturn]] inline void FailParams(const AscendC::PhiloxRandomParams& p, const char* rule) {
    Fail(ErrorKind::Generic, "PhiloxRandom",
         "params {stride " + std::to_string(p.stride) + ", row " + std::to_string(p.row) + ", column " +
             std::to_string(p.column) + "}: " + rule + " (PhiloxRandom.md)");
}

}  // namespace random_detail
}  // namespace opgen_sim

namespace AscendC {

// ---- PhiloxRandom<Rounds>(dst, key, counter, count): count values of counters C, C + 1, ... ------
template <uint16_t Rounds = 7, typename T>
inline void PhiloxRandom(const LocalTensor<T>& dstLocal, const PhiloxKey& philoxKey,
                         const PhiloxCounter& philoxCounter, uint16_t count) {
    namespace rd = opgen_sim::random_detail;
    rd::CheckTypes<Rounds, T>();
    rd::CheckDst(dstLocal, count);
    rd::Fill<Rounds>(dstLocal.ptr_, count, philoxKey, philoxCounter, 0);
    opgen_sim::CountVector<uint32_t>(count, "PhiloxRandom");
}

// ---- PhiloxRandom<Rounds>(dst, key, counter, {stride, row, column}): row x column values, row r
// from counter C + r * stride / 4 ------------------------------------------------------------------
template <uint16_t Rounds = 7, typename T>
inline void PhiloxRandom(const LocalTensor<T>& dstLocal, const PhiloxKey& philoxKey,
                         const PhiloxCounter& philoxCounter, const PhiloxRandomParams& params) {
    namespace rd = opgen_sim::random_detail;
    rd::CheckTypes<Rounds, T>();
    if (params.row == 0 || params.column == 0) rd::FailParams(params, "row and column must be greater than 0");
    if (params.stride % 4 != 0) rd::FailParams(params, "stride must be a multiple of 4");
    if (params.column % 4 != 0) rd::FailParams(params, "column must be a multiple of 4");
    if (params.stride < params.column) rd::FailParams(params, "stride must be at least column");
    const uint64_t n = static_cast<uint64_t>(params.row) * params.column;
    rd::CheckDst(dstLocal, n);
    for (uint32_t r = 0; r < params.row; ++r) {
        rd::Fill<Rounds>(dstLocal.ptr_ + static_cast<uint64_t>(r) * params.column, params.column, philoxKey,
                         philoxCounter, static_cast<uint64_t>(r) * (params.stride / 4));
    }
    opgen_sim::CountVector<uint32_t>(n, "PhiloxRandom");
}

}  // namespace AscendC
