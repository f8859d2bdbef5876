// Stub of CANN exe_graph/runtime/runtime_attrs.h and continuous_vector.h.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace gert {
template <typename T>
class TypedContinuousVector {
public:
    size_t GetSize() const { return size_; }
    const T* GetData() const { return data_; }
    T* MutableData() { return data_; }

private:
    size_t size_;
    T* data_;
};

class RuntimeAttrs {
public:
    template <typename T>
    const T* GetAttrPointer(size_t index) const
    {
        return reinterpret_cast<const T*>(GetPointerByIndex(index));
    }
    const int64_t* GetInt(const size_t index) const { return GetAttrPointer<int64_t>(index); }
    const TypedContinuousVector<int64_t>* GetListInt(const size_t index) const
    {
        return GetAttrPointer<TypedContinuousVector<int64_t>>(index);
    }
    const char* GetStr(const size_t index) const { return GetAttrPointer<char>(index); }
    const float* GetFloat(const size_t index) const { return GetAttrPointer<float>(index); }
    const bool* GetBool(const size_t index) const { return GetAttrPointer<bool>(index); }
    const TypedContinuousVector<float>* GetListFloat(const size_t index) const
    {
        return GetAttrPointer<TypedContinuousVector<float>>(index);
    }
    size_t GetAttrNum() const { return stub_values.size(); }

    // Stub backing (not CANN API): a pointer to each attr's value by index (nullptr: unset).
    std::vector<const void*> stub_values;

private:
    const void* GetPointerByIndex(size_t index) const
    {
        return index < stub_values.size() ? stub_values[index] : nullptr;
    }
};
}  // namespace gert
