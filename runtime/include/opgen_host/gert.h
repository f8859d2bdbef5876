// opgen host runtime: the gert:: values an op_host function reads and writes (Shape,
// StorageShape, Tensor, tensor descs, attrs, tiling data) and the contexts that carry them
// (TilingContext, TilingParseContext, InferShapeContext, InferDataTypeContext). The method names
// and semantics are CANN's (exe_graph/runtime/*.h); the storage behind them is opgen's: one
// NodeCall per host call, filled by opgen_host/host_abi.h from what the runtime passes in.
#pragma once

#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

#include "ge_types.h"

namespace fe {
enum class LocalMemType { L0_A = 0, L0_B = 1, L0_C = 2, L1 = 3, L2 = 4, UB = 5, HBM = 6,
                          RESERVED };

// The platform description behind TilingContext::GetPlatformInfo(); read it through
// platform_ascendc::PlatformAscendC.
class PlatFormInfos {
public:
    std::string soc = "ascend910b";
    uint32_t aiv_cores = 48;
    uint32_t aic_cores = 24;
    uint64_t ub_bytes = 192 * 1024;
    uint64_t l1_bytes = 512 * 1024;
    uint64_t l0a_bytes = 64 * 1024;
    uint64_t l0b_bytes = 64 * 1024;
    uint64_t l0c_bytes = 128 * 1024;
    uint64_t l2_bytes = 192ULL * 1024 * 1024;
    uint64_t hbm_bytes = 64ULL * 1024 * 1024 * 1024;
    uint32_t sys_workspace = 16 * 1024 * 1024;

    // CANN's direct accessors (platform/platform_infos_def.h): the vector cores of the
    // simulated SoC, as PlatformAscendC::GetCoreNum reports for vector ops
    uint32_t GetCoreNum() const { return aiv_cores; }
    // CANN's lookup in the SoC's platform ini (platform_infos_def.h): [label] key=value. Only the
    // SoC's names, core counts and UB and L1 sizes are known; any other entry (the AICoreintrinsicDtypeMap lists,
    // ...) gives false and leaves val as it was, as for a key the ini lacks. ops-nn's tiling
    // registry (common/inc/op_host/tiling_templates_registry.h) then finds no "s8s4" in
    // Intrinsic_mmad and picks its templates by the NPU architecture, as on the 910B.
    bool GetPlatformRes(const std::string& label, const std::string& key, std::string& val) const {
        const bool is310p = soc == "ascend310p";
        if (label == "version" && key == "SoC_version") {
            val = is310p ? "Ascend310P3" : "Ascend910B1";
            return true;
        }
        if (label == "version" && key == "Short_SoC_version") {
            val = is310p ? "Ascend310P" : "Ascend910B";
            return true;
        }
        if (label == "SoCInfo" && key == "ai_core_cnt") {
            val = std::to_string(aic_cores);
            return true;
        }
        if (label == "SoCInfo" && key == "vector_core_cnt") {
            val = std::to_string(aiv_cores);
            return true;
        }
        if (label == "AICoreSpec" && (key == "ub_size" || key == "l1_size")) {
            val = std::to_string(key == "ub_size" ? ub_bytes : l1_bytes);
            return true;
        }
        return false;
    }
    bool GetPlatformResWithLock(const std::string& label, const std::string& key, std::string& val) const {
        return GetPlatformRes(label, key, val);
    }
    void GetLocalMemSize(LocalMemType type, uint64_t& size) const {
        switch (type) {
            case LocalMemType::UB: size = ub_bytes; break;
            case LocalMemType::L1: size = l1_bytes; break;
            case LocalMemType::L0_A: size = l0a_bytes; break;
            case LocalMemType::L0_B: size = l0b_bytes; break;
            case LocalMemType::L0_C: size = l0c_bytes; break;
            case LocalMemType::L2: size = l2_bytes; break;
            case LocalMemType::HBM: size = hbm_bytes; break;
            default: size = 0; break;
        }
    }
};
}  // namespace fe

