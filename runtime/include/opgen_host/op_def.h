// opgen host runtime: CANN's op definition builder (ops::OpDef and its parameter, attr and
// AI Core parts) and OP_ADD. The definition is kept so the runtime can read it back
// (opgen_host_describe: what `opgen import-msopgen` and the checks see), and its host functions
// go to the op table of op_registry.h.
#pragma once

#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "op_registry.h"

namespace optiling {
using OP_CHECK_FUNC = ge::graphStatus (*)(const void* op, ge::AscendString& result);
using PARAM_GENERALIZE_FUNC = ge::graphStatus (*)(const void* op, const void* generalize_config,
                                                  void* generalized);
}  // namespace optiling

namespace opgen_host {

// A JSON string literal of `v` (what opgen_host_describe reports).
inline std::string JsonQuote(const std::string& v) {
    std::string out = "\"";
    for (unsigned char ch : v) {
        if (ch == '"' || ch == '\\') {
            out += '\\';
            out += static_cast<char>(ch);
        } else if (ch < 0x20) {
            char esc[8];
            std::snprintf(esc, sizeof(esc), "\\u%04x", ch);
            out += esc;
        } else {
            out += static_cast<char>(ch);
        }
    }
    return out + "\"";
}

// The named entry of a definition list, added on first mention (OpDef::Input, ::Attr, ...).
template <typename Def>
Def& FindOrAdd(std::vector<Def>& defs, const char* name) {
    for (Def& d : defs) {
        if (d.Name() == name) return d;
    }
    defs.emplace_back(name);
    return defs.back();
}

}  // namespace opgen_host

