// opgen NPU simulator: acl_base.h on the CPU. The base types, return codes and data types of
// CANN's acl runtime (names and values as CANN documents them), for host programs that run their
// kernels on the simulator. Header-only; C++ only. See docs/simulator.md, "acl programs".
#pragma once

#ifndef __cplusplus
#error "opgen's acl headers are C++ (the simulator is a C++17 library)"
#endif

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>

#ifndef ACL_FUNC_VISIBILITY
#define ACL_FUNC_VISIBILITY
#endif

typedef int aclError;
typedef uint16_t aclFloat16;
typedef void* aclrtStream;
typedef void* aclrtEvent;
typedef void* aclrtContext;

// Return codes (CANN's aclError table and the runtime codes it passes through).
constexpr int ACL_SUCCESS = 0;
constexpr int ACL_ERROR_NONE = 0;
constexpr int ACL_ERROR_INVALID_PARAM = 100000;
constexpr int ACL_ERROR_UNINITIALIZE = 100001;
constexpr int ACL_ERROR_REPEAT_INITIALIZE = 100002;
constexpr int ACL_ERROR_INVALID_FILE = 100003;
constexpr int ACL_ERROR_REPEAT_FINALIZE = 100037;
constexpr int ACL_ERROR_BAD_ALLOC = 200000;
constexpr int ACL_ERROR_API_NOT_SUPPORT = 200001;
constexpr int ACL_ERROR_INVALID_DEVICE = 200002;
constexpr int ACL_ERROR_MEMORY_ADDRESS_UNALIGNED = 200003;
constexpr int ACL_ERROR_RESOURCE_NOT_MATCH = 200004;
constexpr int ACL_ERROR_INVALID_RESOURCE_HANDLE = 200005;
constexpr int ACL_ERROR_FEATURE_UNSUPPORTED = 200006;
constexpr int ACL_ERROR_STORAGE_OVER_LIMIT = 300000;
constexpr int ACL_ERROR_INTERNAL_ERROR = 500000;
constexpr int ACL_ERROR_FAILURE = 500001;
constexpr int ACL_ERROR_RT_FAILURE = 500003;
constexpr int32_t ACL_ERROR_RT_PARAM_INVALID = 107000;
constexpr int32_t ACL_ERROR_RT_INVALID_DEVICEID = 107001;
constexpr int32_t ACL_ERROR_RT_CONTEXT_NULL = 107002;
constexpr int32_t ACL_ERROR_RT_STREAM_CONTEXT = 107003;
constexpr int32_t ACL_ERROR_RT_INVALID_HANDLE = 107017;
constexpr int32_t ACL_ERROR_RT_FEATURE_NOT_SUPPORT = 207000;
constexpr int32_t ACL_ERROR_RT_MEMORY_ALLOCATION = 207001;
constexpr int32_t ACL_ERROR_RT_MEMORY_FREE = 207002;

typedef enum {
    ACL_DT_UNDEFINED = -1,
    ACL_FLOAT = 0,
    ACL_FLOAT16 = 1,
    ACL_INT8 = 2,
    ACL_INT32 = 3,
    ACL_UINT8 = 4,
    ACL_INT16 = 6,
    ACL_UINT16 = 7,
    ACL_UINT32 = 8,
    ACL_INT64 = 9,
    ACL_UINT64 = 10,
    ACL_DOUBLE = 11,
    ACL_BOOL = 12,
    ACL_STRING = 13,
    ACL_COMPLEX64 = 16,
    ACL_COMPLEX128 = 17,
    ACL_BF16 = 27,
} aclDataType;

typedef enum {
    ACL_FORMAT_UNDEFINED = -1,
    ACL_FORMAT_NCHW = 0,
    ACL_FORMAT_NHWC = 1,
    ACL_FORMAT_ND = 2,
    ACL_FORMAT_NC1HWC0 = 3,
    ACL_FORMAT_FRACTAL_Z = 4,
    ACL_FORMAT_FRACTAL_NZ = 29,
} aclFormat;

namespace opgen_acl {

// The message of the latest failed acl call on this thread (aclGetRecentErrMsg).
inline std::string& RecentError() {
    thread_local std::string text;
    return text;
}

// Records a failure and returns its code. The line also goes to stderr: samples often ignore
// return codes, and a silently failed copy shows up much later as wrong output.
inline aclError Fail(aclError code, const std::string& text) {
    RecentError() = text;
    std::fflush(stdout);
    std::fprintf(stderr, "[ERROR][opgen-sim][acl] %s (aclError %d)\n", text.c_str(), code);
    std::fflush(stderr);
    return code;
}

}  // namespace opgen_acl

extern "C" {

// The message of the latest failed acl call on this thread, and clears it; "" when there is none.
inline const char* aclGetRecentErrMsg() {
    thread_local std::string taken;
    taken.swap(opgen_acl::RecentError());
    opgen_acl::RecentError().clear();
    return taken.c_str();
}

// IEEE binary16 with round-to-nearest-even, as the NPU's half.
inline aclFloat16 aclFloatToFloat16(float value) {
    const _Float16 h = static_cast<_Float16>(value);
    aclFloat16 bits;
    std::memcpy(&bits, &h, sizeof(bits));
    return bits;
}

inline float aclFloat16ToFloat(aclFloat16 value) {
    _Float16 h;
    std::memcpy(&h, &value, sizeof(h));
    return static_cast<float>(h);
}

inline size_t aclDataTypeSize(aclDataType dataType) {
    switch (dataType) {
        case ACL_BOOL:
        case ACL_INT8:
        case ACL_UINT8: return 1;
        case ACL_FLOAT16:
        case ACL_BF16:
        case ACL_INT16:
        case ACL_UINT16: return 2;
        case ACL_FLOAT:
        case ACL_INT32:
        case ACL_UINT32: return 4;
        case ACL_INT64:
        case ACL_UINT64:
        case ACL_DOUBLE:
        case ACL_COMPLEX64: return 8;
        case ACL_COMPLEX128: return 16;
        default: return 0;
    }
}

}  // extern "C"
