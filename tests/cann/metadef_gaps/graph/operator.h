// graph/operator.h (CANN's graph engine): ge::Operator's attr accessors, with its signatures.
#pragma once
#include <cstdint>
#include <vector>

#include "graph/ascend_string.h"
#include "graph/error_codes.h"
#include "graph/types.h"

namespace ge {
class Graph;

class Operator {
public:
    Operator& SetAttr(const char_t* name, int64_t attr_value);
    Operator& SetAttr(const char_t* name, float32_t attr_value);
    Operator& SetAttr(const char_t* name, bool attr_value);
    Operator& SetAttr(const char_t* name, const std::vector<int64_t>& attr_value);
    Operator& SetAttr(const char_t* name, const std::vector<float32_t>& attr_value);
    Operator& SetAttr(const char_t* name, const std::vector<bool>& attr_value);
    Operator& SetAttr(const char_t* name, const AscendString& attr_value);
    Operator& SetAttr(const char_t* name, const ge::DataType& attr_value);
    graphStatus GetAttr(const char_t* name, int64_t& attr_value) const;
    graphStatus GetAttr(const char_t* name, float32_t& attr_value) const;
    graphStatus GetAttr(const char_t* name, bool& attr_value) const;
    graphStatus GetAttr(const char_t* name, std::vector<int64_t>& attr_value) const;
    graphStatus GetAttr(const char_t* name, std::vector<float32_t>& attr_value) const;
    graphStatus GetAttr(const char_t* name, std::vector<bool>& attr_value) const;
    graphStatus GetAttr(const char_t* name, AscendString& attr_value) const;
    graphStatus GetAttr(const char_t* name, ge::DataType& attr_value) const;
};
}  // namespace ge