namespace ops {

enum Option { IGNORE = 0, OPTIONAL = 1, REQUIRED = 2, DYNAMIC = 3, VIRTUAL = 4 };
enum class DependScope : uint32_t { ALL = 0, TILING = 1, INVALID_SCOPE };
enum class FollowType : uint32_t { ALL = 0, DTYPE = 1, FORMAT = 2, SHAPE = 3, INVALID_TYPE };
enum class AttrDataType {
    ATTR_DT_BOOL = 0,
    ATTR_DT_FLOAT = 1,
    ATTR_DT_INT = 2,
    ATTR_DT_STR = 3,
    ATTR_DT_LIST_BOOL = 4,
    ATTR_DT_LIST_FLOAT = 5,
    ATTR_DT_LIST_INT = 6,
    ATTR_DT_LIST_LIST_INT = 7,
    ATTR_DT_MAX
};

class OpParamDef {
public:
    explicit OpParamDef(const char* name) : name_(name) {}
    OpParamDef& ParamType(Option t) { type_ = t; return *this; }
    OpParamDef& DataType(std::vector<ge::DataType> t) { dtypes_ = std::move(t); return *this; }
    OpParamDef& DataTypeList(std::vector<ge::DataType> t) { return DataType(std::move(t)); }
    OpParamDef& Format(std::vector<ge::Format> f) { formats_ = std::move(f); return *this; }
    OpParamDef& FormatList(std::vector<ge::Format> f) { return Format(std::move(f)); }
    OpParamDef& DataTypeForBinQuery(std::vector<ge::DataType>) { return *this; }
    OpParamDef& FormatForBinQuery(std::vector<ge::Format>) { return *this; }
    OpParamDef& UnknownShapeFormat(std::vector<ge::Format> f) {
        if (formats_.empty()) formats_ = std::move(f);
        return *this;
    }
    OpParamDef& ValueDepend(Option v) { value_depend_ = v; return *this; }
    OpParamDef& ValueDepend(Option v, DependScope) { return ValueDepend(v); }
    OpParamDef& IgnoreContiguous() { return *this; }
    OpParamDef& AutoContiguous() { return *this; }
    OpParamDef& Scalar() { return *this; }
    OpParamDef& ScalarList() { return *this; }
    OpParamDef& To(ge::DataType) { return *this; }
    OpParamDef& To(const char*) { return *this; }
    OpParamDef& Version(uint32_t) { return *this; }
    // InitValue(0): the output's GM is zeroed before the launch when the TilingFunc sets
    // SetNeedAtomic(true) (reference "InitValue"; single-op calls clear, whatever the value).
    OpParamDef& InitValue(uint64_t) { init_zero_ = true; return *this; }
    OpParamDef& OutputShapeDependOnCompute() { return *this; }
    OpParamDef& Follow(const char* other) { follow_ = other; return *this; }
    OpParamDef& Follow(const char* other, FollowType) { return Follow(other); }
    OpParamDef& Comment(const char*) { return *this; }
    Option GetParamType() const { return type_; }
    const std::string& Name() const { return name_; }
    std::vector<ge::DataType>& GetDataTypes() { return dtypes_; }
    std::vector<ge::Format>& GetFormats() { return formats_; }
    const std::vector<ge::DataType>& GetDataTypes() const { return dtypes_; }
    const std::vector<ge::Format>& GetFormats() const { return formats_; }
    Option GetValueDepend() const { return value_depend_; }
    const std::string& GetFollow() const { return follow_; }
    bool GetInitZero() const { return init_zero_; }

private:
    std::string name_;
    Option type_ = REQUIRED;
    Option value_depend_ = IGNORE;
    std::vector<ge::DataType> dtypes_;
    std::vector<ge::Format> formats_;
    std::string follow_;
    bool init_zero_ = false;
};

class OpAttrDef {
public:
    explicit OpAttrDef(const char* name) : name_(name) {}
    OpAttrDef& AttrType(Option t) { required_ = (t == REQUIRED); return *this; }
    OpAttrDef& Bool() { return Kind("bool"); }
    OpAttrDef& Bool(bool v) { return Kind("bool", v ? "true" : "false"); }
    OpAttrDef& Float() { return Kind("float"); }
    OpAttrDef& Float(float v) { return Kind("float", Num(static_cast<double>(v))); }
    OpAttrDef& Int() { return Kind("int"); }
    OpAttrDef& Int(int64_t v) { return Kind("int", std::to_string(v)); }
    OpAttrDef& String() { return Kind("string"); }
    OpAttrDef& String(const char* v) {
        return Kind("string", opgen_host::JsonQuote(v == nullptr ? "" : v));
    }
    OpAttrDef& ListBool() { return Kind("list_bool"); }
    OpAttrDef& ListBool(std::vector<bool> v) {
        std::string s;
        for (bool b : v) s += std::string(s.empty() ? "" : ",") + (b ? "true" : "false");
        return Kind("list_bool", "[" + s + "]");
    }
    OpAttrDef& ListFloat() { return Kind("list_float"); }
    OpAttrDef& ListFloat(std::vector<float> v) {
        std::string s;
        for (float f : v) s += (s.empty() ? "" : ",") + Num(static_cast<double>(f));
        return Kind("list_float", "[" + s + "]");
    }
    OpAttrDef& ListInt() { return Kind("list_int"); }
    OpAttrDef& ListInt(std::vector<int64_t> v) {
        std::string s;
        for (int64_t i : v) s += (s.empty() ? "" : ",") + std::to_string(i);
        return Kind("list_int", "[" + s + "]");
    }
    OpAttrDef& ListListInt() { return Kind("list_list_int"); }
    OpAttrDef& ListListInt(std::vector<std::vector<int64_t>>) { return Kind("list_list_int"); }
    OpAttrDef& Version(uint32_t) { return *this; }
    OpAttrDef& Comment(const char*) { return *this; }
    bool IsRequired() const { return required_; }
    const std::string& Name() const { return name_; }
    const std::string& Type() const { return kind_; }
    const std::string& DefaultJson() const { return default_; }

private:
    OpAttrDef& Kind(const char* kind, std::string def = "") {
        kind_ = kind;
        default_ = std::move(def);
        return *this;
    }
    static std::string Num(double v) {
        char buf[64];
        std::snprintf(buf, sizeof(buf), "%.9g", v);
        return buf;
    }
    std::string name_;
    bool required_ = true;
    std::string kind_ = "int";
    std::string default_;
};

class OpAICoreConfig {
public:
    OpAICoreConfig() = default;
    explicit OpAICoreConfig(const char*) {}
    OpParamDef& Input(const char* name) { return opgen_host::FindOrAdd(inputs_, name); }
    OpParamDef& Output(const char* name) { return opgen_host::FindOrAdd(outputs_, name); }
    OpAICoreConfig& DynamicCompileStaticFlag(bool) { return *this; }
    OpAICoreConfig& DynamicFormatFlag(bool) { return *this; }
    OpAICoreConfig& DynamicRankSupportFlag(bool) { return *this; }
    OpAICoreConfig& DynamicShapeSupportFlag(bool) { return *this; }
    OpAICoreConfig& NeedCheckSupportFlag(bool) { return *this; }
    OpAICoreConfig& PrecisionReduceFlag(bool) { return *this; }
    OpAICoreConfig& ExtendCfgInfo(const char*, const char*) { return *this; }
    std::vector<OpParamDef>& Inputs() { return inputs_; }
    std::vector<OpParamDef>& Outputs() { return outputs_; }

private:
    std::vector<OpParamDef> inputs_;
    std::vector<OpParamDef> outputs_;
};

class OpAICoreDef {
public:
    explicit OpAICoreDef(std::string op_type = "") : type_(std::move(op_type)) {}
    OpAICoreDef& SetTiling(gert::TilingKernelFunc f) {
        opgen_host::Impl(type_).tiling = f;
        return *this;
    }
    OpAICoreDef& SetCheckSupport(optiling::OP_CHECK_FUNC) { return *this; }
    OpAICoreDef& SetOpSelectFormat(optiling::OP_CHECK_FUNC) { return *this; }
    OpAICoreDef& SetOpSupportInfo(optiling::OP_CHECK_FUNC) { return *this; }
    OpAICoreDef& SetOpSpecInfo(optiling::OP_CHECK_FUNC) { return *this; }
    OpAICoreDef& SetParamGeneralize(optiling::PARAM_GENERALIZE_FUNC) { return *this; }
    OpAICoreDef& LaunchWithZeroEleOutputTensors(bool) { return *this; }
    OpAICoreDef& AddConfig(const char* soc) {
        configs_[soc];
        return *this;
    }
    OpAICoreDef& AddConfig(const char* soc, OpAICoreConfig& config) {
        configs_[soc] = config;
        return *this;
    }
    std::map<std::string, OpAICoreConfig>& GetAICoreConfigs() { return configs_; }

private:
    std::string type_;
    std::map<std::string, OpAICoreConfig> configs_;
};

class OpDef {
public:
    explicit OpDef(const char* type) : type_(type), aicore_(type_) {}
    virtual ~OpDef() = default;
    OpParamDef& Input(const char* name) { return opgen_host::FindOrAdd(inputs_, name); }
    OpParamDef& Output(const char* name) { return opgen_host::FindOrAdd(outputs_, name); }
    OpAttrDef& Attr(const char* name) { return opgen_host::FindOrAdd(attrs_, name); }
    OpDef& SetInferShape(gert::InferShapeKernelFunc f) {
        opgen_host::Impl(type_).infer_shape = f;
        return *this;
    }
    OpDef& SetInferShapeRange(gert::InferShapeRangeKernelFunc) { return *this; }
    OpDef& SetInferDataType(gert::InferDataTypeKernelFunc f) {
        opgen_host::Impl(type_).infer_dtype = f;
        return *this;
    }
    OpDef& Comment(const char*) { return *this; }
    OpDef& FormatMatchMode(int) { return *this; }
    OpDef& EnableFallBack() { return *this; }
    OpAICoreDef& AICore() { return aicore_; }
    const std::string& GetOpType() const { return type_; }
    std::vector<OpParamDef>& GetInputs() { return inputs_; }
    std::vector<OpParamDef>& GetOutputs() { return outputs_; }
    std::vector<OpAttrDef>& GetAttrs() { return attrs_; }

private:
    std::string type_;
    std::vector<OpParamDef> inputs_;
    std::vector<OpParamDef> outputs_;
    std::vector<OpAttrDef> attrs_;
    OpAICoreDef aicore_;
};

// OP_ADD(Type) records how to build the definition; it is built when the runtime first asks
// (a constructor that throws is then reported, not a crash during dlopen).
struct OpDefRegisterer {
    OpDefRegisterer(const char* type, std::function<OpDef*()> make) {
        opgen_host::Impl(type).make_def = std::move(make);
    }
};

}  // namespace ops

#define OP_ADD(opType, ...)                                                         \
    static ::ops::OpDefRegisterer OPGEN_HOST_CAT(opgen_op_def_, __COUNTER__)        \
        __attribute__((unused))(#opType, [] {                                        \
            return static_cast<::ops::OpDef*>(new opType(#opType));                 \
        })
