// opgen NPU simulator: more of the Atlas A2/A3 cube path (npu arch 2201), on top of cube.h: the
// bias table (DataCopy L1 -> C2, Mmad with a bias tensor or cmatrixSource), Mmad's
// kDirectionAlign and unitFlag (with Fixpipe's and SetFixPipeConfig's), LoadDataWithTranspose
// (LoadData2dTransposeParams) and the convolution load LoadData with LoadData3DParamsV2 used for
// matrices. docs/simulator.md, "The cube data path".
#pragma once

#include <algorithm>
#include <type_traits>
#include <vector>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

#include "cube.h"

namespace AscendC {

// ---- parameter structures (field order and defaults of the reference's tables) -------------
struct LoadData2dTransposeParams {
    LoadData2dTransposeParams() {}
    LoadData2dTransposeParams(const uint16_t startIndexIn, const uint8_t repeatTimesIn, const uint16_t srcStrideIn,
                              const uint16_t dstGapIn, const uint16_t dstFracGapIn)
        : startIndex(startIndexIn), repeatTimes(repeatTimesIn), srcStride(srcStrideIn), dstGap(dstGapIn),
          dstFracGap(dstFracGapIn) {}
    LoadData2dTransposeParams(const uint16_t startIndexIn, const uint8_t repeatTimesIn, const uint16_t srcStrideIn,
                              const uint16_t dstGapIn, const uint16_t dstFracGapIn, const uint8_t addrModeIn)
        : startIndex(startIndexIn), repeatTimes(repeatTimesIn), srcStride(srcStrideIn), dstGap(dstGapIn),
          dstFracGap(dstFracGapIn), addrMode(addrModeIn) {}
    uint16_t startIndex = 0;
    uint8_t repeatTimes = 0;
    uint16_t srcStride = 0;
    uint16_t dstGap = 0;
    uint16_t dstFracGap = 0;
    uint8_t addrMode = 0;
};

constexpr int32_t PAD_SIZE = 4;  // padList: left, right, top, bottom

// Whether the convolution load sets the feature map (l1H, l1W, padList) and the pad value itself
// (true) or takes those SetFmatrix / SetLoadDataPaddingValue set (false: not simulated).
struct IsResetLoad3dConfig {
    bool isSetFMatrix = true;
    bool isSetPadding = true;
};
constexpr IsResetLoad3dConfig IS_RESER_LOAD3D_DEFAULT_CONFIG = {true, true};

template <typename T>
struct LoadData3DParamsV2 {
    LoadData3DParamsV2() {}
    LoadData3DParamsV2(const uint8_t padListIn[PAD_SIZE], const uint16_t l1HIn, const uint16_t l1WIn,
                       const uint16_t channelSizeIn, const uint16_t kExtensionIn, const uint16_t mExtensionIn,
                       const uint16_t kStartPtIn, const uint16_t mStartPtIn, const uint8_t strideWIn,
                       const uint8_t strideHIn, const uint8_t filterWIn, const uint8_t filterHIn,
                       const uint8_t dilationFilterWIn, const uint8_t dilationFilterHIn, const bool enTransposeIn,
                       const bool enSmallKIn, const T padValueIn, const bool filterSizeWIn = false,
                       const bool filterSizeHIn = false, const bool fMatrixCtrlIn = false)
        : l1H(l1HIn), l1W(l1WIn), channelSize(channelSizeIn), kExtension(kExtensionIn), mExtension(mExtensionIn),
          kStartPt(kStartPtIn), mStartPt(mStartPtIn), strideW(strideWIn), strideH(strideHIn), filterW(filterWIn),
          filterH(filterHIn), dilationFilterW(dilationFilterWIn), dilationFilterH(dilationFilterHIn),
          enTranspose(enTransposeIn), enSmallK(enSmallKIn), padValue(padValueIn), filterSizeW(filterSizeWIn),
          filterSizeH(filterSizeHIn), fMatrixCtrl(fMatrixCtrlIn) {
        for (int32_t i = 0; i < PAD_SIZE; ++i) padList[i] = padListIn[i];
    }
    uint8_t padList[PAD_SIZE] = {0, 0, 0, 0};
    uint16_t l1H = 0;
    uint16_t l1W = 0;
    uint16_t channelSize = 0;
    uint16_t kExtension = 0;
    uint16_t mExtension = 0;
    uint16_t kStartPt = 0;
    uint16_t mStartPt = 0;
    uint8_t strideW = 1;
    uint8_t strideH = 1;
    uint8_t filterW = 1;
    uint8_t filterH = 1;
    uint8_t dilationFilterW = 1;
    uint8_t dilationFilterH = 1;
    bool enTranspose = false;
    bool enSmallK = false;
    T padValue = 0;
    bool filterSizeW = false;
    bool filterSizeH = false;
    bool fMatrixCtrl = false;
};

}  // namespace AscendC

