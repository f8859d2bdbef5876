// Stub of CANN register/register.h: the framework-plugin registration (REGISTER_CUSTOM_OP) with
// the signatures of metadef's inc/external/register/register.h.
#pragma once
#include <cstdint>
#include <functional>
#include <string>

#include "graph/operator.h"

namespace domi {
using Status = uint32_t;
constexpr Status SUCCESS = 0;
constexpr Status FAILED = 0xFFFFFFFF;

enum FrameworkType { CAFFE = 0, MINDSPORE = 1, TENSORFLOW = 3, ANDROID_NN = 4, ONNX = 5, FRAMEWORK_RESERVED = 6 };

using ParseParamByOpFunc = std::function<Status(const ge::Operator&, ge::Operator&)>;

Status AutoMappingByOpFn(const ge::Operator& op_src, ge::Operator& op);

class OpRegistrationData {
public:
    OpRegistrationData(const char* om_optype);
    OpRegistrationData& FrameworkType(const domi::FrameworkType& fmk_type);
    OpRegistrationData& OriginOpType(const char* ori_op_type);
    OpRegistrationData& ParseParamsByOperatorFn(const ParseParamByOpFunc& parse_param_by_op_fn);
};

class OpReceiver {
public:
    OpReceiver(OpRegistrationData& reg_data);
};
}  // namespace domi

#define REGISTER_CUSTOM_OP(name) REGISTER_CUSTOM_OP_UNIQ_HELPER(__COUNTER__, name)
#define REGISTER_CUSTOM_OP_UNIQ_HELPER(ctr, name) REGISTER_CUSTOM_OP_UNIQ(ctr, name)
#define REGISTER_CUSTOM_OP_UNIQ(ctr, name) \
    static ::domi::OpReceiver register_op##ctr __attribute__((unused)) = ::domi::OpRegistrationData(name)
