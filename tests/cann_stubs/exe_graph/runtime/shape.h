// Stub of CANN exe_graph/runtime/shape.h and storage_shape.h.
#pragma once
#include <cstddef>
#include <cstdint>

namespace gert {
struct Shape {
    static constexpr size_t kMaxDimNum = 25;
    Shape() : dim_num_(0), dims_{0} {}
    int64_t GetShapeSize() const
    {
        int64_t n = 1;
        for (size_t i = 0; i < dim_num_; ++i) {
            n *= dims_[i];
        }
        return n;
    }
    size_t GetDimNum() const { return dim_num_; }
    void SetDimNum(const size_t dim_num) { dim_num_ = dim_num; }
    int64_t GetDim(const size_t idx) const { return dims_[idx]; }
    void SetDim(size_t idx, const int64_t dim_value) { dims_[idx] = dim_value; }
    Shape& AppendDim(const int64_t value)
    {
        dims_[dim_num_++] = value;
        return *this;
    }

private:
    size_t dim_num_;
    int64_t dims_[kMaxDimNum];
};

class StorageShape {
public:
    const Shape& GetOriginShape() const { return origin_shape_; }
    const Shape& GetStorageShape() const { return storage_shape_; }
    Shape& MutableOriginShape() { return origin_shape_; }
    Shape& MutableStorageShape() { return storage_shape_; }

private:
    Shape origin_shape_;
    Shape storage_shape_;
};
}  // namespace gert