namespace opgen_sim {
namespace cube {

// ---- unit flags ----------------------------------------------------------------------------
// A Mmad (is_write) or Fixpipe with unitFlag 2 or 3 over the L0C bytes [off, off + bytes): a
// write waits while a block's flag is 1, a read while it is 0 (the UnitFlag feature page). The
// simulator runs a core's instructions one after another, so such a wait would never end: it is
// an error. unitFlag 3 then flips the flags (a write sets them, a read clears them); 2 keeps
// them; 0 leaves the mechanism off; 1 is not a documented value.
inline void UnitFlagEnter(Core& c, uint8_t unit_flag, uint64_t off, uint64_t bytes, bool is_write, const char* api) {
    if (unit_flag == 0 || bytes == 0) return;
    if (unit_flag != 2 && unit_flag != 3) {
        Fail(ErrorKind::Generic, api,
             "unitFlag = " + Str(unit_flag) + " is not 0 (off), 2 (on, flags kept) or 3 (on, flags flipped)");
    }
    CubeMem& m = CubeOf(c);
    const uint64_t first = off / kUnitFlagBlockBytes, last = (off + bytes - 1) / kUnitFlagBlockBytes;
    for (uint64_t b = first; b <= last && b < kNumUnitFlags; ++b) {
        const uint8_t want = is_write ? 0 : 1;
        if (m.unit_flag[b] != want) {
            Fail(ErrorKind::Generic, api,
                 std::string("unitFlag ") + Str(unit_flag) + ": L0C block " + Str(b) + " (bytes " +
                     Str(b * kUnitFlagBlockBytes) + ".." + Str((b + 1) * kUnitFlagBlockBytes - 1) + ") has unit flag " +
                     Str(m.unit_flag[b]) +
                     (is_write ? ", so the write would wait for a Fixpipe with unitFlag 3 to read it first"
                               : ", so the read would wait for a Mmad with unitFlag 3 to write it first") +
                     "; nothing later in this block could end the wait");
        }
    }
    if (unit_flag == 3) {
        for (uint64_t b = first; b <= last && b < kNumUnitFlags; ++b) m.unit_flag[b] = is_write ? 1 : 0;
    }
}

// ---- Mmad ----------------------------------------------------------------------------------
// C (L0C, Nz) = A (L0A, Zz) x B (L0B, Zn) + C0, C0 being 0 (cmatrixInitVal and not isBias), the
// bias row (`bias` set: C0[i][j] = bias[j], the bias table), or L0C's own value. A: fractal
// (i / 16, kk / C0) at index (i / 16) * K1 + kk / C0, 16 x C0 row-major inside, K1 the k
// fractals (ceil(k / C0); for float with kDirectionAlign, ceil(k / 16) * 2, K aligned to 16 as
// the reference's "K direction alignment" page says); B: fractal (kk / C0, j / 16) at index
// (kk / C0) * N1 + j / 16, 16 rows of n with C0 elements of k; C: fractal (j / 16, i / 16) at
// index (j / 16) * M1 + i / 16, 16 x 16 row-major. m = 1 is the GEMV form: A is k contiguous
// elements. Each C element sums its K products in the accumulator type, C0 products at a time
// (in order), each block's sum then added to the running value, as the reference's mmad.py
// pseudo-code accumulates.
// The arithmetic of MmadRun: each C cell's K products summed C0 at a time, in order, in Acc
// (rounded after every multiply and add), each block's sum then added to the cell. The sixteen
// columns of a C fractal run side by side as vector lanes, over a copy of B's fractals turned
// column-major (Acc values, C0 rows of 16 columns), kRows rows of C at a time (independent
// chains): every lane does the scalar order's operations, so the result is the same, bit for bit,
// at vector speed. The AVX2 form (eight lanes, no FMA: each multiply still rounds) runs where the
// CPU has it.
template <typename Acc, int kW, int kRows>
__attribute__((always_inline)) inline void MmadRows(const Acc* const* arows, const Acc* bt, uint64_t kb_n,
                                                    uint64_t n1, uint64_t jb, uint64_t c0, uint64_t k,
                                                    Acc (*acc)[16]) {
    typedef Acc V __attribute__((vector_size(kW * sizeof(Acc))));
    constexpr int kNv = 16 / kW;
    V total[kRows][kNv];
#pragma GCC unroll 8
    for (int r = 0; r < kRows; ++r) {
#pragma GCC unroll 4
        for (int v = 0; v < kNv; ++v) std::memcpy(&total[r][v], acc[r] + v * kW, sizeof(V));
    }
    for (uint64_t kb = 0; kb < kb_n; ++kb) {
        const Acc* col = bt + (kb * n1 + jb) * c0 * 16;
        const uint64_t len = k - kb * c0 < c0 ? k - kb * c0 : c0;
        V sum[kRows][kNv] = {};
        for (uint64_t q = 0; q < len; ++q) {
            V b[kNv];
#pragma GCC unroll 4
            for (int v = 0; v < kNv; ++v) std::memcpy(&b[v], col + q * 16 + v * kW, sizeof(V));
#pragma GCC unroll 8
            for (int r = 0; r < kRows; ++r) {
                const Acc x = arows[r][kb * c0 + q];
#pragma GCC unroll 4
                for (int v = 0; v < kNv; ++v) sum[r][v] += x * b[v];
            }
        }
#pragma GCC unroll 8
        for (int r = 0; r < kRows; ++r) {
#pragma GCC unroll 4
            for (int v = 0; v < kNv; ++v) total[r][v] += sum[r][v];
        }
    }
#pragma GCC unroll 8
    for (int r = 0; r < kRows; ++r) {
#pragma GCC unroll 4
        for (int v = 0; v < kNv; ++v) std::memcpy(acc[r] + v * kW, &total[r][v], sizeof(V));
    }
}
template <typename Acc, int kRows>
void MmadRowsSse(const Acc* const* arows, const Acc* bt, uint64_t kb_n, uint64_t n1, uint64_t jb, uint64_t c0,
                 uint64_t k, Acc (*acc)[16]) {
    MmadRows<Acc, 4, kRows>(arows, bt, kb_n, n1, jb, c0, k, acc);
}
#if defined(__x86_64__) && defined(__GNUC__)
template <typename Acc, int kRows>
__attribute__((target("avx2"))) void MmadRowsAvx2(const Acc* const* arows, const Acc* bt, uint64_t kb_n, uint64_t n1,
                                                  uint64_t jb, uint64_t c0, uint64_t k, Acc (*acc)[16]) {
    MmadRows<Acc, 8, kRows>(arows, bt, kb_n, n1, jb, c0, k, acc);
}
inline bool MmadHasAvx2() {
    static const bool ok = __builtin_cpu_supports("avx2") != 0;
    return ok;
}
#endif
template <typename Acc, int kRows>
inline void MmadRowsAny(const Acc* const* arows, const Acc* bt, uint64_t kb_n, uint64_t n1, uint64_t jb,
                        uint64_t c0, uint64_t k, Acc (*acc)[16]) {
#if defined(__x86_64__) && defined(__GNUC__)
    if (MmadHasAvx2()) {
        MmadRowsAvx2<Acc, kRows>(arows, bt, kb_n, n1, jb, c0, k, acc);
        return;
    }
#endif
    MmadRowsSse<Acc, kRows>(arows, bt, kb_n, n1, jb, c0, k, acc);
}

// n elements of U widened to Acc (exact); half runs eight at a time with F16C where the CPU has
// it (a group holding a NaN is left to the scalar conversion, whose quieted payload it keeps).
#if defined(__x86_64__) && defined(__GNUC__)
inline bool MmadHasF16c() {
    static const bool ok = __builtin_cpu_supports("avx") != 0 && __builtin_cpu_supports("f16c") != 0;
    return ok;
}
__attribute__((target("avx,f16c"))) inline uint64_t MmadWidenHalf(const half* s, float* d, uint64_t n) {
    uint64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const __m256 f = _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i)));
        if (_mm256_movemask_ps(_mm256_cmp_ps(f, f, _CMP_UNORD_Q)) != 0) break;
        _mm256_storeu_ps(d + i, f);
    }
    return i;
}
#endif
template <typename U, typename Acc>
inline void MmadWiden(const U* s, Acc* d, uint64_t n) {
    using Wide = std::conditional_t<std::is_same_v<Acc, float>, float, Acc>;
    uint64_t i = 0;
#if defined(__x86_64__) && defined(__GNUC__)
    if constexpr (std::is_same_v<U, half> && std::is_same_v<Acc, float>) {
        if (MmadHasF16c()) i = MmadWidenHalf(s, d, n);
    }
#endif
    for (; i < n; ++i) d[i] = static_cast<Acc>(static_cast<Wide>(s[i]));
}

