// Stub of CANN's kernel contexts: exe_graph/runtime/{extended_kernel_context, infer_shape_context,
// infer_datatype_context, tiling_context, tiling_data}.h.
#pragma once
#include <cstddef>
#include <cstdint>

#include "exe_graph/runtime/runtime_attrs.h"
#include "exe_graph/runtime/shape.h"
#include "graph/types.h"

namespace fe {
class PlatFormInfos;
}  // namespace fe

namespace gert {
class CompileTimeTensorDesc {
public:
    ge::DataType GetDataType() const { return data_type_; }
    ge::Format GetOriginFormat() const { return format_; }

private:
    ge::DataType data_type_;
    ge::Format format_;
};

class ExtendedKernelContext {
public:
    const RuntimeAttrs* GetAttrs() const;
    const CompileTimeTensorDesc* GetInputDesc(size_t index) const;
    const CompileTimeTensorDesc* GetOptionalInputDesc(size_t ir_index) const;
    const CompileTimeTensorDesc* GetOutputDesc(size_t index) const;
    const char* GetNodeType() const;
    const char* GetNodeName() const;

protected:
    const void* GetInputPointerAt(size_t index) const;
    const void* GetDynamicInputPointerAt(size_t ir_index, size_t relative_index) const;
    void* GetOutputPointerAt(size_t index) const;
};

class InferShapeContext : public ExtendedKernelContext {
public:
    const Shape* GetInputShape(const size_t index) const
    {
        return static_cast<const Shape*>(GetInputPointerAt(index));
    }
    const Shape* GetOptionalInputShape(const size_t ir_index) const
    {
        return static_cast<const Shape*>(GetDynamicInputPointerAt(ir_index, 0));
    }
    const Shape* GetDynamicInputShape(const size_t ir_index, const size_t relative_index) const
    {
        return static_cast<const Shape*>(GetDynamicInputPointerAt(ir_index, relative_index));
    }
    const Shape* GetRequiredInputShape(const size_t ir_index) const
    {
        return static_cast<const Shape*>(GetDynamicInputPointerAt(ir_index, 0));
    }
    Shape* GetOutputShape(const size_t index) { return static_cast<Shape*>(GetOutputPointerAt(index)); }
};

class InferDataTypeContext : public ExtendedKernelContext {
public:
    ge::DataType GetInputDataType(const size_t index) const;
    ge::DataType GetOptionalInputDataType(const size_t ir_index) const;
    ge::DataType GetDynamicInputDataType(const size_t ir_index, const size_t relative_index) const;
    ge::DataType GetRequiredInputDataType(const size_t ir_index) const;
    ge::DataType GetOutputDataType(const size_t index) const;
    ge::graphStatus SetOutputDataType(const size_t index, const ge::DataType datatype);
};

class TilingData {
public:
    size_t GetCapacity() const { return capacity_; }
    size_t GetDataSize() const { return data_size_; }
    void SetDataSize(const size_t size) { data_size_ = size; }
    void* GetData() { return data_; }
    const void* GetData() const { return data_; }

private:
    size_t capacity_;
    size_t data_size_;
    void* data_;
};

class TilingContext : public ExtendedKernelContext {
public:
    const StorageShape* GetInputShape(const size_t index) const
    {
        return static_cast<const StorageShape*>(GetInputPointerAt(index));
    }
    const StorageShape* GetOptionalInputShape(const size_t ir_index) const
    {
        return static_cast<const StorageShape*>(GetDynamicInputPointerAt(ir_index, 0));
    }
    const StorageShape* GetRequiredInputShape(const size_t ir_index) const
    {
        return static_cast<const StorageShape*>(GetDynamicInputPointerAt(ir_index, 0));
    }
    const StorageShape* GetDynamicInputShape(const size_t ir_index, const size_t relative_index) const
    {
        return static_cast<const StorageShape*>(GetDynamicInputPointerAt(ir_index, relative_index));
    }
    const StorageShape* GetOutputShape(const size_t index) const
    {
        return static_cast<const StorageShape*>(GetInputPointerAt(index));
    }
    ge::graphStatus SetTilingKey(const uint64_t tiling_key);
    ge::graphStatus SetBlockDim(const uint32_t block_dim);
    uint32_t GetBlockDim() const;
    template <typename T>
    auto GetTilingData() -> T*
    {
        TilingData* tiling_data = GetRawTilingData();
        if (tiling_data == nullptr || tiling_data->GetCapacity() < sizeof(T)) {
            return nullptr;
        }
        tiling_data->SetDataSize(sizeof(T));
        return static_cast<T*>(tiling_data->GetData());
    }
    TilingData* GetRawTilingData();
    size_t* GetWorkspaceSizes(const size_t workspace_count);
    fe::PlatFormInfos* GetPlatformInfo() const;
};

class OpImplRegisterV2 {
public:
    using InferShapeKernelFunc = UINT32 (*)(InferShapeContext*);
    using InferDataTypeKernelFunc = UINT32 (*)(InferDataTypeContext*);
    using TilingKernelFunc = UINT32 (*)(TilingContext*);
};
}  // namespace gert
