// Stub of CANN's kernel contexts: exe_graph/runtime/{extended_kernel_context, infer_shape_context,
// infer_datatype_context, tiling_context, tiling_data}.h.
//
// The public methods have CANN's signatures. Unlike the real classes, these are backed by plain
// members (the `Stub*` section, not CANN API) so that tests/cann/harness can build a context and
// run a generated tiling function: inputs are stored by IR index (nullptr for an absent optional
// input); GetInputShape(i)/GetInputDesc(i) count only the inputs that are present, as CANN's
// instance indices do, so code that uses them for an optional input reads the wrong tensor.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "exe_graph/runtime/runtime_attrs.h"
#include "exe_graph/runtime/shape.h"
#include "graph/types.h"

namespace fe {
// Opaque in CANN (platform/platform_infos_def.h); here it carries what PlatformAscendC reports.
class PlatFormInfos {
public:
    uint32_t stub_core_num_aiv = 0;
    uint64_t stub_ub_bytes = 0;
};
}  // namespace fe

namespace gert {
class CompileTimeTensorDesc {
public:
    ge::DataType GetDataType() const { return data_type_; }
    ge::Format GetOriginFormat() const { return format_; }
    void SetDataType(ge::DataType data_type) { data_type_ = data_type; }

private:
    ge::DataType data_type_ = ge::DT_FLOAT;
    ge::Format format_ = ge::FORMAT_ND;
};

class ExtendedKernelContext {
public:
    const RuntimeAttrs* GetAttrs() const { return stub_attrs; }
    const CompileTimeTensorDesc* GetInputDesc(size_t index) const
    {
        const size_t ir = InstanceToIr(index);
        return ir < stub_input_descs.size() ? stub_input_descs[ir] : nullptr;
    }
    const CompileTimeTensorDesc* GetOptionalInputDesc(size_t ir_index) const { return IrDesc(ir_index); }
    const CompileTimeTensorDesc* GetRequiredInputDesc(size_t ir_index) const { return IrDesc(ir_index); }
    const CompileTimeTensorDesc* GetDynamicInputDesc(size_t ir_index, size_t relative_index) const
    {
        return relative_index == 0 ? IrDesc(ir_index) : nullptr;
    }
    const CompileTimeTensorDesc* GetOutputDesc(size_t index) const
    {
        return index < stub_output_descs.size() ? stub_output_descs[index] : nullptr;
    }
    const char* GetNodeType() const { return "Stub"; }
    const char* GetNodeName() const { return "stub"; }

