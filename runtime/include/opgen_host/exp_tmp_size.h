// opgen: the temporary buffer Exp's advanced API (Exp<T, taylorExpandLevel, isReuseSource>)
// needs, one rule for both sides: the host's AscendC::GetExpMaxMinTmpSize (tiling/tiling_api.h)
// reports it, and the simulator's Exp (opgen_sim/vector_more.h) asserts it as CANN's kernel does.
// Standard headers only, so host code and kernels include it alike.
//
// CANN's implementation (asc-devkit impl/adv_api/detail/math/exp/exp_common_impl.h and
// impl/adv_api/tiling/math/exp_tiling_impl.cpp) splits the buffer into float temporaries: 3 for
// float, 2 for float reusing the source, 4 for half. The host asks for at least one 256-byte repeat
// each, at most the whole input in float each; the kernel asserts that each gets at least one
// 32-byte block of the input's type.
#pragma once

#include <cstdint>

namespace opgen_host {

inline constexpr uint64_t kExpRepeatBytes = 256;

// The float temporaries of Exp for an input of `type_size` bytes an element.
constexpr uint64_t ExpTmpBuffers(uint64_t type_size, bool is_reuse_source) {
    if (type_size == sizeof(float)) return is_reuse_source ? 2 : 3;
    return 4;
}

}  // namespace opgen_host
