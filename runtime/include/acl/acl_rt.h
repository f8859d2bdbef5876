// opgen NPU simulator: acl_rt.h on the CPU. CANN's aclrt runtime for host programs whose kernels
// run on the simulator: one device (id 0), contexts, streams, events, and device memory that the
// simulator knows. aclrtMalloc rounds a request up to a multiple of 32 bytes plus 32 bytes, as
// CANN documents, and registers the buffer as Global Memory: a kernel's GM accesses are
// bounds-checked against it. Streams run work at once (a launch or an async copy is complete
// when the call returns), so synchronising is a no-op. A failed call returns CANN's code and
// records a message for aclGetRecentErrMsg. See docs/simulator.md, "acl programs".
#pragma once

#include <sys/stat.h>

#include <chrono>
#include <cstdlib>
#include <mutex>
#include <set>
#include <sstream>
#include <string>

#include "acl/acl_base.h"
#include "opgen_sim/gm_registry.h"

typedef enum aclrtRunMode { ACL_DEVICE = 0, ACL_HOST = 1 } aclrtRunMode;

typedef enum aclrtMemcpyKind {
    ACL_MEMCPY_HOST_TO_HOST = 0,
    ACL_MEMCPY_HOST_TO_DEVICE = 1,
    ACL_MEMCPY_DEVICE_TO_HOST = 2,
    ACL_MEMCPY_DEVICE_TO_DEVICE = 3,
    ACL_MEMCPY_DEFAULT = 4,
    ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE = 5,
    ACL_MEMCPY_INNER_DEVICE_TO_DEVICE = 6,
    ACL_MEMCPY_INTER_DEVICE_TO_DEVICE = 7,
} aclrtMemcpyKind;

typedef enum aclrtMemMallocPolicy {
    ACL_MEM_MALLOC_HUGE_FIRST = 0,
    ACL_MEM_MALLOC_HUGE_ONLY = 1,
    ACL_MEM_MALLOC_NORMAL_ONLY = 2,
    ACL_MEM_MALLOC_HUGE_FIRST_P2P = 3,
    ACL_MEM_MALLOC_HUGE_ONLY_P2P = 4,
    ACL_MEM_MALLOC_NORMAL_ONLY_P2P = 5,
    ACL_MEM_MALLOC_HUGE1G_ONLY = 6,
    ACL_MEM_MALLOC_HUGE1G_ONLY_P2P = 7,
    ACL_MEM_TYPE_LOW_BAND_WIDTH = 0x0100,
    ACL_MEM_TYPE_HIGH_BAND_WIDTH = 0x1000,
} aclrtMemMallocPolicy;

