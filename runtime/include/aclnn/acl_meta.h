// opgen NPU simulator: aclnn/acl_meta.h on the CPU. The handles the aclnn single-operator API
// passes (aclTensor, aclScalar, aclIntArray, aclFloatArray, aclBoolArray, aclTensorList,
// aclOpExecutor), their create/destroy calls and the aclnnStatus codes, with CANN's names and
// values. Header-only and C++11, as the aclnn drivers of CANN's samples compile with -std=c++11.
//
// A driver creates the handles (these inline functions run in its own binary); the op library
// libcust_opapi.so reads them through the same struct definitions. See docs/cann.md, "aclnn
// drivers".
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>

#include "acl/acl_base.h"

typedef int32_t aclnnStatus;

// Status codes (CANN's aclnn return-code table).
constexpr aclnnStatus ACLNN_SUCCESS = 0;
constexpr aclnnStatus ACLNN_ERR_PARAM_NULLPTR = 161001;
constexpr aclnnStatus ACLNN_ERR_PARAM_INVALID = 161002;
constexpr aclnnStatus ACLNN_ERR_RUNTIME_ERROR = 361001;
constexpr aclnnStatus ACLNN_ERR_INNER = 561000;
constexpr aclnnStatus ACLNN_ERR_INNER_INFERSHAPE_ERROR = 561001;
constexpr aclnnStatus ACLNN_ERR_INNER_TILING_ERROR = 561002;
constexpr aclnnStatus ACLNN_ERR_INNER_FIND_KERNEL_ERROR = 561003;
constexpr aclnnStatus ACLNN_ERR_INNER_CREATE_EXECUTOR = 561101;
constexpr aclnnStatus ACLNN_ERR_INNER_NOT_TRANS_EXECUTOR = 561102;
constexpr aclnnStatus ACLNN_ERR_INNER_NULLPTR = 561103;

namespace opgen_aclnn {

// The most dims a tensor carries (gert::Shape's limit).
constexpr int kMaxDims = 25;
// Live handles carry a tag, so that a freed, foreign or uninitialised pointer passed to an aclnn
// call is an error with a message rather than a read of garbage.
constexpr uint32_t kTensorTag = 0x6f70544eu;    // "opTN"
constexpr uint32_t kExecutorTag = 0x6f704558u;  // "opEX"
constexpr uint32_t kArrayTag = 0x6f704152u;     // "opAR"
constexpr uint32_t kDeadTag = 0xdeadbeefu;

// Records a failed aclnn call: its message for aclGetRecentErrMsg, and a line on stderr (drivers
// often print only the code).
inline aclnnStatus Fail(aclnnStatus code, const std::string& text) {
    opgen_acl::RecentError() = text;
    std::fflush(stdout);
    std::fprintf(stderr, "[ERROR][opgen-sim][aclnn] %s (aclnnStatus %d)\n", text.c_str(),
                 static_cast<int>(code));
    std::fflush(stderr);
    return code;
}

}  // namespace opgen_aclnn

// A tensor: a view (shape, strides in elements, offset in elements) on a storage (shape) at
// `data`, device memory from aclrtMalloc.
struct aclTensor {
    uint32_t tag;
    aclDataType dtype;
    aclFormat format;
    uint64_t view_rank;
    int64_t view_dims[opgen_aclnn::kMaxDims];
    int64_t strides[opgen_aclnn::kMaxDims];
    int64_t offset;
    uint64_t storage_rank;
    int64_t storage_dims[opgen_aclnn::kMaxDims];
    void* data;
};

struct aclScalar {
    uint32_t tag;
    aclDataType dtype;
    unsigned char value[16];  // the largest scalar: complex128
};

struct aclIntArray {
    uint32_t tag;
    uint64_t size;
    int64_t* values;
};

struct aclFloatArray {
    uint32_t tag;
    uint64_t size;
    float* values;
};

struct aclBoolArray {
    uint32_t tag;
    uint64_t size;
    bool* values;
};

