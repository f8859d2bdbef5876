// opgen host runtime: CANN's graph/operator.h (the graph engine's ge::Operator). Host code of
// CANN's open libraries includes it for helper macros (ops-nn's common/inc/error_util.h) without
// calling it on the tiling path, so only the class and its attr accessors are declared, not
// defined: an op_host that calls one does not load (its undefined symbol is named), it never runs
// a stand-in.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "graph/ascend_string.h"
#include "graph/tensor.h"
#include "graph/types.h"

namespace ge {
class Operator {
public:
    Operator() = default;
    explicit Operator(const char_t* type);
    Operator(const char_t* name, const char_t* type);
    graphStatus GetName(AscendString& name) const;
    graphStatus GetOpType(AscendString& type) const;
    Operator& SetAttr(const char_t* name, int64_t attr_value);
    Operator& SetAttr(const char_t* name, float attr_value);
    Operator& SetAttr(const char_t* name, bool attr_value);
    Operator& SetAttr(const char_t* name, const std::vector<int64_t>& attr_value);
    Operator& SetAttr(const char_t* name, const std::vector<float>& attr_value);
    Operator& SetAttr(const char_t* name, const AscendString& attr_value);
    graphStatus GetAttr(const char_t* name, int64_t& attr_value) const;
    graphStatus GetAttr(const char_t* name, float& attr_value) const;
    graphStatus GetAttr(const char_t* name, bool& attr_value) const;
    graphStatus GetAttr(const char_t* name, std::vector<int64_t>& attr_value) const;
    graphStatus GetAttr(const char_t* name, std::vector<float>& attr_value) const;
    graphStatus GetAttr(const char_t* name, AscendString& attr_value) const;
};
}  // namespace ge
