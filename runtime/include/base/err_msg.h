// opgen host runtime: CANN's error-manager API (base/err_msg.h) for op_host code. CANN collects
// these reports and shows them to the user when a call fails; here each report is a line
// "E<code>: message" in the log of the host call in progress (opgen_host/host_log.h), which a
// failing TilingFunc or InferShape reports in its TilingError.
#pragma once

#include <cstdarg>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "opgen_host/host_log.h"

#define REPORT_INNER_ERR_MSG(error_code, format, ...)                                        \
    (void)error_message::ReportInnerErrMsg(__FILE__, __FUNCTION__, __LINE__, (error_code), \
                                           (format), ##__VA_ARGS__)
#define REPORT_USER_DEFINED_ERR_MSG(error_code, format, ...) \
    (void)error_message::ReportUserDefinedErrMsg((error_code), (format), ##__VA_ARGS__)
// one argument (the code) or three (code, keys, values)
#define OPGEN_ERR_MSG_PICK(_1, _2, _3, NAME, ...) NAME
#define OPGEN_ERR_MSG_1(code) error_message::ReportPredefinedErrMsg(code)
#define OPGEN_ERR_MSG_3(code, keys, values) \
    error_message::ReportPredefinedErrMsg((code), (keys), (values))
#define REPORT_PREDEFINED_ERR_MSG(...) \
    OPGEN_ERR_MSG_PICK(__VA_ARGS__, OPGEN_ERR_MSG_3, , OPGEN_ERR_MSG_1)(__VA_ARGS__)
// registers a JSON table of message templates when the library loads (a namespace-scope
// statement, as CANN's); opgen keeps no templates, so it only evaluates its arguments
#define OPGEN_ERR_MSG_CAT2(a, b) a##b
#define OPGEN_ERR_MSG_CAT(a, b) OPGEN_ERR_MSG_CAT2(a, b)
#define REG_FORMAT_ERROR_MSG(error_msg, error_msg_len)                                 \
    static const int32_t OPGEN_ERR_MSG_CAT(opgen_format_error_msg_, __COUNTER__)      \
        __attribute__((unused)) =                                                      \
            ::error_message::RegisterFormatErrorMessage((error_msg), (error_msg_len))

namespace error_message {

using char_t = char;

// CANN registers message templates in JSON; the simulator reports codes with their arguments.
inline int32_t RegisterFormatErrorMessage(const char* error_msg, size_t error_msg_len) {
    (void)error_msg;
    (void)error_msg_len;
    return 0;
}

inline int32_t ReportInnerErrMsg(const char* file_name, const char* func, uint32_t line,
                                 const char* error_code, const char* format, ...)
    __attribute__((format(printf, 5, 6)));
inline int32_t ReportInnerErrMsg(const char* file_name, const char* func, uint32_t line,
                                 const char* error_code, const char* format, ...) {
    (void)file_name;
    (void)func;
    (void)line;
    va_list args;
    va_start(args, format);
    const std::string text = opgen_host::FormatV(format, args);
    va_end(args);
    opgen_host::ReportError(error_code != nullptr ? error_code : "E", text);
    return 0;
}

inline int32_t ReportUserDefinedErrMsg(const char* error_code, const char* format, ...)
    __attribute__((format(printf, 2, 3)));
inline int32_t ReportUserDefinedErrMsg(const char* error_code, const char* format, ...) {
    va_list args;
    va_start(args, format);
    const std::string text = opgen_host::FormatV(format, args);
    va_end(args);
    opgen_host::ReportError(error_code != nullptr ? error_code : "E", text);
    return 0;
}

// A predefined code's arguments, as "key=value" pairs (CANN fills its message template).
inline int32_t ReportPredefinedErrMsg(const char* error_code, const std::vector<const char*>& key,
                                      const std::vector<const char*>& value) {
    std::string text;
    for (size_t i = 0; i < key.size(); ++i) {
        text += (i ? ", " : "") + std::string(key[i] != nullptr ? key[i] : "") + "=" +
                (i < value.size() && value[i] != nullptr ? value[i] : "");
    }
    opgen_host::ReportError(error_code != nullptr ? error_code : "E", text);
    return key.size() == value.size() ? 0 : -1;
}

inline int32_t ReportPredefinedErrMsg(const char* error_code) {
    opgen_host::ReportError(error_code != nullptr ? error_code : "E", "");
    return 0;
}

}  // namespace error_message

namespace ge {
using error_message::RegisterFormatErrorMessage;
using error_message::ReportInnerErrMsg;
using error_message::ReportPredefinedErrMsg;
using error_message::ReportUserDefinedErrMsg;
}  // namespace ge