template <typename T, typename U>
void MmadCompute(const U* a, const U* b, T* out, const AscendC::MmadParams& p, const T* bias, bool zero,
                 uint64_t k1) {
    using Acc = T;
    constexpr uint64_t c0 = kBlockBytes / sizeof(U);
    constexpr int kRows = 4;
    const uint64_t m1 = (p.m + 15) / 16, n1 = (p.n + 15) / 16;
    const uint64_t kb_n = (p.k + c0 - 1) / c0;
    thread_local std::vector<Acc> bt_buf, arow_buf;
    bt_buf.resize(kb_n * n1 * c0 * 16);
    arow_buf.resize(kRows * kb_n * c0);
    Acc* bt = bt_buf.data();
    Acc wide[16 * c0];
    for (uint64_t f = 0; f < kb_n * n1; ++f) {  // fractal f: 16 rows (columns j) of c0 (k)
        MmadWiden(b + f * 16 * c0, wide, 16 * c0);
        Acc* dstf = bt + f * c0 * 16;
        for (uint64_t jj = 0; jj < 16; ++jj) {
            for (uint64_t q = 0; q < c0; ++q) dstf[q * 16 + jj] = wide[jj * c0 + q];
        }
    }
    const Acc* arows[kRows];
    for (uint64_t i0 = 0; i0 < p.m; i0 += kRows) {
        const uint64_t rows = p.m - i0 < kRows ? p.m - i0 : kRows;
        for (uint64_t r = 0; r < kRows; ++r) {  // rows past m repeat the last one (computed, not stored)
            const uint64_t i = i0 + (r < rows ? r : rows - 1);
            Acc* arow = arow_buf.data() + r * kb_n * c0;
            if (p.m == 1) {
                MmadWiden(a, arow, p.k);
            } else {
                for (uint64_t kb = 0; kb < kb_n; ++kb) {
                    const uint64_t len = p.k - kb * c0 < c0 ? p.k - kb * c0 : c0;
                    MmadWiden(a + ((i / 16) * k1 + kb) * 16 * c0 + (i % 16) * c0, arow + kb * c0, len);
                }
            }
            arows[r] = arow;
        }
        for (uint64_t jb = 0; jb < n1; ++jb) {
            const uint64_t jn = p.n - jb * 16 < 16 ? p.n - jb * 16 : 16;
            Acc acc[kRows][16] = {};
            for (uint64_t r = 0; r < rows && !zero; ++r) {
                const uint64_t i = i0 + r;
                const T* cells = out + (jb * m1 + i / 16) * 256 + (i % 16) * 16;
                for (uint64_t jj = 0; jj < jn; ++jj) acc[r][jj] = bias != nullptr ? bias[jb * 16 + jj] : cells[jj];
            }
            MmadRowsAny<Acc, kRows>(arows, bt, kb_n, n1, jb, c0, p.k, acc);
            for (uint64_t r = 0; r < rows; ++r) {
                const uint64_t i = i0 + r;
                T* cells = out + (jb * m1 + i / 16) * 256 + (i % 16) * 16;
                for (uint64_t jj = 0; jj < jn; ++jj) cells[jj] = acc[r][jj];
            }
        }
    }
}

template <typename T, typename U, typename S>
void MmadRun(const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<U>& fm,
             const AscendC::LocalTensor<S>& filter, const AscendC::MmadParams& p, const T* bias, const char* api) {
    using Acc = typename MmadAcc<U>::type;
    static_assert(std::is_same_v<U, S> && std::is_same_v<T, Acc> && !std::is_same_v<Acc, void>,
                  "Mmad(dst, fm, filter[, bias], params): the simulated A2/A3 cube takes fm/filter/dst of "
                  "half/half/float, bfloat16_t/bfloat16_t/float, float/float/float or int8_t/int8_t/int32_t");
    Core& c = CurrentCore();
    CubeMem& mem = CubeOf(c);
    Range(api, "m", p.m, 0, 4095);
    Range(api, "n", p.n, 0, 4095);
    Range(api, "k", p.k, 0, 4095);
    if (p.m == 0 || p.n == 0 || p.k == 0) return;  // a NOP, as documented
    constexpr uint64_t c0 = kBlockBytes / sizeof(U);
    const bool k_align16 = std::is_same_v<U, float> && p.kDirectionAlign;
    const uint64_t m1 = (p.m + 15) / 16, n1 = (p.n + 15) / 16;
    const uint64_t k1 = k_align16 ? (p.k + 15) / 16 * 2 : (p.k + c0 - 1) / c0;
    const uint64_t a_bytes = p.m == 1 ? RoundUp(p.k * sizeof(U), 512) : m1 * k1 * 512;
    Operand(&c, fm, Bit(kCubeL0A), 512, a_bytes, api, "fm", "Mmad's left matrix A must be in L0A (TPosition A2)");
    Operand(&c, filter, Bit(kCubeL0B), 512, ((p.k + c0 - 1) / c0) * n1 * 512, api, "filter",
            "Mmad's right matrix B must be in L0B (TPosition B2)");
    const uint64_t c_bytes = m1 * n1 * 256 * sizeof(T);
    const uint64_t c_off =
        Operand(&c, dst, Bit(kCubeL0C), 1024, c_bytes, api, "dst", "Mmad's result C must be in L0C (TPosition CO1)");
    const bool zero = p.cmatrixInitVal && !p.isBias;
    if (!zero && bias == nullptr && p.cmatrixSource) {
        // cmatrixSource without a bias tensor: CANN's implementation passes the instruction no
        // bias-table address, so C starts from the bias table's first bytes.
        if (p.n * sizeof(T) > kCubeBufBytes[kCubeBias]) {
            Fail(ErrorKind::LocalMemoryOutOfBounds, api,
                 "cmatrixSource: the bias row of n = " + Str(p.n) + " x " + TypeName<T>() + " (" +
                     Str(p.n * sizeof(T)) + " bytes) is more than the bias table's " +
                     Str(kCubeBufBytes[kCubeBias]) + " bytes");
        }
        bias = reinterpret_cast<const T*>(mem.base[kCubeBias]);
    }
    UnitFlagEnter(c, p.unitFlag, c_off, c_bytes, true, api);
    MmadCompute<T, U>(fm.ptr_, filter.ptr_, dst.ptr_, p, bias, zero, k1);
}

