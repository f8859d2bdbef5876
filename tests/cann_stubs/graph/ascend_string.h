// Stub of CANN graph/ascend_string.h: ge::AscendString, the string of CANN's graph APIs.
#pragma once
#include <string>

namespace ge {
class AscendString {
public:
    AscendString() = default;
    AscendString(const char* name);  // NOLINT: implicit, as CANN's
    const char* GetString() const;

private:
    std::string name_;
};
}  // namespace ge
