// opgen NPU simulator: TBufPool, the resource pools that split a TPipe's Unified Buffer among queues
// and buffers and let two pools reuse the same bytes ("TBufPool", "InitBufPool"), and
// EXTERN_IMPL_BUFPOOL, the macro a kernel's own pool class is built on. The pool state is
// asc-devkit's (impl/basic_api/kernel_tbufpool_impl.h): a start address, the next free address and a
// length, all UB offsets, plus a handle per buffer handed out.
//
// Checks: the buffers handed out by a pool count at most its bufIDSize (past that CANN writes past
// its handle array; here it is an error). A queue, buffer or pool past the pool's length, and a
// shared pool longer than the one it shares, are checked by CANN's CPU-debug build only
// (ASCENDC_DEBUG_ASSERT; the hardware lets them overlap the next buffers): here under
// OPGEN_SIM_STRICT=1. A buffer past the Unified Buffer is an error where it is used, as for
// TPipe::InitBuffer.
#pragma once

#include <cstdint>
#include <string>

#include "tensor.h"

namespace AscendC {

constexpr uint32_t defaultBufIDSize = 4;

// A buffer a pool handed out: its UB offset and length (TBufHandle points at one).
struct TBufType {
    uint32_t address = 0;
    uint32_t dataLen = 0;
};

template <uint32_t bufIDSize>
struct TBufPoolImpl {
    TBufType buf_[bufIDSize > 0 ? bufIDSize : 1];
    uint32_t startAddr_ = 0;
    uint32_t maxAddr_ = 0;
    uint32_t maxLen_ = 0;
    uint8_t curBufSize_ = 0;
    bool isReset_ = true;
};

namespace pool_detail {

inline uint32_t Blocks(uint32_t len) {
    return static_cast<uint32_t>(opgen_sim::RoundUp(len, opgen_sim::kBlockBytes));
}

inline void CheckLength(const char* api, uint32_t len) {
    if (len == 0) {
        opgen_sim::Fail(opgen_sim::ErrorKind::Queue, api, "the length is 0; it must be larger than 0");
    }
}

// The pool `impl` hands out `bytes` more from its next free address (strict mode: within it).
template <uint32_t N>
inline uint32_t Take(const char* api, TBufPoolImpl<N>& impl, uint64_t bytes) {
    const opgen_sim::Core& c = opgen_sim::CurrentCore();
    const uint64_t end = static_cast<uint64_t>(impl.startAddr_) + impl.maxLen_;
    if (c.strict_gm && impl.maxAddr_ + bytes > end) {
        opgen_sim::Fail(opgen_sim::ErrorKind::UnifiedBufferOverflow, api,
                        "the pool's " + std::to_string(impl.maxLen_) + " bytes from UB offset " +
                            std::to_string(impl.startAddr_) + " hold " +
                            std::to_string(end - impl.maxAddr_) + " more, and this asks for " +
                            std::to_string(bytes) +
                            " (strict mode; the hardware lets it overlap the next buffers)");
    }
    const uint32_t at = impl.maxAddr_;
    impl.maxAddr_ = static_cast<uint32_t>(impl.maxAddr_ + bytes);
    return at;
}

// `num` more buffers of the pool (at most bufIDSize: CANN's handle array).
template <uint32_t N>
inline TBufType* Handles(const char* api, TBufPoolImpl<N>& impl, uint32_t num) {
    if (impl.curBufSize_ + num > N) {
        opgen_sim::Fail(opgen_sim::ErrorKind::Queue, api,
                        "the pool hands out at most " + std::to_string(N) +
                            " buffers (its bufIDSize) and already has " +
                            std::to_string(impl.curBufSize_) + "; this asks for " +
                            std::to_string(num) + " more: give TBufPool a larger bufIDSize");
    }
    TBufType* first = impl.buf_ + impl.curBufSize_;
    impl.curBufSize_ = static_cast<uint8_t>(impl.curBufSize_ + num);
    return first;
}

// `pool` made a pool of `len` bytes from UB offset `start`, with nothing handed out yet.
template <class P>
inline void Place(P& pool, uint32_t start, uint32_t len) {
    pool.tBufPoolImpl.startAddr_ = start;
    pool.tBufPoolImpl.maxAddr_ = start;
    pool.tBufPoolImpl.maxLen_ = len;
    pool.tBufPoolImpl.curBufSize_ = 0;
}

// `pool` over the bytes of `share` (its start and length; strict mode: len within them).
template <class P, class U>
inline void Share(const char* api, P& pool, uint32_t len, const U& share) {
    if (opgen_sim::CurrentCore().strict_gm && Blocks(len) > share.tBufPoolImpl.maxLen_) {
        opgen_sim::Fail(opgen_sim::ErrorKind::UnifiedBufferOverflow, api,
                        "the pool is " + std::to_string(Blocks(len)) + " bytes, longer than the " +
                            std::to_string(share.tBufPoolImpl.maxLen_) + " of the pool it shares (strict mode)");
    }
    Place(pool, share.tBufPoolImpl.startAddr_, share.tBufPoolImpl.maxLen_);
}


}  // namespace pool_detail

template <TPosition pos, uint32_t bufIDSize = defaultBufIDSize>
class TBufPool {
public:
    static constexpr TPosition poolPos = pos;
    static constexpr bool isTbufPool = true;