// ---- LoadDataWithTranspose -----------------------------------------------------------------
// Repeat i takes square matrix startIndex +- srcStride * i (by addrMode; squares of 1024 bytes
// for b8 and b32, 512 for b16, the unit the reference gives srcStride) and writes its transpose
// as fractals starting at fractal i * (dstGap + 1); the second fractal of a square lies
// dstFracGap + 1 fractals after the first. b16: one 16 x 16 fractal, transposed. b8: two 16 x 32
// fractals stacked into a 32 x 32 square; the transpose's rows 0-15 and 16-31 are the two
// fractals. b32: two 16 x 8 fractals side by side make a 16 x 16 square; the transpose's columns
// 0-7 and 8-15 are the two fractals (the reference's load_data_with_transpose.py pseudo-code).
template <typename T>
inline void TransposeLoad(Core& c, const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& src,
                          const AscendC::LoadData2dTransposeParams& p, const char* api) {
    constexpr uint64_t es = sizeof(T);
    static_assert(es == 1 || es == 2 || es == 4,
                  "LoadDataWithTranspose: the simulator moves b8, b16 and b32 data (int4b_t is not simulated)");
    constexpr uint64_t nfrac = es == 2 ? 1 : 2;
    constexpr uint64_t square = nfrac * 512;
    const uint64_t reps = p.repeatTimes;
    Operand(&c, src, Bit(kCubeL1), kBlockBytes, 0, api, "src", "LoadDataWithTranspose reads L1 (TPosition A1 or B1)");
    const uint64_t dst_span = ((reps - 1) * (static_cast<uint64_t>(p.dstGap) + 1) +
                               (nfrac - 1) * (static_cast<uint64_t>(p.dstFracGap) + 1) + 1) *
                              512;
    Operand(&c, dst, Bit(kCubeL0A) | Bit(kCubeL0B), 512, dst_span, api, "dst",
            "LoadDataWithTranspose writes L0A (TPosition A2) or L0B (TPosition B2)");
    const int64_t first = p.startIndex;
    const int64_t lastsq = p.addrMode == 0 ? first + static_cast<int64_t>(p.srcStride) * static_cast<int64_t>(reps - 1)
                                           : first - static_cast<int64_t>(p.srcStride) * static_cast<int64_t>(reps - 1);
    if (lastsq < 0) {
        Fail(ErrorKind::LocalMemoryOutOfBounds, api,
             "addrMode 1 (decreasing): square " + Str(first) + " - srcStride " + Str(p.srcStride) + " x " +
                 Str(reps - 1) + " lies before src");
    }
    const uint64_t far = (static_cast<uint64_t>(first > lastsq ? first : lastsq) + 1) * square;
    if (far > Reachable(&c, src)) {
        Fail(ErrorKind::LocalMemoryOutOfBounds, api,
             "src: the call reads " + Str(far) + " bytes (square matrices of " + Str(square) +
                 " bytes up to index " + Str(first > lastsq ? first : lastsq) + "), past " + ReachableName(&c, src));
    }
    const auto* s = reinterpret_cast<const uint8_t*>(src.ptr_);
    auto* d = reinterpret_cast<uint8_t*>(dst.ptr_);
    uint8_t sq[1024];
    for (uint64_t i = 0; i < reps; ++i) {
        const int64_t idx = p.addrMode == 0 ? first + static_cast<int64_t>(p.srcStride * i)
                                            : first - static_cast<int64_t>(p.srcStride * i);
        std::memcpy(sq, s + static_cast<uint64_t>(idx) * square, square);
        uint8_t* f0 = d + i * (static_cast<uint64_t>(p.dstGap) + 1) * 512;
        uint8_t* f1 = f0 + (static_cast<uint64_t>(p.dstFracGap) + 1) * 512;
        if constexpr (es == 2) {
            const auto* q = reinterpret_cast<const uint16_t*>(sq);
            auto* o = reinterpret_cast<uint16_t*>(f0);
            for (int r = 0; r < 16; ++r) {
                for (int k = 0; k < 16; ++k) o[r * 16 + k] = q[k * 16 + r];
            }
        } else if constexpr (es == 1) {  // S = 32 x 32 bytes; T[r][k] = S[k][r]; rows 16j.. -> fractal j
            for (int r = 0; r < 32; ++r) {
                uint8_t* row = (r < 16 ? f0 : f1) + (r % 16) * 32;
                for (int k = 0; k < 32; ++k) row[k] = sq[k * 32 + r];
            }
        } else {  // S[r][k] = k < 8 ? F0[r][k] : F1[r][k - 8]; T[r][k] = S[k][r]; columns 8j.. -> fractal j
            const auto* q = reinterpret_cast<const uint32_t*>(sq);
            auto* o0 = reinterpret_cast<uint32_t*>(f0);
            auto* o1 = reinterpret_cast<uint32_t*>(f1);
            for (int r = 0; r < 16; ++r) {
                for (int k = 0; k < 16; ++k) {
                    const uint32_t v = q[(r < 8 ? 0 : 128) + k * 8 + r % 8];  // S[k][r]
                    (k < 8 ? o0 : o1)[r * 8 + k % 8] = v;
                }
            }
        }
    }
}