struct aclTensorList {
    uint32_t tag;
    uint64_t size;
    aclTensor** tensors;
};

typedef struct aclStringArray aclStringArray;

// One prepared call of an op: made by aclnn<Op>GetWorkspaceSize in the op library, run (and then
// destroyed, unless made repeatable) by aclnn<Op>. The op library derives its own state from it.
struct aclOpExecutor {
    uint32_t tag = opgen_aclnn::kExecutorTag;
    bool repeatable = false;
    virtual ~aclOpExecutor() { tag = opgen_aclnn::kDeadTag; }
};

namespace opgen_aclnn {

template <typename Array, typename T>
Array* NewArray(const T* value, uint64_t size) {
    if (value == nullptr && size > 0) return nullptr;
    Array* a = new Array;
    a->tag = kArrayTag;
    a->size = size;
    a->values = size > 0 ? new T[size] : nullptr;
    for (uint64_t i = 0; i < size; ++i) a->values[i] = value[i];
    return a;
}

template <typename Array>
aclnnStatus DeleteArray(const Array* array) {
    if (array == nullptr) return ACLNN_SUCCESS;
    if (array->tag != kArrayTag) {
        return Fail(ACLNN_ERR_PARAM_INVALID, "aclDestroy*Array: not a live array (destroyed "
                                             "already?)");
    }
    Array* a = const_cast<Array*>(array);
    a->tag = kDeadTag;
    delete[] a->values;
    delete a;
    return ACLNN_SUCCESS;
}

}  // namespace opgen_aclnn

