// opgen: the bounds-checked copies of CANN's securec library (libc_sec) that host drivers call,
// header-only. CANN's CPU-debug header brings them in: samples call memcpy_s with only
// tikicpulib.h included. Return codes are the library's: a failed call reports why, and the
// "_AND_RESET" codes mean the destination was cleared.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#ifndef EOK
#define EOK 0
#endif
using errno_t = int;

namespace opgen_securec {
constexpr errno_t kEinval = 22;
constexpr errno_t kErange = 34;
constexpr errno_t kEinvalAndReset = 22 | 128;
constexpr errno_t kErangeAndReset = 34 | 128;
constexpr errno_t kEoverlapAndReset = 54 | 128;
constexpr size_t kMaxLen = 0x7fffffffUL;
}  // namespace opgen_securec

inline errno_t memcpy_s(void* dest, size_t destMax, const void* src, size_t count) {
    namespace s = opgen_securec;
    if (dest == nullptr) return s::kEinval;
    if (destMax == 0 || destMax > s::kMaxLen) return s::kErange;
    if (src == nullptr) {
        std::memset(dest, 0, destMax);
        return s::kEinvalAndReset;
    }
    if (count > destMax) {
        std::memset(dest, 0, destMax);
        return s::kErangeAndReset;
    }
    const auto* d = static_cast<const uint8_t*>(dest);
    const auto* p = static_cast<const uint8_t*>(src);
    if (count != 0 && d < p + count && p < d + count && d != p) {
        std::memset(dest, 0, destMax);
        return s::kEoverlapAndReset;
    }
    if (count != 0) std::memmove(dest, src, count);
    return EOK;
}

inline errno_t memset_s(void* dest, size_t destMax, int c, size_t count) {
    namespace s = opgen_securec;
    if (dest == nullptr) return s::kEinval;
    if (destMax == 0 || destMax > s::kMaxLen) return s::kErange;
    if (count > destMax) {
        std::memset(dest, c, destMax);
        return s::kErangeAndReset;
    }
    std::memset(dest, c, count);
    return EOK;
}
