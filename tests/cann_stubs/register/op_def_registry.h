// Stub of CANN register/op_def_registry.h (with register/op_def.h): ops::OpDef and OP_ADD.
#pragma once
#include <cstdint>
#include <functional>
#include <vector>

#include "exe_graph/runtime/contexts.h"
#include "graph/types.h"

namespace ops {
enum Option { IGNORE = 0, OPTIONAL = 1, REQUIRED = 2, DYNAMIC = 3, VIRTUAL = 4 };

class OpParamDef {
public:
    OpParamDef& ParamType(Option param_type);
    OpParamDef& DataType(std::vector<ge::DataType> types);
    OpParamDef& Format(std::vector<ge::Format> formats);
    OpParamDef& UnknownShapeFormat(std::vector<ge::Format> formats);
    OpParamDef& AutoContiguous();
};

class OpAttrDef {
public:
    OpAttrDef& AttrType(Option attr_type);
    OpAttrDef& Bool(void);
    OpAttrDef& Bool(bool value);
    OpAttrDef& Float(void);
    OpAttrDef& Float(float value);
    OpAttrDef& Int(void);
    OpAttrDef& Int(int64_t value);
    OpAttrDef& String(void);
    OpAttrDef& String(const char* value);
    OpAttrDef& ListBool(void);
    OpAttrDef& ListBool(std::vector<bool> value);
    OpAttrDef& ListFloat(void);
    OpAttrDef& ListFloat(std::vector<float> value);
    OpAttrDef& ListInt(void);
    OpAttrDef& ListInt(std::vector<int64_t> value);
};

class OpAICoreConfig {
public:
    OpAICoreConfig();
};

class OpAICoreDef {
public:
    OpAICoreDef& SetTiling(gert::OpImplRegisterV2::TilingKernelFunc func);
    OpAICoreDef& AddConfig(const char* soc);
    OpAICoreDef& AddConfig(const char* soc, OpAICoreConfig& aicore_config);
};

class OpDef {
public:
    explicit OpDef(const char* type);
    OpDef(const OpDef& op_def);
    ~OpDef();
    OpParamDef& Input(const char* name);
    OpParamDef& Output(const char* name);
    OpAttrDef& Attr(const char* name);
    OpDef& SetInferShape(gert::OpImplRegisterV2::InferShapeKernelFunc func);
    OpDef& SetInferDataType(gert::OpImplRegisterV2::InferDataTypeKernelFunc func);
    OpAICoreDef& AICore(void);
};

using OpDefCreator = std::function<OpDef(const char*)>;

class OpDefFactory {
public:
    static int OpDefRegister(const char* name, OpDefCreator creator);
};
}  // namespace ops

#define OP_ADD(opType, ...)                                                                      \
    static int g_##opType##_added =                                                              \
        ops::OpDefFactory::OpDefRegister(#opType, [](const char* name) { return opType(name); })
