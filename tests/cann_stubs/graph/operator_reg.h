// Stub of CANN graph/operator_reg.h (with graph/operator.h and graph/tensor.h): ge::Operator,
// REG_OP and the infer-function macros. REG_OP here builds a registration object rather than
// the real generated class, which is enough to type-check the chain and its arguments.
#pragma once
#include <cstdint>
#include <initializer_list>
#include <vector>

#include "graph/ascend_string.h"
#include "graph/types.h"

namespace ge {
class Shape {
public:
    Shape();
    explicit Shape(const std::vector<int64_t>& dims);
    std::vector<int64_t> GetDims() const;
    size_t GetDimNum() const;
    int64_t GetShapeSize() const;
};

class TensorDesc {
public:
    Shape GetShape() const;
    void SetShape(const Shape& shape);
    DataType GetDataType() const;
    void SetDataType(DataType dtype);
    Format GetFormat() const;
};

class Operator {
public:
    TensorDesc GetInputDescByName(const char* name) const;
    TensorDesc GetOutputDescByName(const char* name) const;
    graphStatus UpdateOutputDesc(const char* name, const TensorDesc& tensor_desc);
    graphStatus GetAttr(const char* name, int64_t& attr_value) const;
    graphStatus GetAttr(const char* name, float& attr_value) const;
    graphStatus GetAttr(const char* name, bool& attr_value) const;
    graphStatus GetAttr(const char* name, std::vector<int64_t>& attr_value) const;
    graphStatus GetAttr(const char* name, std::vector<float>& attr_value) const;
    graphStatus GetAttr(const char* name, std::vector<bool>& attr_value) const;
    graphStatus GetAttr(const char* name, AscendString& attr_value) const;
    graphStatus GetAttr(const char* name, DataType& attr_value) const;
    Operator& SetAttr(const char* name, int64_t attr_value);
    Operator& SetAttr(const char* name, float attr_value);
    Operator& SetAttr(const char* name, bool attr_value);
    Operator& SetAttr(const char* name, const std::vector<int64_t>& attr_value);
    Operator& SetAttr(const char* name, const std::vector<float>& attr_value);
    Operator& SetAttr(const char* name, const std::vector<bool>& attr_value);
    Operator& SetAttr(const char* name, const AscendString& attr_value);
    Operator& SetAttr(const char* name, const DataType& attr_value);
};

class TensorType {
public:
    TensorType(std::initializer_list<DataType> types);
};

class OpReg {
public:
    explicit OpReg(const char* type);
    OpReg& Input(const char* name, const TensorType& types);
    OpReg& OptionalInput(const char* name, const TensorType& types);
    OpReg& DynamicInput(const char* name, const TensorType& types);
    OpReg& Output(const char* name, const TensorType& types);
    OpReg& DynamicOutput(const char* name, const TensorType& types);
    OpReg& AttrInt(const char* name, int64_t value);
    OpReg& AttrFloat(const char* name, float value);
    OpReg& AttrBool(const char* name, bool value);
    OpReg& AttrString(const char* name, const char* value);
    OpReg& AttrListInt(const char* name, std::vector<int64_t> value);
    OpReg& AttrListFloat(const char* name, std::vector<float> value);
    OpReg& AttrListBool(const char* name, std::vector<bool> value);
    OpReg& RequiredAttr(const char* name);
    int End();
};

using InferShapeFunc = graphStatus (*)(Operator&);

class InferShapeFuncRegister {
public:
    InferShapeFuncRegister(const char* operator_type, InferShapeFunc infer_shape_func);
};
}  // namespace ge

#define REG_OP(x) \
    namespace op { \
    inline const int x##_registered = ::ge::OpReg(#x)
#define INPUT(x, t) Input(#x, t)
#define OPTIONAL_INPUT(x, t) OptionalInput(#x, t)
#define DYNAMIC_INPUT(x, t) DynamicInput(#x, t)
#define OUTPUT(x, t) Output(#x, t)
#define DYNAMIC_OUTPUT(x, t) DynamicOutput(#x, t)
#define ATTR(x, Type, ...) Attr##Type(#x, __VA_ARGS__)
#define REQUIRED_ATTR(x, Type) RequiredAttr(#x)
#define OP_END_FACTORY_REG(x) \
    End();                    \
    }

#define IMPLEMT_COMMON_INFERFUNC(func_name) static ::ge::graphStatus func_name(::ge::Operator& op)
#define COMMON_INFER_FUNC_REG(op_name, x) \
    static const ::ge::InferShapeFuncRegister infer_##op_name##_reg(#op_name, x)