// ---- LoadData with LoadData3DParamsV2 (the convolution load, used for matrices) ------------
// The source is a feature map in L1 in NC1HWC0 layout (N = 1, C1 = channelSize / C0, H = l1H,
// W = l1W, C0 = 32 bytes of T). Its image-to-column matrix has a row per output position
// (oh * Wout + ow) and a column per (c1, kh, kw, c0), in that order, as the reference's
// load3d.py pseudo-code builds it; a tap outside the feature map (padList) holds padValue. The
// load takes rows mStartPt.. (mExtension of them) and columns kStartPt.. (kExtension) and writes
// them, from dst's start, as: L0A, not transposed: Zz, fractals of 16 rows x C0 (row block major);
// L0A with enTranspose (b16/b32) and L0B (always transposed): the fractals hold the transpose,
// 16 k x C0 m each, ordered k block major (L0A) or m block major (L0B), the pseudo-code's
// move_to_l0a/move_to_l0b. Elements of the last fractals past the extensions are left as they
// were.
template <typename T>
inline void Load3Dv2(Core& c, const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& src,
                     const AscendC::LoadData3DParamsV2<T>& p, const char* api) {
    constexpr uint64_t es = sizeof(T);
    static_assert(es == 1 || es == 2 || es == 4,
                  "LoadData(LoadData3DParamsV2): the simulator moves b8, b16 and b32 data (int4b_t is not simulated)");
    constexpr uint64_t c0 = kBlockBytes / es;
    Range(api, "l1H", p.l1H, 0, 32767);
    Range(api, "l1W", p.l1W, 0, 32767);
    Range(api, "mStartPt", p.mStartPt, 0, 32767);
    Range(api, "strideW", p.strideW, 0, 63);
    Range(api, "strideH", p.strideH, 0, 63);
    const uint64_t fw = p.filterW + (p.filterSizeW ? 256u : 0u), fh = p.filterH + (p.filterSizeH ? 256u : 0u);
    if (p.l1H == 0 || p.l1W == 0 || p.channelSize == 0 || p.kExtension == 0 || p.mExtension == 0 || fw == 0 ||
        fh == 0) {
        return;  // a NOP, as documented
    }
    if (p.enSmallK) Fail(ErrorKind::Generic, api, "enSmallK is no longer supported (the reference)");
    if (p.fMatrixCtrl) Fail(ErrorKind::Generic, api, "fMatrixCtrl must be false (the reference: only false is supported)");
    if (p.strideW == 0 || p.strideH == 0 || p.dilationFilterW == 0 || p.dilationFilterH == 0) {
        Fail(ErrorKind::Generic, api,
             "strideW/strideH/dilationFilterW/dilationFilterH of 0 are not simulated (got " + Str(p.strideW) + "/" +
                 Str(p.strideH) + "/" + Str(p.dilationFilterW) + "/" + Str(p.dilationFilterH) + ")");
    }
    if (p.channelSize % c0 != 0) {
        Fail(ErrorKind::Generic, api,
             "channelSize = " + Str(p.channelSize) + " is not a multiple of C0 = " + Str(c0) + " " + TypeName<T>() +
                 " elements: the reduced-channel layouts (4, 8, ...) are not simulated");
    }
    if (p.kStartPt % c0 != 0) {
        Fail(ErrorKind::Generic, api,
             "kStartPt = " + Str(p.kStartPt) + " is not a multiple of " + Str(c0) + " (the reference, for " +
                 TypeName<T>() + ")");
    }
    uint64_t dbuf_off = 0;
    const int32_t dbuf = Where(&c, dst, &dbuf_off);
    const bool to_b = dbuf == kCubeL0B;
    const bool transposed = to_b || p.enTranspose;
    if (to_b && es == 1) {
        Fail(ErrorKind::Generic, api, "L1 -> L0B does not take b8 data on the Atlas A2/A3 (the reference)");
    }
    if (!to_b && p.enTranspose && es == 1) {
        Fail(ErrorKind::Generic, api, "enTranspose into L0A does not take b8 data on the Atlas A2/A3 (the reference)");
    }
    const uint64_t c1 = p.channelSize / c0;
    const uint64_t pl = p.padList[0], pr = p.padList[1], pt = p.padList[2], pb = p.padList[3];
    const uint64_t kh_span = (fh - 1) * p.dilationFilterH + 1, kw_span = (fw - 1) * p.dilationFilterW + 1;
    const uint64_t hp = p.l1H + pt + pb, wp = p.l1W + pl + pr;
    if (hp < kh_span || wp < kw_span) {
        Fail(ErrorKind::Generic, api,
             "the dilated filter (" + Str(kh_span) + " x " + Str(kw_span) + ") is larger than the padded feature map (" +
                 Str(hp) + " x " + Str(wp) + ")");
    }
    const uint64_t hout = (hp - kh_span) / p.strideH + 1, wout = (wp - kw_span) / p.strideW + 1;
    const uint64_t rows = hout * wout, cols = c1 * fh * fw * c0;
    if (static_cast<uint64_t>(p.mStartPt) + p.mExtension > rows) {
        Fail(ErrorKind::Generic, api,
             "mStartPt + mExtension = " + Str(static_cast<uint64_t>(p.mStartPt) + p.mExtension) +
                 " is more than the image-to-column matrix's " + Str(rows) + " rows (Hout " + Str(hout) + " x Wout " +
                 Str(wout) + ")");
    }
    if (static_cast<uint64_t>(p.kStartPt) + p.kExtension > cols) {
        Fail(ErrorKind::Generic, api,
             "kStartPt + kExtension = " + Str(static_cast<uint64_t>(p.kStartPt) + p.kExtension) +
                 " is more than the image-to-column matrix's " + Str(cols) + " columns (C1 " + Str(c1) + " x " +
                 Str(fh) + " x " + Str(fw) + " x C0 " + Str(c0) + ")");
    }
    const uint64_t mx = p.mExtension, kx = p.kExtension;
    const uint64_t m16 = (mx + 15) / 16 * 16;
    const uint64_t kb16 = (kx + 15) / 16, mbc = m16 / c0, kbc = (kx + c0 - 1) / c0;
    // Where element (i, q) of the taken matrix goes, in elements from dst's start.
    auto place = [&](uint64_t i, uint64_t q) -> uint64_t {
        if (!transposed) return ((i / 16) * kbc + q / c0) * (16 * c0) + (i % 16) * c0 + q % c0;
        if (!to_b) return ((q / 16) * mbc + i / c0) * (16 * c0) + (q % 16) * c0 + i % c0;
        return ((i / c0) * kb16 + q / 16) * (16 * c0) + (q % 16) * c0 + i % c0;
    };
    // The farthest element written: the last row or column of either extension.
    uint64_t reach = 0;
    for (uint64_t i = 0; i < mx; ++i) reach = std::max(reach, place(i, kx - 1) + 1);
    for (uint64_t q = 0; q < kx; ++q) reach = std::max(reach, place(mx - 1, q) + 1);
    Operand(&c, src, Bit(kCubeL1), kBlockBytes, c1 * p.l1H * p.l1W * kBlockBytes, api, "src",
            "LoadData(LoadData3DParamsV2) reads a feature map in L1 (TPosition A1 or B1)");
    Operand(&c, dst, Bit(kCubeL0A) | Bit(kCubeL0B), 512, reach * es, api, "dst",
            "LoadData(LoadData3DParamsV2) writes L0A (TPosition A2) or L0B (TPosition B2)");
    const T* s = src.ptr_;
    T* d = dst.ptr_;
    for (uint64_t i = 0; i < mx; ++i) {
        const uint64_t mm = p.mStartPt + i;
        const uint64_t oh = mm / wout, ow = mm % wout;
        for (uint64_t q = 0; q < kx; ++q) {
            const uint64_t kk = p.kStartPt + q;
            const uint64_t blk = kk / c0, cc = kk % c0;
            const uint64_t ci = blk / (fh * fw), kp = blk % (fh * fw);
            const int64_t h = static_cast<int64_t>(oh * p.strideH + (kp / fw) * p.dilationFilterH) -
                              static_cast<int64_t>(pt);
            const int64_t w = static_cast<int64_t>(ow * p.strideW + (kp % fw) * p.dilationFilterW) -
                              static_cast<int64_t>(pl);
            const bool inside = h >= 0 && w >= 0 && h < static_cast<int64_t>(p.l1H) && w < static_cast<int64_t>(p.l1W);
            const T v = inside ? s[((ci * p.l1H + static_cast<uint64_t>(h)) * p.l1W + static_cast<uint64_t>(w)) * c0 + cc]
                               : p.padValue;
            d[place(i, q)] = v;
        }
    }
}

