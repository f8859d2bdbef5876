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

class OpImplRegisterV2 {
public:
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
    OpImplRegisterV2& InferShapeRange(InferShapeRangeKernelFunc) { return *this; }
    OpImplRegisterV2& InputsDataDependency(std::initializer_list<int32_t> inputs) {
        opgen_host::Impl(type_).value_depend.assign(inputs.begin(), inputs.end());
        return *this;
    }
    OpImplRegisterV2& TilingInputsDataDependency(std::initializer_list<int32_t> inputs) {
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
