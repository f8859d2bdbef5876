// opgen NPU simulator: the kernel's assert (reference "assert": `assert(expr)` and
// `assert(expr, fmt, args...)`), which CANN's kernel_operator.h gives kernels in place of the C
// library's. In a kernel a failed assert ends the block with a KernelAssert error naming the
// condition, the file and line and the formatted message: the launch fails, as on the device,
// and a Python caller gets KernelAssertError instead of an abort() ending its process. In host
// code (a single-source program's main) it is the C library's assert. NDEBUG or ASCENDC_DUMP=0
// turn it off, as in CANN's header.
#pragma once

#include <cassert>
#include <cstdio>
#include <string>

#include "opgen_sim/core.h"

namespace opgen_sim {

[[noreturn]] inline void KernelAssertFailed(const char* cond, const char* file, unsigned line, const char* func,
                                            const std::string& message) {
    if (tls_core == nullptr) __assert_fail(cond, file, line, func);  // host code: the C library's
    Fail(ErrorKind::KernelAssert, "assert",
         std::string("assertion failed: ") + cond + " at " + file + ":" + std::to_string(line) +
             (message.empty() ? std::string() : ": " + message));
}

[[noreturn]] inline void KernelAssertFailed(const char* cond, const char* file, unsigned line, const char* func) {
    KernelAssertFailed(cond, file, line, func, std::string());
}

template <typename... Args>
[[noreturn]] inline void KernelAssertFailed(const char* cond, const char* file, unsigned line, const char* func,
                                            const char* fmt, Args... args) {
    char msg[512];
    if constexpr (sizeof...(Args) == 0) {
        std::snprintf(msg, sizeof(msg), "%s", fmt);
    } else {
        std::snprintf(msg, sizeof(msg), fmt, args...);
    }
    std::string text(msg);
    while (!text.empty() && text.back() == '\n') text.pop_back();
    KernelAssertFailed(cond, file, line, func, text);
}

}  // namespace opgen_sim

#undef assert
#if !(defined(ASCENDC_DUMP) && ASCENDC_DUMP == 0) && !defined(NDEBUG)
#define assert(expr, ...)                                                                     \
    (static_cast<bool>(expr) ? void(0)                                                        \
                             : ::opgen_sim::KernelAssertFailed(#expr, __FILE__, __LINE__,      \
                                                               __PRETTY_FUNCTION__, ##__VA_ARGS__))
#else
#define assert(...) void(0)
#endif