    TBufPool() = default;
    TBufPool(const TBufPool&) = delete;
    TBufPool& operator=(const TBufPool&) = delete;

    template <TPosition src, TPosition dst, int32_t depth, auto mask>
    bool InitBuffer(TQueBind<src, dst, depth, mask>& que, uint8_t num, uint32_t len) {
        constexpr const char* api = "TBufPool::InitBuffer";
        pool_detail::CheckLength(api, len);
        const uint32_t bytes = pool_detail::Blocks(len);
        TBufType* h = pool_detail::Handles(api, tBufPoolImpl, num);
        const uint32_t at = pool_detail::Take(api, tBufPoolImpl, static_cast<uint64_t>(num) * bytes);
        que.InitStartBufHandle(reinterpret_cast<TBufHandle>(h), num, bytes);
        for (uint32_t i = 0; i < num; ++i) {
            que.InitBufHandle(this, i, reinterpret_cast<TBufHandle>(h + i), at + i * bytes, bytes);
        }
        return true;
    }
    template <TPosition bufPos>
    bool InitBuffer(TBuf<bufPos>& buf, uint32_t len) {
        constexpr const char* api = "TBufPool::InitBuffer";
        pool_detail::CheckLength(api, len);
        const uint32_t bytes = pool_detail::Blocks(len);
        TBufType* h = pool_detail::Handles(api, tBufPoolImpl, 1);
        const uint32_t at = pool_detail::Take(api, tBufPoolImpl, bytes);
        buf.InitStartBufHandle(reinterpret_cast<TBufHandle>(h), 1, bytes);
        buf.InitBufHandle(this, 0, reinterpret_cast<TBufHandle>(h), at, bytes);
        return true;
    }
    // A pool of `len` bytes cut from this one's next free bytes.
    template <class T>
    bool InitBufPool(T& bufPool, uint32_t len) {
        static_assert(T::isTbufPool, "TBufPool::InitBufPool takes a TBufPool (or an EXTERN_IMPL_BUFPOOL class)");
        constexpr const char* api = "TBufPool::InitBufPool";
        pool_detail::CheckLength(api, len);
        const uint32_t bytes = pool_detail::Blocks(len);
        pool_detail::Place(bufPool, pool_detail::Take(api, tBufPoolImpl, bytes), bytes);
        return true;
    }
    // A pool over the same bytes as `shareBuf` (its start and length).
    template <class T, class U>
    bool InitBufPool(T& bufPool, uint32_t len, U& shareBuf) {
        static_assert(T::isTbufPool && U::isTbufPool, "TBufPool::InitBufPool shares a TBufPool with a TBufPool");
        constexpr const char* api = "TBufPool::InitBufPool";
        pool_detail::CheckLength(api, len);
        pool_detail::Share(api, bufPool, len, shareBuf);
        return true;
    }
    // As CANN's: the pool forgets its buffers and its bytes (start, next and length 0).
    void Reset() { tBufPoolImpl = TBufPoolImpl<bufIDSize>{}; }