    // -- Stub backing (not CANN API) ------------------------------------------------------------
    std::vector<const StorageShape*> stub_inputs;  // by IR index; nullptr: absent optional input
    std::vector<const CompileTimeTensorDesc*> stub_input_descs;  // by IR index
    std::vector<StorageShape*> stub_outputs;
    std::vector<const CompileTimeTensorDesc*> stub_output_descs;
    const RuntimeAttrs* stub_attrs = nullptr;

protected:
    const void* GetInputPointerAt(size_t index) const
    {
        const size_t ir = InstanceToIr(index);
        return ir < stub_inputs.size() ? stub_inputs[ir] : nullptr;
    }
    const void* GetDynamicInputPointerAt(size_t ir_index, size_t relative_index) const
    {
        return ir_index < stub_inputs.size() && relative_index == 0 ? stub_inputs[ir_index] : nullptr;
    }
    void* GetOutputPointerAt(size_t index) const
    {
        return index < stub_outputs.size() ? stub_outputs[index] : nullptr;
    }

private:
    size_t InstanceToIr(size_t index) const
    {
        for (size_t ir = 0; ir < stub_inputs.size(); ++ir) {
            if (stub_inputs[ir] != nullptr && index-- == 0) {
                return ir;
            }
        }
        return stub_inputs.size();
    }
    const CompileTimeTensorDesc* IrDesc(size_t ir_index) const
    {
        if (ir_index >= stub_inputs.size() || stub_inputs[ir_index] == nullptr) {
            return nullptr;
        }
        return ir_index < stub_input_descs.size() ? stub_input_descs[ir_index] : nullptr;
    }
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
    Shape* GetOutputShape(const size_t index)
    {
        StorageShape* out = static_cast<StorageShape*>(GetOutputPointerAt(index));
        return out == nullptr ? nullptr : &out->MutableStorageShape();
    }
};

class InferDataTypeContext : public ExtendedKernelContext {
public:
    ge::DataType GetInputDataType(const size_t index) const { return TypeOf(GetInputDesc(index)); }
    ge::DataType GetOptionalInputDataType(const size_t ir_index) const
    {
        return TypeOf(GetOptionalInputDesc(ir_index));
    }
    ge::DataType GetDynamicInputDataType(const size_t ir_index, const size_t relative_index) const
    {
        return TypeOf(GetDynamicInputDesc(ir_index, relative_index));
    }
    ge::DataType GetRequiredInputDataType(const size_t ir_index) const
    {
        return TypeOf(GetRequiredInputDesc(ir_index));
    }
    ge::DataType GetOutputDataType(const size_t index) const { return TypeOf(GetOutputDesc(index)); }
    ge::graphStatus SetOutputDataType(const size_t index, const ge::DataType datatype)
    {
        if (index >= stub_output_types.size()) {
            return ge::GRAPH_FAILED;
        }
        stub_output_types[index] = datatype;
        return ge::GRAPH_SUCCESS;
    }
    std::vector<ge::DataType> stub_output_types;  // stub backing (not CANN API)

private:
    static ge::DataType TypeOf(const CompileTimeTensorDesc* desc)
    {
        return desc == nullptr ? ge::DT_UNDEFINED : desc->GetDataType();
    }
};

class TilingData {
public:
    size_t GetCapacity() const { return capacity_; }
    size_t GetDataSize() const { return data_size_; }
    void SetDataSize(const size_t size) { data_size_ = size; }
    void* GetData() { return data_; }
    const void* GetData() const { return data_; }

    // Stub backing (not CANN API): the buffer the tiling function writes.
    void StubAttach(void* data, size_t capacity)
    {
        data_ = data;
        capacity_ = capacity;
        data_size_ = 0;
    }

private:
    size_t capacity_ = 0;
    size_t data_size_ = 0;
    void* data_ = nullptr;
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
        return static_cast<const StorageShape*>(GetOutputPointerAt(index));
    }
    ge::graphStatus SetTilingKey(const uint64_t tiling_key)
    {
        stub_tiling_key = tiling_key;
        return ge::GRAPH_SUCCESS;
    }
    ge::graphStatus SetBlockDim(const uint32_t block_dim)
    {
        stub_block_dim = block_dim;
        return ge::GRAPH_SUCCESS;
    }
    uint32_t GetBlockDim() const { return stub_block_dim; }
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
    TilingData* GetRawTilingData() { return &stub_tiling_data; }
    size_t* GetWorkspaceSizes(const size_t workspace_count)
    {
        stub_workspaces.assign(workspace_count, 0);
        return stub_workspaces.data();
    }
    fe::PlatFormInfos* GetPlatformInfo() const { return stub_platform; }

    // -- Stub backing (not CANN API) ------------------------------------------------------------
    TilingData stub_tiling_data;
    std::vector<size_t> stub_workspaces;
    fe::PlatFormInfos* stub_platform = nullptr;
    uint32_t stub_block_dim = 0;
    uint64_t stub_tiling_key = 0;
};

class OpImplRegisterV2 {
public:
    using InferShapeKernelFunc = UINT32 (*)(InferShapeContext*);
    using InferDataTypeKernelFunc = UINT32 (*)(InferDataTypeContext*);
    using TilingKernelFunc = UINT32 (*)(TilingContext*);
};
}  // namespace gert
