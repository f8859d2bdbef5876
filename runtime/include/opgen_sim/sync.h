// opgen NPU simulator: pipeline synchronisation (accepted; the simulator runs pipes in order).
#pragma once

#include <cstdarg>

#include "tensor.h"

enum pipe_t : uint8_t { PIPE_S = 0, PIPE_V, PIPE_M, PIPE_MTE1, PIPE_MTE2, PIPE_MTE3, PIPE_ALL, PIPE_FIX };
enum : int32_t {
    EVENT_ID0 = 0, EVENT_ID1, EVENT_ID2, EVENT_ID3, EVENT_ID4, EVENT_ID5, EVENT_ID6, EVENT_ID7,
};

inline void pipe_barrier(pipe_t) {}
inline void set_flag(pipe_t, pipe_t, int32_t) {}
inline void wait_flag(pipe_t, pipe_t, int32_t) {}

namespace AscendC {

template <pipe_t pipe>
inline void PipeBarrier() {}

template <HardEvent event>
inline void SetFlag(int32_t eventID) { (void)eventID; }

template <HardEvent event>
inline void WaitFlag(int32_t eventID) { (void)eventID; }

inline void DataCacheCleanAndInvalid() {}

template <typename... Args>
inline void printf(const char* fmt, Args... args) {
    std::printf(fmt, args...);
}

}  // namespace AscendC