// ---- DataCopy L1 -> bias table (C2) --------------------------------------------------------
// blockCount bursts of blockLen 64-byte units (the A2/A3 unit the reference gives), the source's
// bursts srcGap 32-byte blocks apart and the destination's dstGap 64-byte units apart; a half
// source is widened to a float table (the reference's mixed-type form).
template <typename T, typename U>
inline void CopyToBias(const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<U>& src,
                       const AscendC::DataCopyParams& p, const char* api) {
    static_assert((std::is_same_v<T, U> && (std::is_same_v<T, float> || std::is_same_v<T, int32_t>)) ||
                      (std::is_same_v<T, float> && std::is_same_v<U, half>),
                  "DataCopy(C2 <- C1): the A2/A3 bias table takes float or int32_t from the same type, or float "
                  "from half");
    Core& c = CurrentCore();
    CubeOf(c);
    Range(api, "blockCount", p.blockCount, 0, 4095);
    if (p.blockCount == 0 || p.blockLen == 0) return;  // a NOP, as documented
    const uint64_t dlen = static_cast<uint64_t>(p.blockLen) * 64;   // bytes of T per burst
    const uint64_t slen = dlen / sizeof(T) * sizeof(U);               // bytes of U per burst
    const uint64_t sstep = slen + static_cast<uint64_t>(p.srcStride) * kBlockBytes;
    const uint64_t dstep = dlen + static_cast<uint64_t>(p.dstStride) * 64;
    Operand(&c, src, Bit(kCubeL1), kBlockBytes, (p.blockCount - 1) * sstep + slen, api, "src",
            "the bias table is filled from L1 (TPosition C1)");
    Operand(&c, dst, Bit(kCubeBias), 64, (p.blockCount - 1) * dstep + dlen, api, "dst",
            "DataCopy(C2 <- C1) writes the bias table (TPosition C2)");
    const auto* s = reinterpret_cast<const uint8_t*>(src.ptr_);
    auto* d = reinterpret_cast<uint8_t*>(dst.ptr_);
    for (uint64_t b = 0; b < p.blockCount; ++b) {
        const U* sb = reinterpret_cast<const U*>(s + b * sstep);
        T* db = reinterpret_cast<T*>(d + b * dstep);
        for (uint64_t e = 0; e < dlen / sizeof(T); ++e) db[e] = static_cast<T>(static_cast<float>(sb[e]));
    }
}

// ---- DataCopy L1 -> fixpipe buffer (C2PIPE2GM) -----------------------------------------------
// (reference "L1ToFixpipe-Buffer数据搬运"): uint64_t quant parameters, blockCount bursts of blockLen
// 128-byte units; srcGap and dstGap are head-to-head distances of the bursts, in 32-byte blocks of
// L1 and 128-byte units of the FB (0 with several bursts: each burst reads, or overwrites, the
// first). The destination 128-byte aligned, the source 32-byte aligned.
template <typename T>
inline void CopyToFb(const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& src,
                     const AscendC::DataCopyParams& p, const char* api) {
    if constexpr (!std::is_same_v<T, uint64_t>) {
        Fail(ErrorKind::Generic, api,
             std::string("the fixpipe buffer takes uint64_t quant parameters, not ") + TypeName<T>());
    } else {
        Core& c = CurrentCore();
        CubeOf(c);
        Range(api, "blockCount", p.blockCount, 0, 4095);
        if (p.blockCount == 0 || p.blockLen == 0) return;  // a NOP, as documented
        const uint64_t len = static_cast<uint64_t>(p.blockLen) * 128;
        const uint64_t sstep = static_cast<uint64_t>(p.srcStride) * kBlockBytes;
        const uint64_t dstep = static_cast<uint64_t>(p.dstStride) * 128;
        Operand(&c, src, Bit(kCubeL1), kBlockBytes, (p.blockCount - 1) * sstep + len, api, "src",
                "the fixpipe buffer is filled from L1 (TPosition A1, B1 or C1)");
        Operand(&c, dst, Bit(kCubeFb), 128, (p.blockCount - 1) * dstep + len, api, "dst",
                "DataCopy(C2PIPE2GM <- C1) writes the fixpipe buffer (TPosition C2PIPE2GM)");
        const auto* s = reinterpret_cast<const uint8_t*>(src.ptr_);
        auto* d = reinterpret_cast<uint8_t*>(dst.ptr_);
        for (uint64_t b = 0; b < p.blockCount; ++b) std::memmove(d + b * dstep, s + b * sstep, len);
    }
}