namespace opgen_acl {

constexpr int32_t kDeviceCount = 1;
constexpr const char* kDeviceMemory = "aclrtMalloc";

struct Handle {
    const char* kind;  // "stream", "context", "event"
    std::chrono::steady_clock::time_point recorded;
};

struct State {
    std::mutex mu;
    bool initialized = false;
    bool finalized = false;
    std::set<void*> handles;     // live streams, contexts and events
    std::set<void*> host_blocks;  // aclrtMallocHost
};

// The state this code uses: its own, or the program's once an op package's library loaded at
// run time (aclopExecuteV2, acl/acl_op.h) is handed the program's.
inline State*& RtPtr() {
    static State* state = new State();  // never destroyed: usable during exit
    return state;
}

inline State& Rt() { return *RtPtr(); }

// The calling thread's device (-1: none set) and current context.
inline int32_t& ThreadDevice() {
    thread_local int32_t device = -1;
    return device;
}

inline void*& ThreadContext() {
    thread_local void* context = nullptr;
    return context;
}

inline std::string Hex(const void* p) {
    std::ostringstream out;
    out << p;
    return out.str();
}

inline uint64_t RoundUp32(uint64_t n) { return (n + 31) / 32 * 32; }

// p (a Handle, or an object that starts with one) becomes a live handle, or stops being one.
inline void Register(void* p) {
    State& s = Rt();
    std::lock_guard<std::mutex> lock(s.mu);
    s.handles.insert(p);
}

inline void Unregister(void* p) {
    State& s = Rt();
    std::lock_guard<std::mutex> lock(s.mu);
    s.handles.erase(p);
}

inline void* NewHandle(const char* kind) {
    auto* h = new Handle{kind, std::chrono::steady_clock::now()};
    Register(h);
    return h;
}

// The live handle of this kind, or nullptr.
inline Handle* FindHandle(void* p, const char* kind) {
    State& s = Rt();
    std::lock_guard<std::mutex> lock(s.mu);
    if (s.handles.count(p) == 0) return nullptr;
    auto* h = static_cast<Handle*>(p);
    return std::string(h->kind) == kind ? h : nullptr;
}

inline bool DeleteHandle(void* p, const char* kind) {
    if (FindHandle(p, kind) == nullptr) return false;
    Unregister(p);
    delete static_cast<Handle*>(p);
    return true;
}

inline bool IsHostBlock(const void* p) {
    State& s = Rt();
    std::lock_guard<std::mutex> lock(s.mu);
    return s.host_blocks.count(const_cast<void*>(p)) != 0;
}

// A stream argument: nullptr (the default stream) or a live aclrtStream.
inline aclError CheckStream(const char* api, aclrtStream stream) {
    if (stream == nullptr || FindHandle(stream, "stream") != nullptr) return ACL_SUCCESS;
    return Fail(ACL_ERROR_RT_PARAM_INVALID, std::string(api) + ": stream " + Hex(stream) +
                                                " is not a live aclrtStream (destroyed already?)");
}

inline std::string Describe(const opgen_sim::GmBlock& b) {
    return opgen_sim::GmBlockName(b) + " (" + std::to_string(b.size) + " bytes usable, " +
           std::to_string(b.requested) + " requested)";
}

// Checks that [p, p + n) lies within one device buffer. `role` names the operand.
inline aclError CheckDeviceRange(const std::string& api, const char* role, const void* p,
                                 uint64_t n) {
    opgen_sim::GmBlock b{};
    if (!opgen_sim::GmFind(p, &b)) {
        return Fail(ACL_ERROR_RT_PARAM_INVALID, api + ": " + role + " " + Hex(p) +
                                                    " is not device memory (allocate it with aclrtMalloc)");
    }
    const uint64_t off = static_cast<uint64_t>(static_cast<const uint8_t*>(p) - b.ptr);
    if (off + n > b.size) {
        return Fail(ACL_ERROR_RT_PARAM_INVALID,
                    api + ": " + role + " bytes [" + std::to_string(off) + ", " +
                        std::to_string(off + n) + ") run past the end of device buffer " +
                        Describe(b));
    }
    return ACL_SUCCESS;
}

inline aclError CheckHostSide(const std::string& api, const char* role, const void* p) {
    opgen_sim::GmBlock b{};
    if (opgen_sim::GmFind(p, &b)) {
        return Fail(ACL_ERROR_RT_PARAM_INVALID, api + ": " + role + " " + Hex(p) +
                                                    " is device memory (" + opgen_sim::GmBlockName(b) +
                                                    "), but the copy kind says host");
    }
    return ACL_SUCCESS;
}

inline const char* KindName(aclrtMemcpyKind kind) {
    switch (kind) {
        case ACL_MEMCPY_HOST_TO_HOST: return "ACL_MEMCPY_HOST_TO_HOST";
        case ACL_MEMCPY_HOST_TO_DEVICE: return "ACL_MEMCPY_HOST_TO_DEVICE";
        case ACL_MEMCPY_DEVICE_TO_HOST: return "ACL_MEMCPY_DEVICE_TO_HOST";
        case ACL_MEMCPY_DEVICE_TO_DEVICE: return "ACL_MEMCPY_DEVICE_TO_DEVICE";
        case ACL_MEMCPY_DEFAULT: return "ACL_MEMCPY_DEFAULT";
        case ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE: return "ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE";
        case ACL_MEMCPY_INNER_DEVICE_TO_DEVICE: return "ACL_MEMCPY_INNER_DEVICE_TO_DEVICE";
        case ACL_MEMCPY_INTER_DEVICE_TO_DEVICE: return "ACL_MEMCPY_INTER_DEVICE_TO_DEVICE";
    }
    return "?";
}

inline aclError Memcpy(const char* name, void* dst, size_t destMax, const void* src, size_t count,
                       aclrtMemcpyKind kind) {
    const int k = static_cast<int>(kind);
    if (k < 0 || k > ACL_MEMCPY_INTER_DEVICE_TO_DEVICE) {
        return Fail(ACL_ERROR_INVALID_PARAM,
                    std::string(name) + ": kind " + std::to_string(k) + " is not an aclrtMemcpyKind");
    }
    const std::string api = std::string(name) + "(" + KindName(kind) + ")";
    if (dst == nullptr || src == nullptr) {
        return Fail(ACL_ERROR_INVALID_PARAM, api + ": " + (dst == nullptr ? "dst" : "src") + " is null");
    }
    if (count > destMax) {
        return Fail(ACL_ERROR_RT_PARAM_INVALID, api + ": count " + std::to_string(count) +
                                                    " is larger than destMax " + std::to_string(destMax));
    }
    if (count == 0) return ACL_SUCCESS;
    opgen_sim::GmBlock b{};
    bool dst_dev = false;
    bool src_dev = false;
    switch (kind) {
        case ACL_MEMCPY_HOST_TO_HOST: break;
        case ACL_MEMCPY_HOST_TO_DEVICE:
        case ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE: dst_dev = true; break;
        case ACL_MEMCPY_DEVICE_TO_HOST: src_dev = true; break;
        case ACL_MEMCPY_DEFAULT:
            dst_dev = opgen_sim::GmFind(dst, &b);
            src_dev = opgen_sim::GmFind(src, &b);
            break;
        default: dst_dev = src_dev = true; break;
    }
    const bool check_host = kind != ACL_MEMCPY_DEFAULT;
    aclError rc = dst_dev ? CheckDeviceRange(api, "dst", dst, count)
                          : (check_host ? CheckHostSide(api, "dst", dst) : ACL_SUCCESS);
    if (rc != ACL_SUCCESS) return rc;
    rc = src_dev ? CheckDeviceRange(api, "src", src, count)
                 : (check_host ? CheckHostSide(api, "src", src) : ACL_SUCCESS);
    if (rc != ACL_SUCCESS) return rc;
    std::memmove(dst, src, count);
    return ACL_SUCCESS;
}

inline aclError Memset(const char* api, void* devPtr, size_t maxCount, int32_t value, size_t count) {
    if (devPtr == nullptr) return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": devPtr is null");
    if (count > maxCount) {
        return Fail(ACL_ERROR_RT_PARAM_INVALID, std::string(api) + ": count " + std::to_string(count) +
                                                    " is larger than maxCount " + std::to_string(maxCount));
    }
    if (count == 0) return ACL_SUCCESS;
    if (!IsHostBlock(devPtr)) {
        const aclError rc = CheckDeviceRange(api, "devPtr", devPtr, count);
        if (rc != ACL_SUCCESS) return rc;
    }
    std::memset(devPtr, value, count);
    return ACL_SUCCESS;
}