extern "C" {

// Returns nullptr for an impossible description (a negative dim, more than 25 dims, a null shape
// with dims), as CANN does.
inline aclTensor* aclCreateTensor(const int64_t* viewDims, uint64_t viewDimsNum,
                                  aclDataType dataType, const int64_t* stride, int64_t offset,
                                  aclFormat format, const int64_t* storageDims,
                                  uint64_t storageDimsNum, void* tensorData) {
    const uint64_t max = static_cast<uint64_t>(opgen_aclnn::kMaxDims);
    if (viewDimsNum > max || storageDimsNum > max || (viewDims == nullptr && viewDimsNum > 0) ||
        (storageDims == nullptr && storageDimsNum > 0) || offset < 0 ||
        aclDataTypeSize(dataType) == 0) {
        opgen_aclnn::Fail(ACLNN_ERR_PARAM_INVALID,
                          "aclCreateTensor: invalid description (null dims, more than 25 dims, "
                          "a negative offset or an unknown data type)");
        return nullptr;
    }
    for (uint64_t i = 0; i < viewDimsNum; ++i) {
        if (viewDims[i] < 0) return nullptr;
    }
    for (uint64_t i = 0; i < storageDimsNum; ++i) {
        if (storageDims[i] < 0) return nullptr;
    }
    aclTensor* t = new aclTensor;
    std::memset(t, 0, sizeof *t);
    t->tag = opgen_aclnn::kTensorTag;
    t->dtype = dataType;
    t->format = format;
    t->view_rank = viewDimsNum;
    t->offset = offset;
    t->storage_rank = storageDimsNum;
    t->data = tensorData;
    int64_t step = 1;
    for (uint64_t k = viewDimsNum; k-- > 0;) {
        t->view_dims[k] = viewDims[k];
        t->strides[k] = stride != nullptr ? stride[k] : step;  // none given: contiguous
        step *= viewDims[k] > 0 ? viewDims[k] : 1;
    }
    for (uint64_t k = 0; k < storageDimsNum; ++k) t->storage_dims[k] = storageDims[k];
    return t;
}

inline aclnnStatus aclDestroyTensor(const aclTensor* tensor) {
    if (tensor == nullptr) return ACLNN_SUCCESS;
    if (tensor->tag != opgen_aclnn::kTensorTag) {
        return opgen_aclnn::Fail(ACLNN_ERR_PARAM_INVALID,
                                 "aclDestroyTensor: not a live aclTensor (destroyed already?)");
    }
    aclTensor* t = const_cast<aclTensor*>(tensor);
    t->tag = opgen_aclnn::kDeadTag;
    delete t;
    return ACLNN_SUCCESS;
}

inline aclScalar* aclCreateScalar(void* value, aclDataType dataType) {
    const size_t size = aclDataTypeSize(dataType);
    if (value == nullptr || size == 0 || size > sizeof(aclScalar::value)) return nullptr;
    aclScalar* s = new aclScalar;
    std::memset(s, 0, sizeof *s);
    s->tag = opgen_aclnn::kArrayTag;
    s->dtype = dataType;
    std::memcpy(s->value, value, size);
    return s;
}

inline aclnnStatus aclDestroyScalar(const aclScalar* scalar) {
    if (scalar == nullptr) return ACLNN_SUCCESS;
    aclScalar* s = const_cast<aclScalar*>(scalar);
    s->tag = opgen_aclnn::kDeadTag;
    delete s;
    return ACLNN_SUCCESS;
}

inline aclIntArray* aclCreateIntArray(const int64_t* value, uint64_t size) {
    return opgen_aclnn::NewArray<aclIntArray>(value, size);
}

inline aclnnStatus aclDestroyIntArray(const aclIntArray* array) {
    return opgen_aclnn::DeleteArray(array);
}

inline aclFloatArray* aclCreateFloatArray(const float* value, uint64_t size) {
    return opgen_aclnn::NewArray<aclFloatArray>(value, size);
}

inline aclnnStatus aclDestroyFloatArray(const aclFloatArray* array) {
    return opgen_aclnn::DeleteArray(array);
}

inline aclBoolArray* aclCreateBoolArray(const bool* value, uint64_t size) {
    return opgen_aclnn::NewArray<aclBoolArray>(value, size);
}

inline aclnnStatus aclDestroyBoolArray(const aclBoolArray* array) {
    return opgen_aclnn::DeleteArray(array);
}

// The list holds the tensors and destroys them with it, as CANN's does.
inline aclTensorList* aclCreateTensorList(const aclTensor* const* value, uint64_t size) {
    if (value == nullptr && size > 0) return nullptr;
    aclTensorList* l = new aclTensorList;
    l->tag = opgen_aclnn::kArrayTag;
    l->size = size;
    l->tensors = size > 0 ? new aclTensor*[size] : nullptr;
    for (uint64_t i = 0; i < size; ++i) l->tensors[i] = const_cast<aclTensor*>(value[i]);
    return l;
}

inline aclnnStatus aclDestroyTensorList(const aclTensorList* array) {
    if (array == nullptr) return ACLNN_SUCCESS;
    aclTensorList* l = const_cast<aclTensorList*>(array);
    for (uint64_t i = 0; i < l->size; ++i) aclDestroyTensor(l->tensors[i]);
    l->tag = opgen_aclnn::kDeadTag;
    delete[] l->tensors;
    delete l;
    return ACLNN_SUCCESS;
}

// An executor made repeatable runs at every aclnn<Op> call until aclDestroyAclOpExecutor.
inline aclnnStatus aclSetAclOpExecutorRepeatable(aclOpExecutor* executor) {
    if (executor == nullptr || executor->tag != opgen_aclnn::kExecutorTag) {
        return opgen_aclnn::Fail(ACLNN_ERR_PARAM_NULLPTR,
                                 "aclSetAclOpExecutorRepeatable: not a live aclOpExecutor");
    }
    executor->repeatable = true;
    return ACLNN_SUCCESS;
}

inline aclnnStatus aclDestroyAclOpExecutor(aclOpExecutor* executor) {
    if (executor == nullptr) return ACLNN_SUCCESS;
    if (executor->tag != opgen_aclnn::kExecutorTag) {
        return opgen_aclnn::Fail(ACLNN_ERR_PARAM_INVALID,
                                 "aclDestroyAclOpExecutor: not a live aclOpExecutor");
    }
    delete executor;  // virtual: the op library's own destructor
    return ACLNN_SUCCESS;
}

}  // extern "C"