// Called by the same-type DataCopy(LocalTensor, LocalTensor, DataCopyParams) of data_copy.h:
// true when it was a cube-memory move this header carries out.
template <typename T>
bool CubeLocalCopy(const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& src,
                          const AscendC::DataCopyParams& p) {
    Core* c = tls_core;
    if (c == nullptr || c->cube == nullptr) return false;
    if (CubeBufAt(c, dst.ptr_, nullptr) == kCubeFb) {
        CopyToFb(dst, src, p, "DataCopy(C1->C2PIPE2GM, DataCopyParams)");
        return true;
    }
    if (CubeBufAt(c, dst.ptr_, nullptr) == kCubeBias) {
        if constexpr (std::is_same_v<T, float> || std::is_same_v<T, int32_t>) {
            CopyToBias<T, T>(dst, src, p, "DataCopy(C1->C2, DataCopyParams)");
        } else {
            Fail(ErrorKind::Generic, "DataCopy(C1->C2, DataCopyParams)",
                 std::string("the A2/A3 bias table holds float or int32_t, not ") + TypeName<T>());
        }
        return true;
    }
    return false;
}

}  // namespace cube
}  // namespace opgen_sim

namespace AscendC {

template <typename T>
inline void LoadDataWithTranspose(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                                  const LoadData2dTransposeParams& loadDataParams) {
    constexpr const char* api = "LoadDataWithTranspose(L1->L0, LoadData2dTransposeParams)";
    opgen_sim::Core& c = opgen_sim::CurrentCore();
    opgen_sim::CubeOf(c);
    if (loadDataParams.repeatTimes == 0) return;  // a NOP, as documented
    opgen_sim::cube::TransposeLoad(c, dst, src, loadDataParams, api);
}

template <typename T, const IsResetLoad3dConfig& defaultConfig = IS_RESER_LOAD3D_DEFAULT_CONFIG, typename U = T,
          typename std::enable_if<std::is_same<T, U>::value, bool>::type = true>
inline void LoadData(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LoadData3DParamsV2<U>& loadDataParams) {
    constexpr const char* api = "LoadData(L1->L0, LoadData3DParamsV2)";
    static_assert(defaultConfig.isSetFMatrix && defaultConfig.isSetPadding,
                  "LoadData(LoadData3DParamsV2) with the feature map or pad value of SetFmatrix / "
                  "SetLoadDataPaddingValue (IsResetLoad3dConfig false) is not simulated");
    opgen_sim::Core& c = opgen_sim::CurrentCore();
    opgen_sim::CubeOf(c);
    opgen_sim::cube::Load3Dv2(c, dst, src, loadDataParams, api);
}

// ---- Mmad with a bias tensor: C starts from the bias row in the bias table (C2) -------------
template <typename T, typename U, typename S, typename V>
inline void Mmad(const LocalTensor<T>& dst, const LocalTensor<U>& fm, const LocalTensor<S>& filter,
                 const LocalTensor<V>& bias, const MmadParams& mmadParams) {
    constexpr const char* api = "Mmad(with bias)";
    static_assert(std::is_same_v<V, T>,
                  "Mmad(dst, fm, filter, bias, params): the A2/A3 bias is of dst's type (float, or int32_t for int8_t)");
    opgen_sim::Core& c = opgen_sim::CurrentCore();
    opgen_sim::CubeOf(c);
    const T* b = nullptr;
    if (mmadParams.m != 0 && mmadParams.n != 0 && mmadParams.k != 0 && (!mmadParams.cmatrixInitVal || mmadParams.isBias)) {
        if (opgen_sim::CubeBufAt(&c, bias.ptr_, nullptr) == opgen_sim::kCubeL0C) {
            opgen_sim::Fail(opgen_sim::ErrorKind::Generic, api,
                            "a bias tensor in L0C (TPosition CO1) is not simulated: put it in the bias table (C2)");
        }
        opgen_sim::cube::Operand(&c, bias, opgen_sim::cube::Bit(opgen_sim::kCubeBias), 64,
                                 static_cast<uint64_t>(mmadParams.n) * sizeof(V), api, "bias",
                                 "Mmad's bias must be in the bias table (TPosition C2)");
        b = bias.ptr_;
    }
    opgen_sim::cube::MmadRun<T, U, S>(dst, fm, filter, mmadParams, b, api);
}

// ---- DataCopy L1 -> bias table, of two types (half -> float) --------------------------------
template <typename T, typename U, typename std::enable_if<!std::is_same<T, U>::value, bool>::type = true>
inline void DataCopy(const LocalTensor<T>& dst, const LocalTensor<U>& src, const DataCopyParams& repeatParams) {
    opgen_sim::cube::CopyToBias<T, U>(dst, src, repeatParams, "DataCopy(C1->C2, DataCopyParams)");
}

// ---- The fixpipe's registers (reference "寄存器配置说明") ----------------------------------------
// SetFixPipeConfig(pre[, isUnitFlag]): a tensor in the fixpipe buffer is the quant table of the
// DataCopy moves from L0C that follow (FPC's QuantPreAddr, 128-byte units); isUnitFlag clears
// every unit flag of L0C (a CO1 tensor serves for that alone). setRelu (ReluPreAddr: the vector
// ReLU table of the 200I/500 A2's modes) is not simulated.
template <typename T, bool setRelu = false>
inline void SetFixPipeConfig(const LocalTensor<T>& pre, bool isUnitFlag = false) {
    constexpr const char* api = "SetFixPipeConfig(pre, isUnitFlag)";
    opgen_sim::Core& c = opgen_sim::CurrentCore();
    opgen_sim::CubeMem& m = opgen_sim::CubeOf(c);
    uint64_t off = 0;
    const int32_t where = opgen_sim::CubeBufAt(&c, pre.ptr_, &off);
    if (where == opgen_sim::kCubeFb && !setRelu) {
        if (off % 128 != 0) {
            opgen_sim::Fail(opgen_sim::ErrorKind::Alignment, api,
                            "the quant table starts at byte " + opgen_sim::Str(off) +
                                " of the fixpipe buffer, which is not 128-byte aligned (FPC counts 128-byte units)");
        }
        m.fb_quant = static_cast<int64_t>(off);
    } else if (where != opgen_sim::kCubeL0C || setRelu || !isUnitFlag) {
        opgen_sim::Fail(opgen_sim::ErrorKind::Generic, api,
                        std::string("the simulator takes a quant table in the fixpipe buffer (TPosition C2PIPE2GM), "
                                    "or an L0C (TPosition CO1) tensor with isUnitFlag true to reset the unit "
                                    "flags; the ReLU table (setRelu) is not simulated (got a tensor in ") +
                            opgen_sim::CubeBufName(where) + ", setRelu " + (setRelu ? "true" : "false") +
                            ", isUnitFlag " + (isUnitFlag ? "true" : "false") + ")");
    }
    if (isUnitFlag) std::memset(m.unit_flag, 0, sizeof(m.unit_flag));
}
template <typename T>
inline void SetFixPipeConfig(const LocalTensor<T>& reluPre, const LocalTensor<T>& quantPre, bool isUnitFlag = false) {
    (void)reluPre;  // the vector ReLU table: read by no simulated mode
    SetFixPipeConfig<T, false>(quantPre, isUnitFlag);
}
// SetFixpipePreQuantFlag(config): the scalar quant word (QUANT_PRE) of the scalar modes.
inline void SetFixpipePreQuantFlag(uint64_t config) {
    opgen_sim::CubeOf(opgen_sim::CurrentCore()).quant_pre = config;
}
// SetFixpipeNz2ndFlag(ndNum, srcNdStride, dstNdStride): ND_PARA, for the moves with nz2ndEn.
inline void SetFixpipeNz2ndFlag(uint16_t ndNum, uint16_t srcNdStride, uint16_t dstNdStride) {
    opgen_sim::cube::Range("SetFixpipeNz2ndFlag", "srcNdStride", srcNdStride, 0, 512);
    opgen_sim::CubeOf(opgen_sim::CurrentCore()).nd_para =
        static_cast<uint64_t>(ndNum) | (static_cast<uint64_t>(srcNdStride) << 16) |
        (static_cast<uint64_t>(dstNdStride) << 32);
}

}  // namespace AscendC

