// opgen NPU simulator: ListTensorDesc and TensorDesc, which read the descriptor of a dynamic
// (list) input in GM. Layout, in 64-bit words: word 0 is the byte offset of the data pointers;
// then one descriptor per tensor, (dim | index << 32) followed by `dim` shape words (a dim of 0
// means pointers only, with one 0xffffffff word in place of the shape); then the data pointers.
// Where the reference is silent (how the tensor count is found), CANN's implementation decides:
// the high half of the first descriptor word if nonzero, else the last descriptor's index + 1.
#pragma once

#include "kernel_operator.h"

namespace AscendC {

class ListTensorDesc;

template <class T>
class TensorDesc {
public:
    TensorDesc() {}
    void SetShapeAddr(uint64_t* shapePtr) { shape_ = shapePtr; }
    uint64_t GetDim() { return dim_; }
    uint64_t GetIndex() { return index_; }
    uint64_t GetShape(uint32_t offset) {
        if (shape_ == nullptr || offset >= dim_) {
            opgen_sim::Fail(opgen_sim::ErrorKind::Generic, "TensorDesc::GetShape",
                            "offset " + std::to_string(offset) + " is outside the " + std::to_string(dim_) +
                                " dims read by ListTensorDesc::GetDesc");
        }
        return shape_[offset];
    }
    __gm__ T* GetDataPtr() { return ptr_; }
    GlobalTensor<T> GetDataObj() {
        GlobalTensor<T> t;
        t.SetGlobalBuffer(ptr_);
        return t;
    }

private:
    friend class ListTensorDesc;
    uint64_t* shape_ = nullptr;
    uint32_t dim_ = 0;
    uint32_t index_ = 0;
    __gm__ T* ptr_ = nullptr;
};

class ListTensorDesc {
public:
    ListTensorDesc() {}
    ListTensorDesc(__gm__ void* data, uint32_t length = 0xffffffff, uint32_t shapeSize = 0xffffffff) {
        Init(data, length, shapeSize);
    }
    // length and shapeSize only check the layout (CANN: not checked when left out).
    void Init(__gm__ void* data, uint32_t length = 0xffffffff, uint32_t shapeSize = 0xffffffff) {
        constexpr const char* api = "ListTensorDesc::Init";
        if (data == nullptr) opgen_sim::Fail(opgen_sim::ErrorKind::Generic, api, "data is a null address");
        auto* words = reinterpret_cast<const uint64_t*>(data);
        const uint64_t ptr_offset = words[0];
        shapes_ = words + 1;
        pointers_ = words + ptr_offset / sizeof(uint64_t);
        dim_ = static_cast<uint32_t>(shapes_[0] & 0xffffffffu);
        const uint32_t first_index = static_cast<uint32_t>(shapes_[0] >> 32);
        stride_ = dim_ == 0 ? 2 : 1 + dim_;
        count_ = first_index != 0 ? first_index
                                  : static_cast<uint32_t>(*(pointers_ - stride_) >> 32) + 1;
        const bool laid_out =
            dim_ != 0 ? ptr_offset >= sizeof(uint64_t) &&
                            count_ == (ptr_offset - sizeof(uint64_t)) / (stride_ * sizeof(uint64_t))
                      : shapes_[1] == 0xffffffffu && ptr_offset == 3 * sizeof(uint64_t);
        if (!laid_out) {
            opgen_sim::Fail(opgen_sim::ErrorKind::Generic, api,
                            "the descriptor is not a list-tensor layout: data pointers at byte " +
                                opgen_sim::Str(ptr_offset) + ", " + std::to_string(count_) +
                                " descriptor(s) of dim " + std::to_string(dim_));
        }
        if (length != 0xffffffffu && shapeSize != 0xffffffffu &&
            (count_ != shapeSize || length != ptr_offset + count_ * sizeof(uint64_t))) {
            opgen_sim::Fail(opgen_sim::ErrorKind::Generic, api,
                            "the layout holds " + std::to_string(count_) + " tensor(s) in " +
                                opgen_sim::Str(ptr_offset + count_ * sizeof(uint64_t)) + " bytes, the call says " +
                                std::to_string(shapeSize) + " in " + std::to_string(length));
        }
    }
    template <class T>
    void GetDesc(TensorDesc<T>& desc, uint32_t index) {
        CheckIndex(index, "ListTensorDesc::GetDesc");
        if (dim_ == 0) {
            opgen_sim::Fail(opgen_sim::ErrorKind::Generic, "ListTensorDesc::GetDesc",
                            "the list holds data pointers only (dim 0), no shapes");
        }
        if (desc.shape_ == nullptr) {
            opgen_sim::Fail(opgen_sim::ErrorKind::Generic, "ListTensorDesc::GetDesc",
                            "call TensorDesc::SetShapeAddr first: the shape is written there");
        }
        desc.dim_ = dim_;
        desc.index_ = index;
        desc.ptr_ = GetDataPtr<T>(index);
        const uint64_t* shape = shapes_ + static_cast<uint64_t>(index) * stride_ + 1;
        for (uint32_t i = 0; i < dim_; ++i) desc.shape_[i] = shape[i];
    }
    template <class T>
    __gm__ T* GetDataPtr(uint32_t index) {
        CheckIndex(index, "ListTensorDesc::GetDataPtr");
        return reinterpret_cast<__gm__ T*>(static_cast<uintptr_t>(pointers_[index]));
    }
    uint32_t GetSize() { return count_; }

private:
    void CheckIndex(uint32_t index, const char* api) const {
        if (index >= count_) {
            opgen_sim::Fail(opgen_sim::ErrorKind::Generic, api,
                            "index " + std::to_string(index) + " is outside the list of " +
                                std::to_string(count_) + " tensor(s)");
        }
    }
    const uint64_t* shapes_ = nullptr;
    const uint64_t* pointers_ = nullptr;
    uint32_t dim_ = 0;
    uint32_t stride_ = 0;
    uint32_t count_ = 0;
};

}  // namespace AscendC
