// opgen NPU simulator: `kernel<<<numBlocks, l2ctrl, stream>>>(args...)` launches of single-source
// (.asc) programs. `opgen run` / `opgen cxx` rewrite each launch into
//     ::opgen_sim::AscLaunch("kernel", [&](auto&... a) { kernel(a...); }, numBlocks, l2ctrl, stream)(args...)
// which evaluates the arguments once, checks that every pointer argument is device memory, and
// runs the kernel on numBlocks simulated cores before returning (a stream's work is complete when
// it is issued). A rule violation prints the kernel, the block and the values and exits with 1,
// as ICPU_RUN_KF does.
#pragma once

// A single-source program's host code is compiled in the same translation unit: it spells the
// data types ge::DT_FLOAT..., so the kernel build's DT_* macros stay off, and tiling/tiling_api.h
// gives its host functions beside the kernel structs (OPGEN_ASC_SOURCE).
#ifndef OPGEN_ASC_SOURCE
#define OPGEN_ASC_SOURCE 1
#endif
#ifndef OPGEN_NO_DT_MACROS
#define OPGEN_NO_DT_MACROS 1
#endif

#include <tuple>
#include <type_traits>
#include <utility>

#include "acl/acl_rt.h"
#include "kernel_operator.h"
#include "opgen_sim/icpu.h"

// Kernel-type keywords of single-source programs: the simulator runs every kernel on AIV cores.
#ifndef __vector__
#define __vector__
#endif
#ifndef __cube__
#define __cube__
#endif
#ifndef __mix__
#define __mix__(cube, vec)
#endif
#ifndef __host__
#define __host__
#endif

namespace opgen_sim {

// A kernel's declared type (opgen/asc_rewrite.py puts a declaration returning this in front of
// each `__mix__`, `__vector__` or `__cube__` kernel, and its launches read it): the AIV cores of
// a block, whether its cube cores run beside them (__mix__) or alone (__cube__).
template <int32_t kRatio_, bool kMix_, bool kCube_>
struct KernelKind {
    static constexpr int32_t kRatio = kRatio_;
    static constexpr bool kMix = kMix_;
    static constexpr bool kCube = kCube_;
};

template <typename T>
inline void CheckDeviceArg(const char* kernel, size_t index, const T& value) {
    if constexpr (std::is_pointer_v<T>) {
        if (value == nullptr) return;
        GmBlock b{};
        if (!GmFind(reinterpret_cast<const void*>(value), &b)) {
            IcpuFatal(std::string("kernel '") + kernel + "': argument " + std::to_string(index + 1) +
                      " (" + opgen_acl::Hex(reinterpret_cast<const void*>(value)) +
                      ") is not device memory: pass a pointer from aclrtMalloc");
        }
    }
}

template <typename F, typename... Config>
struct AscLauncher {
    const char* kernel;
    F fn;
    int64_t blocks;
    void* stream;
    int32_t task_ratio;  // AIV cores per block: 2 for a __mix__(1, 2) kernel, -1: UnitTaskRatio
    bool mix;            // a __mix__ kernel: its cube cores run too, unless it uses Matmul
    bool cube;           // a __cube__ kernel: its cores are cube cores (ASCEND_IS_AIC)

    template <typename... A>
    void operator()(A&&... args) const {
        const auto stored = std::make_tuple(std::forward<A>(args)...);  // evaluated once, by value
        std::apply(
            [&](const auto&... a) {
                size_t i = 0;
                (CheckDeviceArg(kernel, i++, a), ...);
            },
            stored);
        if (stream != nullptr && opgen_acl::FindHandle(stream, "stream") == nullptr) {
            IcpuFatal(std::string("kernel '") + kernel + "': stream " + opgen_acl::Hex(stream) +
                      " is not a live aclrtStream");
        }
        IcpuRun(
            kernel, blocks, [&]() { std::apply([&](const auto&... a) { fn(a...); }, stored); },
            "<<<>>>", task_ratio < 0 ? UnitTaskRatio() : task_ratio,
            // the Matmul API computes on the vector cores: its kernels' cube cores have no code
            mix && UnitTaskRatio() == 1, cube);
    }
};

template <typename Stream>
inline void* StreamPointer(Stream s) {
    if constexpr (std::is_pointer_v<Stream>) {
        return const_cast<void*>(static_cast<const void*>(s));
    } else {
        return nullptr;  // 0 or nullptr: the default stream
    }
}

// kTaskRatio: the AIV cores of each block, from the kernel's __mix__(c, v) (v / c; the rewriter
// passes it), 1 for __vector__ and __cube__ kernels, -1 for a kernel of no declared type: its
// file's UnitTaskRatio (opgen_sim/core.h). kMix: a __mix__ kernel, whose cube cores run as well
// (one per block, ASCEND_IS_AIC) unless its file uses the Matmul API. kCube: a __cube__ kernel,
// whose cores are cube cores.
template <int32_t kTaskRatio = 1, bool kMix = false, bool kCube = false, typename F,
          typename Blocks, typename L2 = std::nullptr_t, typename Stream = std::nullptr_t>
inline AscLauncher<F> AscLaunch(const char* kernel, F fn, Blocks blocks, L2 l2ctrl = nullptr,
                                Stream stream = nullptr) {
    (void)l2ctrl;  // L2 cache control: no L2 in the simulator
    return AscLauncher<F>{kernel, fn, static_cast<int64_t>(blocks), StreamPointer(stream), kTaskRatio,
                          kMix, kCube};
}

}  // namespace opgen_sim

// block_idx / block_num: opgen_sim/core.h (every kernel has them).
