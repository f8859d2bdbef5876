// opgen NPU simulator: the `__ubuf__ T name[N];` arrays of single-source (.asc) kernels, placed in
// the Unified Buffer of the core that runs them.
//
// The NPU compiler puts a kernel's __ubuf__ local arrays in the core's Unified Buffer (they are
// the operands of the C API, c_api/asc_simd.h) and rejects a kernel whose arrays do not fit. On
// the CPU `__ubuf__` is an empty qualifier (core.h), so an array declared with it would live on
// the host stack; `opgen run` and `opgen cxx` therefore rewrite each such declaration in a
// function body (opgen/asc_rewrite.py, ub_arrays) into, on the same line,
//     ::opgen_sim::UbArray<T[N]> opgen_ubuf_name("T name[N]"); T (&name)[N] = opgen_ubuf_name.ref;
// `name` keeps its type's size and indexing and decays to a T* into the Unified Buffer of the
// block running the kernel. The reservation takes the next 32-byte aligned bytes above what the
// block uses (TPipe buffers, arrays of enclosing scopes) and gives them back when the scope ends,
// last in first out: a frame of UB arrays, as the compiler lays them out. One that does not fit
// is an UnifiedBufferOverflow error where it is declared (the compiler's rejection, at run time).
// Its bytes hold whatever the UB held before, as on the hardware (no initialisation).
#pragma once

#include <string>
#include <type_traits>

#include "kernel_operator.h"

namespace opgen_sim {

[[noreturn]] __attribute__((noinline, cold)) inline void FailUbArray(const Core& c, const char* decl,
                                                                     uint64_t bytes, uint64_t at) {
    Fail(ErrorKind::UnifiedBufferOverflow, "__ubuf__ array",
         std::string("`__ubuf__ ") + decl + "` needs " + Str(bytes) + " bytes of the Unified Buffer from offset " +
             Str(at) + " (" + Str(c.ub_used) + " bytes are in use by the block's other __ubuf__ arrays and "
             "buffers), past its " + Str(c.ub_capacity) + " bytes: the NPU compiler rejects a kernel whose "
             "__ubuf__ arrays do not fit; use smaller arrays or fewer of them");
}

template <typename A>
class UbArray {
    static_assert(std::is_array_v<A> && std::extent_v<A> > 0,
                  "a __ubuf__ array needs a constant size, as the NPU compiler places it when compiling");
    using Elem = std::remove_all_extents_t<A>;
    static_assert(std::is_trivially_destructible_v<Elem>,
                  "__ubuf__ arrays hold plain data (numbers, half, bfloat16_t, or structs of them)");

    // declared before `ref`, whose initialisation (Reserve) sets them
    uint8_t* begin_ = nullptr;
    uint64_t before_ = 0;
    uint64_t end_ = 0;

public:
    explicit UbArray(const char* decl) : ref(*Reserve(decl)) {}
    ~UbArray() {
        Core* c = tls_core;
        if (c == nullptr) return;
        DiscardUb(c, begin_, sizeof(A));  // its data is dead: skip work nobody read
        // last in, first out: only the newest reservation gives its bytes back (another one made
        // above it and still alive, as a TPipe created after the array, keeps them)
        if (c->ub_used == end_) c->ub_used = before_;
    }
    UbArray(const UbArray&) = delete;
    UbArray& operator=(const UbArray&) = delete;

    A& ref;

private:
    A* Reserve(const char* decl) {
        Core& c = CurrentCore();
        const uint64_t at = (c.ub_used + kBlockBytes - 1) / kBlockBytes * kBlockBytes;
        const uint64_t bytes = (sizeof(A) + kBlockBytes - 1) / kBlockBytes * kBlockBytes;
        if (at + bytes > c.ub_capacity) FailUbArray(c, decl, sizeof(A), at);
        before_ = c.ub_used;
        end_ = at + bytes;
        c.ub_used = end_;
        if (static_cast<int64_t>(end_) > c.counters[kPeakUbBytes]) {
            c.counters[kPeakUbBytes] = static_cast<int64_t>(end_);
        }
        begin_ = c.ub + at;
        return reinterpret_cast<A*>(begin_);
    }
};

}  // namespace opgen_sim
