// opgen host runtime: what an op_host source registers, and where it goes. CANN's two ways to
// register host functions both land in one table keyed by op type:
//  - ops::OpDef (OP_ADD): inputs, outputs, attrs, SetInferShape/SetInferDataType, and
//    AICore().SetTiling(...).AddConfig(soc);
//  - gert::OpImplRegisterV2 (IMPL_OP, IMPL_OP_OPTILING, IMPL_OP_INFERSHAPE):
//    .Tiling(f).TilingParse<CompileInfo>(g).InferShape(h).InferDataType(k).
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
// CANN's registry headers bring <set> and <unordered_set> in, and op_host code (opbase's
// tiling_util.cpp among it) uses std::set without its own include
#include <set>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include "gert.h"
#include "host_log.h"

namespace gert {
using TilingKernelFunc = UINT32 (*)(TilingContext*);
using TilingParseFunc = UINT32 (*)(TilingParseContext*);
using InferShapeKernelFunc = UINT32 (*)(InferShapeContext*);
using InferDataTypeKernelFunc = UINT32 (*)(InferDataTypeContext*);
using InferShapeRangeKernelFunc = UINT32 (*)(InferShapeRangeContext*);
}  // namespace gert

namespace ops {
class OpDef;
}

namespace opgen_host {

struct OpImpl {
    gert::TilingKernelFunc tiling = nullptr;
    gert::TilingParseFunc tiling_parse = nullptr;
    gert::InferShapeKernelFunc infer_shape = nullptr;
    gert::InferDataTypeKernelFunc infer_dtype = nullptr;
    std::function<std::shared_ptr<void>()> new_compile_info;
    std::vector<int32_t> value_depend;  // input indices whose host values tiling reads
    std::shared_ptr<ops::OpDef> def;
    std::function<ops::OpDef*()> make_def;
};

struct Registry {
    std::mutex mu;
    std::map<std::string, OpImpl> ops;
};

inline Registry& Ops() {
    static Registry* r = new Registry();  // never destroyed: static initialisers may run late
    return *r;
}

inline OpImpl& Impl(const std::string& op_type) {
    Registry& r = Ops();
    std::lock_guard<std::mutex> lock(r.mu);
    return r.ops[op_type];
}

}  // namespace opgen_host

namespace gert {

enum TilingPlacement { TILING_ON_HOST = 0, TILING_ON_AICPU = 1 };

// Registering InferOutDataTypeSameWithFirstInput: every output takes the data type of input 0
// (metadef's op_impl_registry.h); an op without inputs, or whose input 0 has no data type, fails
// its InferDataType, as metadef's rule does.
inline UINT32 InferOutDataTypeSameWithFirstInputFunc(InferDataTypeContext* context) {
    const ge::DataType dtype = context->GetComputeNodeInputNum() == 0 ? ge::DT_UNDEFINED
                                                                      : context->GetInputDataType(0);
    if (dtype == ge::DT_UNDEFINED) {
        opgen_host::LogRecord(opgen_host::kLogError,
                              std::string("InferOutDataTypeSameWithFirstInput: op type ") +
                                  context->GetNodeType() + ": input 0 has no data type");
        return ge::GRAPH_FAILED;
    }
    for (size_t i = 0; i < context->GetComputeNodeOutputNum(); ++i) {
        if (context->SetOutputDataType(i, dtype) != ge::GRAPH_SUCCESS) return ge::GRAPH_FAILED;
    }
    return ge::GRAPH_SUCCESS;
}

class OpImplRegisterV2 {
public:
    // metadef's member aliases (op_host code names them through the class)
    using InferShapeKernelFunc = gert::InferShapeKernelFunc;
    using InferShapeRangeKernelFunc = gert::InferShapeRangeKernelFunc;
    using TilingKernelFunc = gert::TilingKernelFunc;
    using InferDataTypeKernelFunc = gert::InferDataTypeKernelFunc;
    using TilingParseFunc = gert::TilingParseFunc;
    using GenSimplifiedKeyKernelFunc = UINT32 (*)(TilingContext*, ge::char_t*);

