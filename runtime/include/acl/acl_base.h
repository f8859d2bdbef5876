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

// -- tensor descriptions and data buffers ------------------------------------------------------
// The aclTensorDesc / aclDataBuffer part of acl_base.h: plain host-side records that drivers use
// to describe their operands (dtype, dims, format; an address and a size).
struct aclTensorDesc {
    aclDataType dtype;
    aclFormat format;
    int num_dims;  // -1: unknown rank (a dims of {-2})
    int64_t dims[25];
};

struct aclDataBuffer {
    void* data;
    size_t size;
};

extern "C" {

inline aclTensorDesc* aclCreateTensorDesc(aclDataType dataType, int numDims, const int64_t* dims,
                                          aclFormat format) {
    if (numDims < 0 || numDims > 25 || (numDims > 0 && dims == nullptr)) {
        opgen_acl::Fail(ACL_ERROR_INVALID_PARAM,
                        "aclCreateTensorDesc: numDims " + std::to_string(numDims) +
                            " must be 0..25, with dims given");
        return nullptr;
    }
    aclTensorDesc* d = new aclTensorDesc;
    std::memset(d, 0, sizeof *d);
    d->dtype = dataType;
    d->format = format;
    d->num_dims = numDims;
    for (int i = 0; i < numDims; ++i) d->dims[i] = dims[i];
    if (numDims == 1 && dims[0] == -2) d->num_dims = -1;
    return d;
}

inline void aclDestroyTensorDesc(const aclTensorDesc* desc) { delete desc; }

inline aclDataType aclGetTensorDescType(const aclTensorDesc* desc) {
    return desc != nullptr ? desc->dtype : ACL_DT_UNDEFINED;
}

inline aclFormat aclGetTensorDescFormat(const aclTensorDesc* desc) {
    return desc != nullptr ? desc->format : ACL_FORMAT_UNDEFINED;
}

// 0 for a null description, an unknown rank or a dynamic (-1) dim, as CANN documents.
inline size_t aclGetTensorDescElementCount(const aclTensorDesc* desc) {
    if (desc == nullptr || desc->num_dims < 0) return 0;
    size_t n = 1;
    for (int i = 0; i < desc->num_dims; ++i) {
        if (desc->dims[i] < 0) return 0;
        n *= static_cast<size_t>(desc->dims[i]);
    }
    return n;
}

inline size_t aclGetTensorDescSize(const aclTensorDesc* desc) {
    return desc != nullptr ? aclGetTensorDescElementCount(desc) * aclDataTypeSize(desc->dtype)
                           : 0;
}

inline size_t aclGetTensorDescNumDims(const aclTensorDesc* desc) {
    if (desc == nullptr) return 0;
    return desc->num_dims < 0 ? static_cast<size_t>(-2) : static_cast<size_t>(desc->num_dims);
}

inline aclError aclGetTensorDescDimV2(const aclTensorDesc* desc, size_t index, int64_t* dimSize) {
    if (desc == nullptr || dimSize == nullptr) {
        return opgen_acl::Fail(ACL_ERROR_INVALID_PARAM, "aclGetTensorDescDimV2: null argument");
    }
    if (desc->num_dims < 0 || index >= static_cast<size_t>(desc->num_dims)) {
        return opgen_acl::Fail(ACL_ERROR_INVALID_PARAM,
                               "aclGetTensorDescDimV2: index " + std::to_string(index) +
                                   " is past the description's " +
                                   std::to_string(desc->num_dims) + " dims");
    }
    *dimSize = desc->dims[index];
    return ACL_SUCCESS;
}

inline int64_t aclGetTensorDescDim(const aclTensorDesc* desc, size_t index) {
    int64_t dim = -1;
    return aclGetTensorDescDimV2(desc, index, &dim) == ACL_SUCCESS ? dim : -1;
}

inline aclDataBuffer* aclCreateDataBuffer(void* data, size_t size) {
    aclDataBuffer* b = new aclDataBuffer;
    b->data = data;
    b->size = size;
    return b;
}

inline aclError aclDestroyDataBuffer(const aclDataBuffer* dataBuffer) {
    if (dataBuffer == nullptr) {
        return opgen_acl::Fail(ACL_ERROR_INVALID_PARAM, "aclDestroyDataBuffer: null buffer");
    }
    delete dataBuffer;
    return ACL_SUCCESS;
}

inline void* aclGetDataBufferAddr(const aclDataBuffer* dataBuffer) {
    return dataBuffer != nullptr ? dataBuffer->data : nullptr;
}

inline size_t aclGetDataBufferSizeV2(const aclDataBuffer* dataBuffer) {
    return dataBuffer != nullptr ? dataBuffer->size : 0;
}

inline aclError aclUpdateDataBuffer(aclDataBuffer* dataBuffer, void* data, size_t size) {
    if (dataBuffer == nullptr) {
        return opgen_acl::Fail(ACL_ERROR_INVALID_PARAM, "aclUpdateDataBuffer: null buffer");
    }
    dataBuffer->data = data;
    dataBuffer->size = size;
    return ACL_SUCCESS;
}

}  // extern "C"