inline aclError Malloc(const char* api, void** devPtr, size_t size, uint64_t usable) {
    if (devPtr == nullptr) return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": devPtr is null");
    if (size == 0) return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": size must not be 0");
    const uint64_t bytes = (usable + 63) / 64 * 64;
    auto* p = static_cast<uint8_t*>(::aligned_alloc(64, bytes));
    if (p == nullptr) {
        return Fail(ACL_ERROR_RT_MEMORY_ALLOCATION,
                    std::string(api) + ": out of memory for " + std::to_string(size) + " bytes");
    }
    std::memset(p, 0, bytes);
    opgen_sim::GmRegister(p, usable, size, kDeviceMemory);
    *devPtr = p;
    return ACL_SUCCESS;
}

inline aclError CheckDeviceId(const char* api, int32_t deviceId) {
    if (deviceId >= 0 && deviceId < kDeviceCount) return ACL_SUCCESS;
    return Fail(ACL_ERROR_RT_INVALID_DEVICEID,
                std::string(api) + ": device " + std::to_string(deviceId) +
                    " does not exist (the simulator has one device, id 0)");
}

}  // namespace opgen_acl

extern "C" {

// ---- initialisation and devices --------------------------------------------------------------

inline aclError aclInit(const char* configPath) {
    if (configPath != nullptr && configPath[0] != '\0') {
        struct stat st;
        if (stat(configPath, &st) != 0 || !S_ISREG(st.st_mode)) {
            return opgen_acl::Fail(ACL_ERROR_INVALID_FILE,
                                   std::string("aclInit: config file '") + configPath + "' is not a file");
        }
    }
    opgen_acl::State& s = opgen_acl::Rt();
    std::lock_guard<std::mutex> lock(s.mu);
    if (s.initialized) {
        return opgen_acl::Fail(ACL_ERROR_REPEAT_INITIALIZE, "aclInit: called twice without aclFinalize");
    }
    s.initialized = true;
    s.finalized = false;
    return ACL_SUCCESS;
}

inline aclError aclFinalize() {
    opgen_acl::State& s = opgen_acl::Rt();
    std::lock_guard<std::mutex> lock(s.mu);
    if (!s.initialized) {
        return opgen_acl::Fail(ACL_ERROR_REPEAT_FINALIZE,
                               s.finalized ? "aclFinalize: called twice" : "aclFinalize: aclInit was not called");
    }
    s.initialized = false;
    s.finalized = true;
    return ACL_SUCCESS;
}

inline aclError aclrtGetVersion(int32_t* majorVersion, int32_t* minorVersion, int32_t* patchVersion) {
    if (majorVersion == nullptr || minorVersion == nullptr || patchVersion == nullptr) {
        return opgen_acl::Fail(ACL_ERROR_INVALID_PARAM, "aclrtGetVersion: null argument");
    }
    *majorVersion = 1;
    *minorVersion = 0;
    *patchVersion = 0;
    return ACL_SUCCESS;
}

inline aclError aclrtGetDeviceCount(uint32_t* count) {
    if (count == nullptr) return opgen_acl::Fail(ACL_ERROR_INVALID_PARAM, "aclrtGetDeviceCount: count is null");
    *count = static_cast<uint32_t>(opgen_acl::kDeviceCount);
    return ACL_SUCCESS;
}

inline aclError aclrtSetDevice(int32_t deviceId) {
    const aclError rc = opgen_acl::CheckDeviceId("aclrtSetDevice", deviceId);
    if (rc != ACL_SUCCESS) return rc;
    opgen_acl::ThreadDevice() = deviceId;
    return ACL_SUCCESS;
}

inline aclError aclrtResetDevice(int32_t deviceId) {
    const aclError rc = opgen_acl::CheckDeviceId("aclrtResetDevice", deviceId);
    if (rc != ACL_SUCCESS) return rc;
    opgen_acl::ThreadDevice() = -1;
    opgen_acl::ThreadContext() = nullptr;
    return ACL_SUCCESS;
}

inline aclError aclrtResetDeviceForce(int32_t deviceId) { return aclrtResetDevice(deviceId); }

inline aclError aclrtGetDevice(int32_t* deviceId) {
    if (deviceId == nullptr) return opgen_acl::Fail(ACL_ERROR_INVALID_PARAM, "aclrtGetDevice: deviceId is null");
    if (opgen_acl::ThreadDevice() < 0 && opgen_acl::ThreadContext() == nullptr) {
        return opgen_acl::Fail(ACL_ERROR_RT_CONTEXT_NULL,
                               "aclrtGetDevice: no device is set on this thread (call aclrtSetDevice)");
    }
    *deviceId = 0;
    return ACL_SUCCESS;
}

inline aclError aclrtGetRunMode(aclrtRunMode* runMode) {
    if (runMode == nullptr) return opgen_acl::Fail(ACL_ERROR_INVALID_PARAM, "aclrtGetRunMode: runMode is null");
    *runMode = ACL_HOST;  // the program runs on the host, beside the (simulated) device
    return ACL_SUCCESS;
}

// The SoC the simulator models (OPGEN_SIM_SOC), in CANN's spelling.
inline const char* aclrtGetSocName() {
    const char* soc = std::getenv("OPGEN_SIM_SOC");
    if (soc != nullptr && std::string(soc) == "ascend310p") return "Ascend310P3";
    return "Ascend910B1";
}

inline aclError aclrtSynchronizeDevice() { return ACL_SUCCESS; }

// ---- contexts --------------------------------------------------------------------------------

inline aclError aclrtCreateContext(aclrtContext* context, int32_t deviceId) {
    if (context == nullptr) return opgen_acl::Fail(ACL_ERROR_INVALID_PARAM, "aclrtCreateContext: context is null");
    const aclError rc = opgen_acl::CheckDeviceId("aclrtCreateContext", deviceId);
    if (rc != ACL_SUCCESS) return rc;
    *context = opgen_acl::NewHandle("context");
    opgen_acl::ThreadContext() = *context;  // a new context becomes the thread's current one
    return ACL_SUCCESS;
}

inline aclError aclrtDestroyContext(aclrtContext context) {
    if (context == nullptr) return opgen_acl::Fail(ACL_ERROR_INVALID_PARAM, "aclrtDestroyContext: context is null");
    if (!opgen_acl::DeleteHandle(context, "context")) {
        return opgen_acl::Fail(ACL_ERROR_RT_PARAM_INVALID, "aclrtDestroyContext: " + opgen_acl::Hex(context) +
                                                               " is not a live context (destroyed already?)");
    }
    if (opgen_acl::ThreadContext() == context) opgen_acl::ThreadContext() = nullptr;
    return ACL_SUCCESS;
}

inline aclError aclrtSetCurrentContext(aclrtContext context) {
    if (context == nullptr || opgen_acl::FindHandle(context, "context") == nullptr) {
        return opgen_acl::Fail(ACL_ERROR_RT_PARAM_INVALID, "aclrtSetCurrentContext: " + opgen_acl::Hex(context) +
                                                               " is not a live context");
    }
    opgen_acl::ThreadContext() = context;
    return ACL_SUCCESS;
}

inline aclError aclrtGetCurrentContext(aclrtContext* context) {
    if (context == nullptr) return opgen_acl::Fail(ACL_ERROR_INVALID_PARAM, "aclrtGetCurrentContext: context is null");
    if (opgen_acl::ThreadContext() == nullptr) {
        if (opgen_acl::ThreadDevice() < 0) {
            return opgen_acl::Fail(ACL_ERROR_RT_CONTEXT_NULL,
                                   "aclrtGetCurrentContext: no context (call aclrtSetDevice or aclrtCreateContext)");
        }
        // aclrtSetDevice's default context
        static void* default_context = opgen_acl::NewHandle("context");
        *context = default_context;
        return ACL_SUCCESS;
    }
    *context = opgen_acl::ThreadContext();
    return ACL_SUCCESS;
}

// ---- streams and events: work runs when it is issued -----------------------------------------

inline aclError aclrtCreateStream(aclrtStream* stream) {
    if (stream == nullptr) return opgen_acl::Fail(ACL_ERROR_INVALID_PARAM, "aclrtCreateStream: stream is null");
    *stream = opgen_acl::NewHandle("stream");
    return ACL_SUCCESS;
}

inline aclError aclrtCreateStreamWithConfig(aclrtStream* stream, uint32_t priority, uint32_t flag) {
    (void)priority;
    (void)flag;
    return aclrtCreateStream(stream);
}

inline aclError aclrtDestroyStream(aclrtStream stream) {
    if (stream == nullptr) return opgen_acl::Fail(ACL_ERROR_INVALID_PARAM, "aclrtDestroyStream: stream is null");
    if (!opgen_acl::DeleteHandle(stream, "stream")) {
        return opgen_acl::Fail(ACL_ERROR_RT_PARAM_INVALID, "aclrtDestroyStream: " + opgen_acl::Hex(stream) +
                                                               " is not a live aclrtStream (destroyed already?)");
    }
    return ACL_SUCCESS;
}

inline aclError aclrtDestroyStreamForce(aclrtStream stream) { return aclrtDestroyStream(stream); }

inline aclError aclrtSynchronizeStream(aclrtStream stream) {
    return opgen_acl::CheckStream("aclrtSynchronizeStream", stream);
}

inline aclError aclrtSynchronizeStreamWithTimeout(aclrtStream stream, int32_t timeout) {
    (void)timeout;
    return opgen_acl::CheckStream("aclrtSynchronizeStreamWithTimeout", stream);
}

inline aclError aclrtCreateEvent(aclrtEvent* event) {
    if (event == nullptr) return opgen_acl::Fail(ACL_ERROR_INVALID_PARAM, "aclrtCreateEvent: event is null");
    *event = opgen_acl::NewHandle("event");
    return ACL_SUCCESS;
}

inline aclError aclrtDestroyEvent(aclrtEvent event) {
    if (!opgen_acl::DeleteHandle(event, "event")) {
        return opgen_acl::Fail(ACL_ERROR_RT_PARAM_INVALID, "aclrtDestroyEvent: " + opgen_acl::Hex(event) +
                                                               " is not a live event");
    }
    return ACL_SUCCESS;
}

inline aclError aclrtRecordEvent(aclrtEvent event, aclrtStream stream) {
    opgen_acl::Handle* h = opgen_acl::FindHandle(event, "event");
    if (h == nullptr) {
        return opgen_acl::Fail(ACL_ERROR_RT_PARAM_INVALID, "aclrtRecordEvent: " + opgen_acl::Hex(event) +
                                                               " is not a live event");
    }
    h->recorded = std::chrono::steady_clock::now();
    return opgen_acl::CheckStream("aclrtRecordEvent", stream);
}

inline aclError aclrtSynchronizeEvent(aclrtEvent event) {
    if (opgen_acl::FindHandle(event, "event") == nullptr) {
        return opgen_acl::Fail(ACL_ERROR_RT_PARAM_INVALID, "aclrtSynchronizeEvent: " + opgen_acl::Hex(event) +
                                                               " is not a live event");
    }
    return ACL_SUCCESS;
}

inline aclError aclrtStreamWaitEvent(aclrtStream stream, aclrtEvent event) {
    if (opgen_acl::FindHandle(event, "event") == nullptr) {
        return opgen_acl::Fail(ACL_ERROR_RT_PARAM_INVALID, "aclrtStreamWaitEvent: " + opgen_acl::Hex(event) +
                                                               " is not a live event");
    }
    return opgen_acl::CheckStream("aclrtStreamWaitEvent", stream);
}

// Host time between the two records, in milliseconds.
inline aclError aclrtEventElapsedTime(float* ms, aclrtEvent startEvent, aclrtEvent endEvent) {
    opgen_acl::Handle* a = opgen_acl::FindHandle(startEvent, "event");
    opgen_acl::Handle* b = opgen_acl::FindHandle(endEvent, "event");
    if (ms == nullptr || a == nullptr || b == nullptr) {
        return opgen_acl::Fail(ACL_ERROR_RT_PARAM_INVALID, "aclrtEventElapsedTime: a null pointer or a dead event");
    }
    *ms = std::chrono::duration<float, std::milli>(b->recorded - a->recorded).count();
    return ACL_SUCCESS;
}

// ---- memory ----------------------------------------------------------------------------------

// Device memory: the request rounded up to a multiple of 32 bytes, plus 32 bytes.
inline aclError aclrtMalloc(void** devPtr, size_t size, aclrtMemMallocPolicy policy) {
    (void)policy;  // huge or normal pages: the same host memory here
    return opgen_acl::Malloc("aclrtMalloc", devPtr, size, opgen_acl::RoundUp32(size) + 32);
}

inline aclError aclrtMallocCached(void** devPtr, size_t size, aclrtMemMallocPolicy policy) {
    (void)policy;
    return opgen_acl::Malloc("aclrtMallocCached", devPtr, size, opgen_acl::RoundUp32(size) + 32);
}

// Device memory rounded up to a multiple of 32 bytes, without aclrtMalloc's extra 32.
inline aclError aclrtMallocAlign32(void** devPtr, size_t size, aclrtMemMallocPolicy policy) {
    (void)policy;
    return opgen_acl::Malloc("aclrtMallocAlign32", devPtr, size, opgen_acl::RoundUp32(size));
}

inline aclError aclrtFree(void* devPtr) {
    if (devPtr == nullptr) return opgen_acl::Fail(ACL_ERROR_INVALID_PARAM, "aclrtFree: devPtr is null");
    if (opgen_sim::GmUnregister(devPtr, opgen_acl::kDeviceMemory)) {
        std::free(devPtr);
        return ACL_SUCCESS;
    }
    opgen_sim::GmBlock b{};
    if (opgen_sim::GmFind(devPtr, &b)) {
        return opgen_acl::Fail(ACL_ERROR_RT_PARAM_INVALID, "aclrtFree: " + opgen_acl::Hex(devPtr) +
                                                               " points inside " + opgen_sim::GmBlockName(b) +
                                                               ", not at its start");
    }
    return opgen_acl::Fail(ACL_ERROR_RT_PARAM_INVALID, "aclrtFree: " + opgen_acl::Hex(devPtr) +
                                                           " was not returned by aclrtMalloc, or was freed already");
}

inline aclError aclrtMallocHost(void** hostPtr, size_t size) {
    if (hostPtr == nullptr) return opgen_acl::Fail(ACL_ERROR_INVALID_PARAM, "aclrtMallocHost: hostPtr is null");
    if (size == 0) return opgen_acl::Fail(ACL_ERROR_INVALID_PARAM, "aclrtMallocHost: size must not be 0");
    void* p = ::aligned_alloc(64, (size + 63) / 64 * 64);
    if (p == nullptr) {
        return opgen_acl::Fail(ACL_ERROR_RT_MEMORY_ALLOCATION,
                               "aclrtMallocHost: out of memory for " + std::to_string(size) + " bytes");
    }
    opgen_acl::State& s = opgen_acl::Rt();
    std::lock_guard<std::mutex> lock(s.mu);
    s.host_blocks.insert(p);
    *hostPtr = p;
    return ACL_SUCCESS;
}

inline aclError aclrtFreeHost(void* hostPtr) {
    if (hostPtr == nullptr) return opgen_acl::Fail(ACL_ERROR_INVALID_PARAM, "aclrtFreeHost: hostPtr is null");
    {
        opgen_acl::State& s = opgen_acl::Rt();
        std::lock_guard<std::mutex> lock(s.mu);
        if (s.host_blocks.erase(hostPtr) == 1) {
            std::free(hostPtr);
            return ACL_SUCCESS;
        }
    }
    return opgen_acl::Fail(ACL_ERROR_RT_PARAM_INVALID, "aclrtFreeHost: " + opgen_acl::Hex(hostPtr) +
                                                           " was not returned by aclrtMallocHost, or was freed already");
}

inline aclError aclrtMemcpy(void* dst, size_t destMax, const void* src, size_t count, aclrtMemcpyKind kind) {
    return opgen_acl::Memcpy("aclrtMemcpy", dst, destMax, src, count, kind);
}

inline aclError aclrtMemcpyAsync(void* dst, size_t destMax, const void* src, size_t count,
                                 aclrtMemcpyKind kind, aclrtStream stream) {
    const aclError rc = opgen_acl::CheckStream("aclrtMemcpyAsync", stream);
    return rc != ACL_SUCCESS ? rc : opgen_acl::Memcpy("aclrtMemcpyAsync", dst, destMax, src, count, kind);
}

// Rows of `width` bytes, `height` of them, between pitched buffers.
inline aclError aclrtMemcpy2d(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width,
                              size_t height, aclrtMemcpyKind kind) {
    if (width > dpitch || width > spitch) {
        return opgen_acl::Fail(ACL_ERROR_INVALID_PARAM, "aclrtMemcpy2d: width " + std::to_string(width) +
                                                            " is larger than a pitch");
    }
    for (size_t r = 0; r < height; ++r) {
        const aclError rc = opgen_acl::Memcpy("aclrtMemcpy2d", static_cast<uint8_t*>(dst) + r * dpitch, width,
                                              static_cast<const uint8_t*>(src) + r * spitch, width, kind);
        if (rc != ACL_SUCCESS) return rc;
    }
    return ACL_SUCCESS;
}

inline aclError aclrtMemcpy2dAsync(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width,
                                   size_t height, aclrtMemcpyKind kind, aclrtStream stream) {
    const aclError rc = opgen_acl::CheckStream("aclrtMemcpy2dAsync", stream);
    return rc != ACL_SUCCESS ? rc : aclrtMemcpy2d(dst, dpitch, src, spitch, width, height, kind);
}

inline aclError aclrtMemset(void* devPtr, size_t maxCount, int32_t value, size_t count) {
    return opgen_acl::Memset("aclrtMemset", devPtr, maxCount, value, count);
}

inline aclError aclrtMemsetAsync(void* devPtr, size_t maxCount, int32_t value, size_t count,
                                 aclrtStream stream) {
    const aclError rc = opgen_acl::CheckStream("aclrtMemsetAsync", stream);
    return rc != ACL_SUCCESS ? rc : opgen_acl::Memset("aclrtMemsetAsync", devPtr, maxCount, value, count);
}

}  // extern "C"

#include "acl/acl_rt_binary.h"