    explicit OpImplRegisterV2(const ge::char_t* op_type) : type_(op_type) {
        opgen_host::Impl(type_);
    }
    OpImplRegisterV2& Tiling(TilingKernelFunc f, size_t max_tiling_data_size = 2048) {
        (void)max_tiling_data_size;
        opgen_host::Impl(type_).tiling = f;
        return *this;
    }
    template <typename CompileInfo>
    OpImplRegisterV2& TilingParse(TilingParseFunc f) {
        opgen_host::OpImpl& impl = opgen_host::Impl(type_);
        impl.tiling_parse = f;
        impl.new_compile_info = [] { return std::shared_ptr<void>(std::make_shared<CompileInfo>()); };
        return *this;
    }
    OpImplRegisterV2& InferShape(InferShapeKernelFunc f) {
        opgen_host::Impl(type_).infer_shape = f;
        return *this;
    }
    OpImplRegisterV2& InferDataType(InferDataTypeKernelFunc f) {
        opgen_host::Impl(type_).infer_dtype = f;
        return *this;
    }
    // the last of InferDataType and this registered is the op's, as in metadef
    OpImplRegisterV2& InferOutDataTypeSameWithFirstInput() {
        return InferDataType(&InferOutDataTypeSameWithFirstInputFunc);
    }
    OpImplRegisterV2& InferShapeRange(InferShapeRangeKernelFunc) { return *this; }
    // the graph compiler's and the device's hooks: nothing of the simulator calls them
    OpImplRegisterV2& GenSimplifiedKey(GenSimplifiedKeyKernelFunc) { return *this; }
    template <typename F>
    OpImplRegisterV2& InferFormat(F) { return *this; }
    template <typename F>
    OpImplRegisterV2& CalcOpParam(F) { return *this; }
    template <typename F>
    OpImplRegisterV2& GenerateTask(F) { return *this; }
    template <typename F>
    OpImplRegisterV2& CheckSupport(F) { return *this; }
    template <typename F>
    OpImplRegisterV2& OpSelectFormat(F) { return *this; }
    template <typename F>
    OpImplRegisterV2& ExceptionDumpParseFunc(F) { return *this; }
    template <typename F>
    OpImplRegisterV2& OpExecuteFunc(F) { return *this; }
    template <typename F, typename G>
    OpImplRegisterV2& Op2StageExecuteFuncs(F, G) { return *this; }
    OpImplRegisterV2& NullableOutputs(std::initializer_list<int32_t>) { return *this; }
    OpImplRegisterV2& InputsDataDependency(std::initializer_list<int32_t> inputs) {
        opgen_host::Impl(type_).value_depend.assign(inputs.begin(), inputs.end());
        return *this;
    }
    OpImplRegisterV2& TilingInputsDataDependency(std::initializer_list<int32_t> inputs) {
        return InputsDataDependency(inputs);
    }
    // (the placements say where tiling runs on the device: host or AI CPU; here, the host)
    OpImplRegisterV2& TilingInputsDataDependency(std::initializer_list<int32_t> inputs,
                                                 std::initializer_list<TilingPlacement>) {
        return InputsDataDependency(inputs);
    }
    OpImplRegisterV2& PrivateAttr(const ge::char_t*) { return *this; }
    template <typename T>
    OpImplRegisterV2& PrivateAttr(const ge::char_t*, T) { return *this; }
    OpImplRegisterV2& OutputShapeDependOnCompute(std::initializer_list<int32_t>) { return *this; }
    OpImplRegisterV2& HostInputs(std::initializer_list<int32_t>) { return *this; }

private:
    std::string type_;
};

}  // namespace gert

#define OPGEN_HOST_CAT2(a, b) a##b
#define OPGEN_HOST_CAT(a, b) OPGEN_HOST_CAT2(a, b)
#define IMPL_OP(op_type)                                                                  \
    static ::gert::OpImplRegisterV2 OPGEN_HOST_CAT(opgen_op_impl_, __COUNTER__)        \
        __attribute__((unused)) = ::gert::OpImplRegisterV2(#op_type)
#define IMPL_OP_OPTILING(op_type) IMPL_OP(op_type)
#define IMPL_OP_INFERSHAPE(op_type) IMPL_OP(op_type)
#define IMPL_OP_DEFAULT() IMPL_OP(DefaultImpl)