namespace gert {

class Shape {
public:
    static constexpr size_t kMaxDimNum = 25;
    static constexpr int64_t kInvalidDimValue = INT64_MIN;

    Shape() = default;
    Shape(std::initializer_list<int64_t> dims) {
        for (int64_t d : dims) AppendDim(d);
    }
    size_t GetDimNum() const { return dim_num_; }
    void SetDimNum(size_t n) { dim_num_ = n > kMaxDimNum ? kMaxDimNum : n; }
    int64_t GetDim(size_t i) const { return i < dim_num_ ? dims_[i] : kInvalidDimValue; }
    ge::graphStatus SetDim(size_t i, int64_t v) {
        if (i >= dim_num_) return ge::GRAPH_FAILED;
        dims_[i] = v;
        return ge::GRAPH_SUCCESS;
    }
    Shape& AppendDim(int64_t v) {
        if (dim_num_ < kMaxDimNum) dims_[dim_num_++] = v;
        return *this;
    }
    bool IsScalar() const { return dim_num_ == 0; }
    void SetScalar() { dim_num_ = 0; }
    int64_t GetShapeSize() const {
        int64_t n = 1;
        for (size_t i = 0; i < dim_num_; ++i) {
            if (dims_[i] < 0) return -1;
            n *= dims_[i];
        }
        return n;
    }
    const int64_t& operator[](size_t i) const { return dims_[i]; }
    int64_t& operator[](size_t i) { return dims_[i]; }
    bool operator==(const Shape& o) const {
        if (dim_num_ != o.dim_num_) return false;
        for (size_t i = 0; i < dim_num_; ++i) {
            if (dims_[i] != o.dims_[i]) return false;
        }
        return true;
    }
    bool operator!=(const Shape& o) const { return !(*this == o); }

private:
    size_t dim_num_ = 0;
    int64_t dims_[kMaxDimNum] = {};
};

struct StorageShape {
    StorageShape() = default;
    StorageShape(std::initializer_list<int64_t> origin, std::initializer_list<int64_t> storage)
        : origin_(origin), storage_(storage) {}
    const Shape& GetOriginShape() const { return origin_; }
    const Shape& GetStorageShape() const { return storage_; }
    const Shape& GetShape() const { return storage_; }
    Shape& MutableOriginShape() { return origin_; }
    Shape& MutableStorageShape() { return storage_; }
    Shape& MutableShape() { return storage_; }
    bool operator==(const StorageShape& o) const {
        return origin_ == o.origin_ && storage_ == o.storage_;
    }
    bool operator!=(const StorageShape& o) const { return !(*this == o); }

private:
    Shape origin_;
    Shape storage_;
};

class StorageFormat {
public:
    StorageFormat() = default;
    StorageFormat(ge::Format origin, ge::Format storage) : origin_(origin), storage_(storage) {}
    ge::Format GetOriginFormat() const { return origin_; }
    ge::Format GetStorageFormat() const { return storage_; }
    void SetOriginFormat(ge::Format f) { origin_ = f; }
    void SetStorageFormat(ge::Format f) { storage_ = f; }

private:
    ge::Format origin_ = ge::FORMAT_ND;
    ge::Format storage_ = ge::FORMAT_ND;
};

class CompileTimeTensorDesc {
public:
    ge::DataType GetDataType() const { return dtype_; }
    ge::Format GetOriginFormat() const { return format_.GetOriginFormat(); }
    ge::Format GetStorageFormat() const { return format_.GetStorageFormat(); }
    const StorageFormat& GetFormat() const { return format_; }
    void SetDataType(ge::DataType d) { dtype_ = d; }
    void SetStorageFormat(ge::Format f) { format_.SetStorageFormat(f); }
    void SetOriginFormat(ge::Format f) { format_.SetOriginFormat(f); }

private:
    ge::DataType dtype_ = ge::DT_UNDEFINED;
    StorageFormat format_;
};

class Tensor {
public:
    Tensor() = default;
    const StorageShape& GetShape() const { return shape_; }
    StorageShape& GetShape() { return shape_; }
    const Shape& GetStorageShape() const { return shape_.GetStorageShape(); }
    const Shape& GetOriginShape() const { return shape_.GetOriginShape(); }
    Shape& MutableStorageShape() { return shape_.MutableStorageShape(); }
    Shape& MutableOriginShape() { return shape_.MutableOriginShape(); }
    int64_t GetShapeSize() const { return shape_.GetStorageShape().GetShapeSize(); }
    ge::DataType GetDataType() const { return desc_.GetDataType(); }
    void SetDataType(ge::DataType d) { desc_.SetDataType(d); }
    const StorageFormat& GetFormat() const { return desc_.GetFormat(); }
    ge::Format GetStorageFormat() const { return desc_.GetStorageFormat(); }
    ge::Format GetOriginFormat() const { return desc_.GetOriginFormat(); }
    void SetStorageFormat(ge::Format f) { desc_.SetStorageFormat(f); }
    void SetOriginFormat(ge::Format f) { desc_.SetOriginFormat(f); }
    // Host values of a tensor are present only for inputs the runtime passed by value
    // (OpParamDef::ValueDepend); elsewhere the address is null, as on the NPU at tiling time.
    template <typename T>
    const T* GetData() const { return static_cast<const T*>(addr_); }
    const void* GetAddr() const { return addr_; }
    size_t GetSize() const { return size_; }
    void SetData(const void* addr, size_t size) {
        addr_ = addr;
        size_ = size;
    }
    const CompileTimeTensorDesc& Desc() const { return desc_; }

private:
    StorageShape shape_;
    CompileTimeTensorDesc desc_;
    const void* addr_ = nullptr;
    size_t size_ = 0;
};

// A vector stored in one block: [capacity, size, elements...], so a pointer to it is what
// RuntimeAttrs::GetAttrPointer<ContinuousVector> returns for a list attr.
class ContinuousVector {
public:
    static std::unique_ptr<uint8_t[]> Create(size_t capacity_bytes, size_t& total_size) {
        total_size = sizeof(ContinuousVector) + capacity_bytes;
        std::unique_ptr<uint8_t[]> block(new uint8_t[total_size]());
        reinterpret_cast<ContinuousVector*>(block.get())->Init(capacity_bytes);
        return block;
    }
    void Init(size_t capacity) {
        capacity_ = capacity;
        size_ = 0;
    }
    size_t GetSize() const { return size_; }
    ge::graphStatus SetSize(size_t size) {
        if (size > capacity_) return ge::GRAPH_FAILED;
        size_ = size;
        return ge::GRAPH_SUCCESS;
    }
    size_t GetCapacity() const { return capacity_; }
    const void* GetData() const { return data_; }
    void* MutableData() { return data_; }

private:
    size_t capacity_ = 0;
    size_t size_ = 0;
    alignas(8) uint8_t data_[8] = {};
};

template <typename T>
class TypedContinuousVector : private ContinuousVector {
public:
    using ContinuousVector::GetCapacity;
    using ContinuousVector::GetSize;
    using ContinuousVector::SetSize;
    const T* GetData() const { return static_cast<const T*>(ContinuousVector::GetData()); }
    T* MutableData() { return static_cast<T*>(ContinuousVector::MutableData()); }
};

// Attr values in the op's declaration order (OpDef::Attr), each in its own aligned block.
class RuntimeAttrs {
public:
    template <typename T>
    const T* GetAttrPointer(size_t index) const {
        if (index >= values_.size()) return nullptr;
        return reinterpret_cast<const T*>(values_[index].data());
    }
    const int64_t* GetInt(size_t i) const { return GetAttrPointer<int64_t>(i); }
    const float* GetFloat(size_t i) const { return GetAttrPointer<float>(i); }
    const bool* GetBool(size_t i) const { return GetAttrPointer<bool>(i); }
    const char* GetStr(size_t i) const { return GetAttrPointer<char>(i); }
    const TypedContinuousVector<int64_t>* GetListInt(size_t i) const {
        return GetAttrPointer<TypedContinuousVector<int64_t>>(i);
    }
    const TypedContinuousVector<float>* GetListFloat(size_t i) const {
        return GetAttrPointer<TypedContinuousVector<float>>(i);
    }
    const TypedContinuousVector<bool>* GetListBool(size_t i) const {
        return GetAttrPointer<TypedContinuousVector<bool>>(i);
    }
    size_t GetAttrNum() const { return values_.size(); }

