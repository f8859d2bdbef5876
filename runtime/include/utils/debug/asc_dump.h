// opgen NPU simulator: asc_dump (reference "asc_dump", Utils API): prints dump_size elements of a
// memory with the header DumpTensor prints, `DumpTensor: desc=<desc>, addr=<addr>,
// data_type=<type>, position=<GM|UB|L1|L0C>, dump_size=<n>`, then the values in brackets. A UB,
// L1 or L0C operand is a pointer into that memory of the core running the block, or the offset
// LocalTensor::GetPhyAddr() returns for it (kernels pass `(__cbuf__ T*)t.GetPhyAddr()`). Defining
// ASCENDC_DUMP=0 turns the calls into no-ops, as the reference's build switch does.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <type_traits>

#include "kernel_operator.h"

#ifndef __cbuf__
#define __cbuf__
#endif
#ifndef __cc__
#define __cc__
#endif

namespace opgen_sim {
namespace dump {

template <typename T>
constexpr const char* DumpTypeName() {
    if constexpr (std::is_same_v<T, half>) return "float16";
    else if constexpr (std::is_same_v<T, bfloat16_t>) return "bfloat16";
    else if constexpr (std::is_same_v<T, float>) return "float32";
    else if constexpr (std::is_same_v<T, bool>) return "bool";
    else if constexpr (std::is_integral_v<T>) {
        constexpr const char* s[] = {"int8", "int16", "int32", "int64"};
        constexpr const char* u[] = {"uint8", "uint16", "uint32", "uint64"};
        constexpr int i = sizeof(T) == 1 ? 0 : sizeof(T) == 2 ? 1 : sizeof(T) == 4 ? 2 : 3;
        return std::is_signed_v<T> ? s[i] : u[i];
    } else {
        static_assert(!sizeof(T), "asc_dump: the A2/A3 dumps bool, int8_t..uint64_t, half, bfloat16_t, float");
    }
}

// buf: -1 for GM, -2 for UB, else a CubeBuf. Resolves `p` (a pointer or an offset) and prints.
template <typename T>
inline void Print(const T* p, int32_t buf, uint32_t desc, uint32_t n, const char* api) {
#if defined(ASCENDC_DUMP) && ASCENDC_DUMP == 0
    (void)p, (void)buf, (void)desc, (void)n, (void)api;
#else
    Core& c = CurrentCore();
    const uint64_t bytes = uint64_t{n} * sizeof(T);
    const auto raw = reinterpret_cast<uintptr_t>(p);
    const uint8_t* at = reinterpret_cast<const uint8_t*>(p);
    uint64_t addr = raw;
    if (buf == -2 || buf >= 0) {
        const uint8_t* base = buf == -2 ? c.ub : CubeOf(c).base[buf];
        const uint64_t cap = buf == -2 ? c.ub_capacity : kCubeBufBytes[buf];
        if (at >= base && at < base + cap) {
            addr = static_cast<uint64_t>(at - base);
        } else {
            at = base + raw;  // an offset, as GetPhyAddr() gives
        }
        if (addr + bytes > cap) {
            Fail(ErrorKind::LocalMemoryOutOfBounds, api,
                 "offset " + Str(addr) + " + " + Str(bytes) + " bytes runs past " +
                     (buf == -2 ? std::string("the Unified Buffer") : std::string(CubeBufName(buf))) +
                     " (" + Str(cap) + " bytes)");
        }
    }
    static const char* const kPos[] = {"L1", "L0A", "L0B", "L0C", "BIAS"};
    char a[32];
    std::snprintf(a, sizeof(a), buf == -1 ? "0x%llx" : "%llu", static_cast<unsigned long long>(addr));  // NOLINT
    std::string out = "DumpTensor: desc=" + std::to_string(desc) + ", addr=" + a +
                      ", data_type=" + DumpTypeName<T>() +
                      ", position=" + (buf == -1 ? "GM" : buf == -2 ? "UB" : kPos[buf]) +
                      ", dump_size=" + std::to_string(n) + "\n[";
    char v[64];
    for (uint32_t i = 0; i < n; ++i) {
        T x;
        std::memcpy(static_cast<void*>(&x), at + uint64_t{i} * sizeof(T), sizeof(T));
        if constexpr (std::is_integral_v<T>) {
            if constexpr (std::is_signed_v<T>) {
                std::snprintf(v, sizeof(v), "%lld", static_cast<long long>(x));  // NOLINT
            } else {
                std::snprintf(v, sizeof(v), "%llu", static_cast<unsigned long long>(x));  // NOLINT
            }
        } else {
            std::snprintf(v, sizeof(v), "%f", static_cast<double>(static_cast<float>(x)));
        }
        out += (i ? ", " : "") + std::string(v);
    }
    out += "]\n";
    std::fputs(out.c_str(), stdout);
    std::fflush(stdout);
#endif
}

}  // namespace dump
}  // namespace opgen_sim

template <typename T>
inline void asc_dump_gm(__gm__ T* input, uint32_t desc, uint32_t dump_size) {
    opgen_sim::dump::Print<T>(input, -1, desc, dump_size, "asc_dump_gm");
}
template <typename T>
inline void asc_dump_ubuf(__ubuf__ T* input, uint32_t desc, uint32_t dump_size) {
    opgen_sim::dump::Print<T>(input, -2, desc, dump_size, "asc_dump_ubuf");
}
template <typename T>
inline void asc_dump_l1buf(__cbuf__ T* input, uint32_t desc, uint32_t dump_size) {
    opgen_sim::dump::Print<T>(input, opgen_sim::kCubeL1, desc, dump_size, "asc_dump_l1buf");
}
template <typename T>
inline void asc_dump_cbuf(__cc__ T* input, uint32_t desc, uint32_t dump_size) {
    opgen_sim::dump::Print<T>(input, opgen_sim::kCubeL0C, desc, dump_size, "asc_dump_cbuf");
}