    TBufPoolImpl<bufIDSize> tBufPoolImpl;
};

template <class P>
bool TPipe::InitBufPool(P& bufPool, uint32_t len) {
    static_assert(P::isTbufPool, "TPipe::InitBufPool takes a TBufPool (or an EXTERN_IMPL_BUFPOOL class)");
    pool_detail::CheckLength("TPipe::InitBufPool", len);
    const uint32_t bytes = pool_detail::Blocks(len);
    uint8_t* addr = Reserve(bytes, 1, len);
    pool_detail::Place(bufPool, static_cast<uint32_t>(addr - opgen_sim::CurrentCore().ub), bytes);
    return true;
}

template <class P, class U>
bool TPipe::InitBufPool(P& bufPool, uint32_t len, U& shareBuf) {
    static_assert(P::isTbufPool && U::isTbufPool, "TPipe::InitBufPool shares a TBufPool with a TBufPool");
    constexpr const char* api = "TPipe::InitBufPool";
    pool_detail::CheckLength(api, len);
    pool_detail::Share(api, bufPool, len, shareBuf);
    return true;
}

}  // namespace AscendC

// A kernel's own pool class: the members asc-devkit's macro gives it (Init, Reset, GetBufHandle,
// Get/SetCurAddr, Get/SetCurBufSize and the pool state), so its InitBuffer can place each buffer
// of a queue or TBuf itself (InitStartBufHandle, InitBufHandle). Addresses are UB offsets.
#define EXTERN_IMPL_BUFPOOL(EXT_BUFPOOL, POSITION, BUFID_SIZE)                                      \
public:                                                                                            \
    static constexpr AscendC::TPosition poolPos = POSITION;                                        \
    static constexpr int32_t bufSize = BUFID_SIZE;                                                 \
    static constexpr bool isTbufPool = true;                                                       \
    ~EXT_BUFPOOL() { Reset(); }                                                                    \
    void Reset() {                                                                                 \
        tBufPoolImpl.curBufSize_ = 0;                                                              \
        tBufPoolImpl.maxAddr_ = tBufPoolImpl.startAddr_;                                           \
    }                                                                                              \
    void Init() { tBufPoolImpl = AscendC::TBufPoolImpl<BUFID_SIZE>{}; }                            \
    AscendC::TBufHandle GetBufHandle(uint8_t offset) {                                             \
        if (offset >= BUFID_SIZE) {                                                                \
            opgen_sim::Fail(opgen_sim::ErrorKind::Queue, #EXT_BUFPOOL "::GetBufHandle",            \
                            "handle " + std::to_string(offset) + " is past the pool's " +          \
                                std::to_string(BUFID_SIZE) + " (its BUFID_SIZE)");                 \
        }                                                                                          \
        return reinterpret_cast<AscendC::TBufHandle>(tBufPoolImpl.buf_ + offset);                  \
    }                                                                                              \
    void SetCurAddr(uint32_t curAddr) { tBufPoolImpl.maxAddr_ = curAddr; }                         \
    uint32_t GetCurAddr() { return tBufPoolImpl.maxAddr_; }                                        \
    void SetCurBufSize(uint8_t curBufSize) { tBufPoolImpl.curBufSize_ = curBufSize; }              \
    uint8_t GetCurBufSize() { return tBufPoolImpl.curBufSize_; }                                   \
    AscendC::TBufPoolImpl<BUFID_SIZE> tBufPoolImpl;                                                \
                                                                                                   \
private:                                                                                           \
    friend class AscendC::TPipe