    // opgen: filling (host_abi.h)
    void AddBytes(const void* data, size_t n) {
        values_.emplace_back((n + 7) / 8 + 1, 0);  // +1: a terminating zero for strings
        if (n != 0) std::memcpy(values_.back().data(), data, n);
    }
    void AddList(const void* data, size_t count, size_t elem) {
        size_t total = 0;
        std::unique_ptr<uint8_t[]> block = ContinuousVector::Create(count * elem, total);
        auto* v = reinterpret_cast<ContinuousVector*>(block.get());
        if (count != 0) std::memcpy(v->MutableData(), data, count * elem);
        v->SetSize(count);
        AddBytes(block.get(), total);
    }

private:
    std::vector<std::vector<uint64_t>> values_;
};

class TilingData {
public:
    size_t GetCapacity() const { return capacity_; }
    size_t GetDataSize() const { return data_size_; }
    void SetDataSize(size_t size) { data_size_ = size; }
    void* GetData() { return data_; }
    const void* GetData() const { return data_; }
    template <typename T>
    ge::graphStatus Append(const T& data) {
        return Append(&data, 1);
    }
    template <typename T>
    ge::graphStatus Append(const T* data, size_t num) {
        const size_t bytes = sizeof(T) * num;
        if (data_size_ + bytes > capacity_) return ge::GRAPH_FAILED;
        std::memcpy(static_cast<uint8_t*>(data_) + data_size_, data, bytes);
        data_size_ += bytes;
        return ge::GRAPH_SUCCESS;
    }
    void Init(size_t capacity, void* data) {
        capacity_ = capacity;
        data_size_ = 0;
        data_ = data;
    }

private:
    size_t capacity_ = 0;
    size_t data_size_ = 0;
    void* data_ = nullptr;
};

struct Dim3 {
    uint32_t x = 1, y = 1, z = 1;
};

// Everything one host call sees and produces. IR inputs map to instances: an absent optional
// input has no instance (it shifts GetInputShape(i) as in CANN), a dynamic one has several.
struct NodeCall {
    std::string op_type;
    std::vector<size_t> ir_start;  // per IR input: index of its first instance
    std::vector<size_t> ir_count;  // per IR input: number of instances (0: absent)
    std::vector<size_t> ir_out_start;  // per IR output: index of its first instance
    std::vector<size_t> ir_out_count;  // per IR output: number of instances
    std::vector<Tensor> inputs;    // present instances, in order
    std::vector<StorageShape> output_shapes;
    // per output: whether InferShape asked for its shape to write it (one that never does
    // leaves the shape to the caller, as an aclnn caller gives it)
    std::vector<bool> output_shape_asked;
    std::vector<CompileTimeTensorDesc> output_descs;
    std::vector<ge::DataType> output_dtypes;  // InferDataType's results
    RuntimeAttrs attrs;
    const void* compile_info = nullptr;
    const char* compiled_json = "{}";
    fe::PlatFormInfos* platform = nullptr;
    TilingData tiling;
    uint64_t tiling_key = 0;
    uint32_t block_dim = 0;
    bool block_dim_set = false;
    uint32_t schedule_mode = 0;
    int32_t tiling_cond = 0;
    bool need_atomic = false;
    uint32_t local_memory = 0;
    std::vector<size_t> workspaces;
    bool workspaces_asked = false;
};

// Where one IR input's (or output's) instances start among the node's inputs (outputs) and how
// many there are: one for a required input, 0 or 1 for an optional one, n for a dynamic one.
class AnchorInstanceInfo {
public:
    AnchorInstanceInfo() = default;
    AnchorInstanceInfo(uint32_t instance_start, uint32_t instantiation_num)
        : instance_start_(instance_start), instantiation_num_(instantiation_num) {}
    size_t GetInstanceNum() const { return instantiation_num_; }
    size_t GetInstanceStart() const { return instance_start_; }
    void SetInstanceStart(uint32_t instance_start) { instance_start_ = instance_start; }
    void SetInstantiationNum(uint32_t instantiation_num) { instantiation_num_ = instantiation_num; }

private:
    uint32_t instance_start_ = 0;
    uint32_t instantiation_num_ = 0;
};

// The node a host function runs for, as CANN describes it to every context: its type and name,
// its IR inputs and outputs and their instances, each instance's dtype and formats, its attrs.
// A view of opgen's NodeCall (the node name is the op type: opgen's calls have no graph). Every
// output is its own IR output with one instance.
class ComputeNodeInfo {
public:
    const ge::char_t* GetNodeType() const { return c_->op_type.c_str(); }
    const ge::char_t* GetNodeName() const { return c_->op_type.c_str(); }
    size_t GetIrInputsNum() const { return ir_inputs_.size(); }
    size_t GetIrOutputsNum() const { return ir_outputs_.size(); }
    size_t GetInputsNum() const { return c_->inputs.size(); }
    size_t GetOutputsNum() const { return c_->output_descs.size(); }
    const AnchorInstanceInfo* GetInputInstanceInfo(size_t ir_index) const {
        return ir_index < ir_inputs_.size() ? &ir_inputs_[ir_index] : nullptr;
    }
    const AnchorInstanceInfo* GetOutputInstanceInfo(size_t ir_index) const {
        return ir_index < ir_outputs_.size() ? &ir_outputs_[ir_index] : nullptr;
    }
    const CompileTimeTensorDesc* GetInputTdInfo(size_t index) const {
        return index < c_->inputs.size() ? &c_->inputs[index].Desc() : nullptr;
    }
    const CompileTimeTensorDesc* GetOutputTdInfo(size_t index) const {
        return index < c_->output_descs.size() ? &c_->output_descs[index] : nullptr;
    }
    const RuntimeAttrs* GetAttrs() const { return &c_->attrs; }