namespace opgen_sim {
namespace cube {

// A DataCopyCO12DstParams move as the Fixpipe API's: the same instruction, its quant word, quant
// table and NZ2ND parameters taken from the registers. Calls `move(params, nd, quant table)`.
template <typename Move>
inline void CopyFromL0C(const AscendC::DataCopyCO12DstParams& d, const char* api, Move move) {
    Core& c = CurrentCore();
    CubeMem& m = CubeOf(c);
    if (d.reluPre > 1) {
        Fail(ErrorKind::Generic, api,
             "reluPre = " + Str(d.reluPre) + ": the A2/A3 has 0 (no ReLU) and 1 (normal ReLU)");
    }
    if (d.clipReluPre != 0 || d.eltWiseOp != 0) {
        Fail(ErrorKind::Generic, api, "clipReluPre and eltWiseOp are the Atlas 200I/500 A2's; the A2/A3 has neither");
    }
    AscendC::FixpipeParamsV220 p;
    p.nSize = d.nSize;
    p.mSize = d.mSize;
    p.srcStride = d.srcStride;
    p.dstStride = d.dstStride;
    p.quantPre = d.quantPre;
    p.deqScalar = m.quant_pre;
    p.reluEn = d.reluPre == 1;
    p.unitFlag = d.unitFlag;
    p.isChannelSplit = d.channelSplit;
    if (d.nz2ndEn) {
        p.ndNum = static_cast<uint16_t>(m.nd_para & 0xffff);
        p.srcNdStride = static_cast<uint16_t>((m.nd_para >> 16) & 0xffff);
        p.dstNdStride = static_cast<uint16_t>((m.nd_para >> 32) & 0xffff);
    }
    const bool vec = d.quantPre == QuantMode_t::VDEQF16 || d.quantPre == QuantMode_t::VQF322B8_PRE ||
                     d.quantPre == QuantMode_t::VREQ8;
    if (!vec) {
        move(p, d.nz2ndEn, nullptr);
        return;
    }
    if (m.fb_quant < 0) {
        Fail(ErrorKind::Generic, api,
             std::string("quantPre ") + QuantName(d.quantPre) +
                 " reads the quant table of the fixpipe buffer: copy it there from L1 (DataCopy into a "
                 "TPosition::C2PIPE2GM tensor) and name it with SetFixPipeConfig first");
    }
    const uint64_t off = static_cast<uint64_t>(m.fb_quant);
    const AscendC::LocalTensor<uint64_t> table(AscendC::TPosition::C2PIPE2GM, static_cast<uint32_t>(off),
                                               static_cast<uint32_t>((kCubeBufBytes[kCubeFb] - off) / 8));
    move(p, d.nz2ndEn, &table);
}

}  // namespace cube
}  // namespace opgen_sim

namespace AscendC {

// DataCopy from L0C to GM or L1 with DataCopyCO12DstParams: the fixpipe move of Fixpipe
// (opgen_sim::cube::FixpipeMove), set up by the registers above.
template <typename T, typename U>
inline void DataCopy(const GlobalTensor<T>& dst, const LocalTensor<U>& src, const DataCopyCO12DstParams& intriParams) {
    constexpr const char* api = "DataCopy(CO1->GM, DataCopyCO12DstParams)";
    opgen_sim::cube::CopyFromL0C(intriParams, api, [&](const FixpipeParamsV220& p, bool nd,
                                                       const LocalTensor<uint64_t>* table) {
        opgen_sim::cube::FixpipeToGm<T, U>(dst, src, p, nd, table, api, true);
    });
}
template <typename T, typename U>
inline void DataCopy(const LocalTensor<T>& dst, const LocalTensor<U>& src, const DataCopyCO12DstParams& intriParams) {
    constexpr const char* api = "DataCopy(CO1->L1, DataCopyCO12DstParams)";
    opgen_sim::cube::CopyFromL0C(intriParams, api, [&](const FixpipeParamsV220& p, bool nd,
                                                       const LocalTensor<uint64_t>* table) {
        opgen_sim::cube::FixpipeToL1<T, U>(dst, src, p, nd, table, api, true);
    });
}

}  // namespace AscendC
