// opgen NPU simulator: the launch entries of a kernel library compiled at run time (aclrtc,
// acl/acl_rt_compile.h). `opgen rtc-compile` appends to the program's source one entry per
// extern "C" kernel (found by its name) and per name expression (aclrtcAddNameExpr, found by the
// name aclrtcGetLoweredName gives), and the table opgen_rtc_table of them all; the program's
// aclrtBinaryGetFunction looks names up there and aclrtLaunchKernel* calls the entry, which
// unpacks the arguments into the kernel's parameter types and runs its blocks as a <<<>>>
// launch does (a rule violation prints the kernel, the block and the values and exits with 1).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include "opgen_sim/asc_launch.h"

namespace opgen_sim {

// args: one pointer per parameter (aclrtLaunchKernelWithArgsArray), or null with `packed` the
// parameters laid out in order at their natural alignment (aclrtLaunchKernel's argsData).
// (acl/acl_rt_binary.h reads the table through this layout)
using RtcLaunchFn = ::opgen_acl::RtcLaunchFn;
using RtcEntry = ::opgen_acl::RtcTableEntry;

template <typename... P, size_t... I>
inline void RtcRun(const char* kernel, void (*fn)(P...), uint32_t blocks, void** args, const void* packed,
                   size_t packed_size, std::index_sequence<I...>) {
    using Values = std::tuple<std::decay_t<P>...>;
    Values values{};
    if (args != nullptr) {
        ((std::get<I>(values) = *static_cast<const std::decay_t<P>*>(args[I])), ...);
    } else {
        size_t offset = 0;
        const auto take = [&](auto& v) {
            using V = std::decay_t<decltype(v)>;
            offset = (offset + alignof(V) - 1) / alignof(V) * alignof(V);
            if (offset + sizeof(V) > packed_size) {
                IcpuFatal(std::string("aclrtLaunchKernel: kernel '") + kernel + "': argsSize " +
                          std::to_string(packed_size) + " holds fewer bytes than its parameters need");
            }
            std::memcpy(&v, static_cast<const uint8_t*>(packed) + offset, sizeof(V));
            offset += sizeof(V);
        };
        (take(std::get<I>(values)), ...);
    }
    std::apply([&](const auto&... a) {
        size_t i = 0;
        (CheckDeviceArg(kernel, i++, a), ...);
    }, values);
    IcpuRun(kernel, static_cast<int64_t>(blocks), [&]() { std::apply(fn, values); }, "aclrtLaunchKernel");
}

template <typename... P>
inline int RtcLaunch(const char* kernel, void (*fn)(P...), uint32_t blocks, void** args, const void* packed,
                     size_t packed_size) {
    if (args == nullptr && packed == nullptr && sizeof...(P) > 0) {
        IcpuFatal(std::string("aclrtLaunchKernel: kernel '") + kernel + "' takes " + std::to_string(sizeof...(P)) +
                  " arguments and none were given");
    }
    RtcRun(kernel, fn, blocks, args, packed, packed_size, std::index_sequence_for<P...>{});
    return 0;
}

}  // namespace opgen_sim