    // opgen: the call it describes (ExtendedKernelContext::GetComputeNodeInfo)
    void Bind(const NodeCall* call) {
        const size_t n_ir_out = call->ir_out_count.empty() ? call->output_descs.size()
                                                           : call->ir_out_count.size();
        if (c_ == call && ir_inputs_.size() == call->ir_count.size() &&
            ir_outputs_.size() == n_ir_out) {
            return;
        }
        c_ = call;
        ir_inputs_.clear();
        for (size_t i = 0; i < call->ir_count.size(); ++i) {
            ir_inputs_.emplace_back(static_cast<uint32_t>(call->ir_start[i]),
                                    static_cast<uint32_t>(call->ir_count[i]));
        }
        ir_outputs_.clear();
        if (!call->ir_out_count.empty()) {  // dynamic outputs: their instances
            for (size_t i = 0; i < call->ir_out_count.size(); ++i) {
                ir_outputs_.emplace_back(static_cast<uint32_t>(call->ir_out_start[i]),
                                         static_cast<uint32_t>(call->ir_out_count[i]));
            }
            return;
        }
        for (size_t i = 0; i < call->output_descs.size(); ++i) {
            ir_outputs_.emplace_back(static_cast<uint32_t>(i), 1U);
        }
    }

private:
    const NodeCall* c_ = nullptr;
    std::vector<AnchorInstanceInfo> ir_inputs_;
    std::vector<AnchorInstanceInfo> ir_outputs_;
};

class ExtendedKernelContext {
public:
    explicit ExtendedKernelContext(NodeCall* call) : c_(call) {}
    const CompileTimeTensorDesc* GetInputDesc(size_t index) const {
        return index < c_->inputs.size() ? &c_->inputs[index].Desc() : nullptr;
    }
    const CompileTimeTensorDesc* GetOptionalInputDesc(size_t ir_index) const {
        const Tensor* t = Instance(ir_index, 0);
        return t == nullptr ? nullptr : &t->Desc();
    }
    const CompileTimeTensorDesc* GetRequiredInputDesc(size_t ir_index) const {
        return GetOptionalInputDesc(ir_index);
    }
    const CompileTimeTensorDesc* GetDynamicInputDesc(size_t ir_index, size_t rel) const {
        const Tensor* t = Instance(ir_index, rel);
        return t == nullptr ? nullptr : &t->Desc();
    }
    const CompileTimeTensorDesc* GetOutputDesc(size_t index) const {
        return index < c_->output_descs.size() ? &c_->output_descs[index] : nullptr;
    }
    size_t GetComputeNodeInputNum() const { return c_->inputs.size(); }
    size_t GetComputeNodeOutputNum() const { return c_->output_descs.size(); }
    size_t GetIrInputsNum() const { return c_->ir_count.size(); }
    const RuntimeAttrs* GetAttrs() const { return &c_->attrs; }
    const ge::char_t* GetNodeType() const { return c_->op_type.c_str(); }
    const ge::char_t* GetNodeName() const { return c_->op_type.c_str(); }
    const ge::char_t* GetKernelName() const { return c_->op_type.c_str(); }
    const ge::char_t* GetKernelType() const { return c_->op_type.c_str(); }
    const ComputeNodeInfo* GetComputeNodeInfo() const {
        node_info_.Bind(c_);
        return &node_info_;
    }
    const AnchorInstanceInfo* GetIrInputInstanceInfo(size_t ir_index) const {
        return GetComputeNodeInfo()->GetInputInstanceInfo(ir_index);
    }
    const AnchorInstanceInfo* GetIrOutputInstanceInfo(size_t ir_index) const {
        return GetComputeNodeInfo()->GetOutputInstanceInfo(ir_index);
    }

protected:
    const Tensor* Instance(size_t ir_index, size_t rel) const {
        if (ir_index >= c_->ir_count.size() || rel >= c_->ir_count[ir_index]) return nullptr;
        return &c_->inputs[c_->ir_start[ir_index] + rel];
    }
    const Tensor* Input(size_t index) const {
        return index < c_->inputs.size() ? &c_->inputs[index] : nullptr;
    }
    NodeCall* c_;
    mutable ComputeNodeInfo node_info_;
};

class TilingContext : public ExtendedKernelContext {
public:
    using ExtendedKernelContext::ExtendedKernelContext;
    const void* GetCompileInfo() const { return c_->compile_info; }
    template <typename T>
    const T* GetCompileInfo() const { return static_cast<const T*>(c_->compile_info); }
    const StorageShape* GetInputShape(size_t index) const {
        const Tensor* t = Input(index);
        return t == nullptr ? nullptr : &t->GetShape();
    }
    const Tensor* GetInputTensor(size_t index) const { return Input(index); }
    const Tensor* GetOptionalInputTensor(size_t ir) const { return Instance(ir, 0); }
    const Tensor* GetRequiredInputTensor(size_t ir) const { return Instance(ir, 0); }
    const Tensor* GetDynamicInputTensor(size_t ir, size_t rel) const { return Instance(ir, rel); }
    const StorageShape* GetOptionalInputShape(size_t ir) const { return ShapeOf(Instance(ir, 0)); }
    const StorageShape* GetRequiredInputShape(size_t ir) const { return ShapeOf(Instance(ir, 0)); }
    const StorageShape* GetDynamicInputShape(size_t ir, size_t rel) const {
        return ShapeOf(Instance(ir, rel));
    }
    const StorageShape* GetOutputShape(size_t index) const {
        return index < c_->output_shapes.size() ? &c_->output_shapes[index] : nullptr;
    }
    ge::graphStatus SetTilingKey(uint64_t key) {
        c_->tiling_key = key;
        return ge::GRAPH_SUCCESS;
    }
    uint64_t GetTilingKey() const { return c_->tiling_key; }
    ge::graphStatus SetBlockDim(uint32_t block_dim) { return SetSimdNumBlocks(block_dim); }
    ge::graphStatus SetSimdNumBlocks(uint32_t n) {
        c_->block_dim = n;
        c_->block_dim_set = true;
        return ge::GRAPH_SUCCESS;
    }
    uint32_t GetBlockDim() const { return c_->block_dim; }
    uint32_t GetSimdNumBlocks() const { return c_->block_dim; }
    ge::graphStatus SetScheduleMode(uint32_t mode) {
        c_->schedule_mode = mode;
        return ge::GRAPH_SUCCESS;
    }
    uint32_t GetScheduleMode() const { return c_->schedule_mode; }
    ge::graphStatus SetTilingCond(int32_t cond) {
        c_->tiling_cond = cond;
        return ge::GRAPH_SUCCESS;
    }
    int32_t GetTilingCond() const { return c_->tiling_cond; }
    ge::graphStatus SetNeedAtomic(bool atomic) {
        c_->need_atomic = atomic;
        return ge::GRAPH_SUCCESS;
    }
    bool NeedAtomic() const { return c_->need_atomic; }
    ge::graphStatus SetLocalMemorySize(uint32_t n) { return SetDynUBufSize(n); }
    ge::graphStatus SetDynUBufSize(uint32_t n) {
        c_->local_memory = n;
        return ge::GRAPH_SUCCESS;
    }
    uint32_t GetLocalMemorySize() const { return c_->local_memory; }
    uint32_t GetDynUBufSize() const { return c_->local_memory; }
    // As CANN's: the typed view also sets the data size to the struct's.
    template <typename T>
    T* GetTilingData() {
        if (c_->tiling.GetCapacity() < sizeof(T)) return nullptr;
        c_->tiling.SetDataSize(sizeof(T));
        return static_cast<T*>(c_->tiling.GetData());
    }
    TilingData* GetRawTilingData() { return &c_->tiling; }
    size_t* GetWorkspaceSizes(size_t count) {
        c_->workspaces.assign(count, 0);
        c_->workspaces_asked = true;
        return count == 0 ? nullptr : c_->workspaces.data();
    }
    size_t GetWorkspaceNum() const { return c_->workspaces.size(); }
    fe::PlatFormInfos* GetPlatformInfo() const { return c_->platform; }
    int32_t GetDeterministic() const { return 0; }

private:
    static const StorageShape* ShapeOf(const Tensor* t) {
        return t == nullptr ? nullptr : &t->GetShape();
    }
};

class TilingParseContext : public ExtendedKernelContext {
public:
    using ExtendedKernelContext::ExtendedKernelContext;
    template <typename T>
    T* GetCompiledInfo() { return static_cast<T*>(const_cast<void*>(c_->compile_info)); }
    const char* GetCompiledJson() const { return c_->compiled_json; }
    fe::PlatFormInfos* GetPlatformInfo() const { return c_->platform; }
};

class InferShapeContext : public ExtendedKernelContext {
public:
    using ExtendedKernelContext::ExtendedKernelContext;
    const Shape* GetInputShape(size_t index) const { return ShapeOf(Input(index)); }
    const Tensor* GetInputTensor(size_t index) const { return Input(index); }
    const Tensor* GetOptionalInputTensor(size_t ir) const { return Instance(ir, 0); }
    const Tensor* GetRequiredInputTensor(size_t ir) const { return Instance(ir, 0); }
    const Tensor* GetDynamicInputTensor(size_t ir, size_t rel) const { return Instance(ir, rel); }
    const Shape* GetOptionalInputShape(size_t ir) const { return ShapeOf(Instance(ir, 0)); }
    const Shape* GetRequiredInputShape(size_t ir) const { return ShapeOf(Instance(ir, 0)); }
    const Shape* GetDynamicInputShape(size_t ir, size_t rel) const {
        return ShapeOf(Instance(ir, rel));
    }
    Shape* GetOutputShape(size_t index) {
        if (index >= c_->output_shapes.size()) return nullptr;
        if (index < c_->output_shape_asked.size()) c_->output_shape_asked[index] = true;
        return &c_->output_shapes[index].MutableStorageShape();
    }

private:
    static const Shape* ShapeOf(const Tensor* t) {
        return t == nullptr ? nullptr : &t->GetStorageShape();
    }
};

class InferDataTypeContext : public ExtendedKernelContext {
public:
    using ExtendedKernelContext::ExtendedKernelContext;
    ge::DataType GetInputDataType(size_t index) const {
        const Tensor* t = Input(index);
        return t == nullptr ? ge::DT_UNDEFINED : t->GetDataType();
    }
    ge::DataType GetOptionalInputDataType(size_t ir) const { return TypeOf(Instance(ir, 0)); }
    ge::DataType GetRequiredInputDataType(size_t ir) const { return TypeOf(Instance(ir, 0)); }
    ge::DataType GetDynamicInputDataType(size_t ir, size_t rel) const {
        return TypeOf(Instance(ir, rel));
    }
    ge::DataType GetOutputDataType(size_t index) const {
        return index < c_->output_dtypes.size() ? c_->output_dtypes[index] : ge::DT_UNDEFINED;
    }
    ge::graphStatus SetOutputDataType(size_t index, ge::DataType dtype) {
        if (index >= c_->output_dtypes.size()) return ge::GRAPH_FAILED;
        c_->output_dtypes[index] = dtype;
        return ge::GRAPH_SUCCESS;
    }

private:
    static ge::DataType TypeOf(const Tensor* t) {
        return t == nullptr ? ge::DT_UNDEFINED : t->GetDataType();
    }
};

// CANN's exe_graph/runtime/range.h: a [min, max] pair of values (a shape range), by pointer.
template <typename T>
class Range {
public:
    Range() = default;
    Range(T* min, T* max) : min_(min), max_(max) {}
    explicit Range(T* same) : min_(same), max_(same) {}
    bool operator==(const Range<T>& o) const {
        return (min_ == o.min_ || (min_ != nullptr && o.min_ != nullptr && *min_ == *o.min_)) &&
               (max_ == o.max_ || (max_ != nullptr && o.max_ != nullptr && *max_ == *o.max_));
    }
    void SetMin(T* min) { min_ = min; }
    void SetMax(T* max) { max_ = max; }
    const T* GetMin() const { return min_; }
    const T* GetMax() const { return max_; }
    T* GetMin() { return min_; }
    T* GetMax() { return max_; }

private:
    T* min_ = nullptr;
    T* max_ = nullptr;
};

// The graph engine's shape-range inference (IMPL_OP(...).InferShapeRange). opgen's runtime runs
// no graph and never calls it: the accessors are CANN's, so an op_host that registers one
// compiles, and a call would see no range (nullptr), which the ops check for.
class InferShapeRangeContext : public ExtendedKernelContext {
public:
    using ExtendedKernelContext::ExtendedKernelContext;
    const Range<Shape>* GetInputShapeRange(size_t) const { return nullptr; }
    const Range<Shape>* GetOptionalInputShapeRange(size_t) const { return nullptr; }
    const Range<Shape>* GetDynamicInputShapeRange(size_t, size_t) const { return nullptr; }
    Range<Shape>* GetOutputShapeRange(size_t) { return nullptr; }
};

}  // namespace gert
