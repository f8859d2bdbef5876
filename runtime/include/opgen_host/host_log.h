// opgen host runtime: the log of the host call in progress. CANN's device log
// (toolchain/slog.h: CheckLogLevel, DlogRecord) and its error manager (base/err_msg.h) write
// here; a failing TilingFunc, InferShape or InferDataType reports the log with its result, so
// what an op_host logged before it returned GRAPH_FAILED reaches the TilingError. The level is
// CANN's setting, ASCEND_GLOBAL_LOG_LEVEL (0 debug, 1 info, 2 warning, 3 error, 4 none; default
// error); ASCEND_SLOG_PRINT_TO_STDOUT=1 also prints every record as it is made.
#pragma once

#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace opgen_host {

// thread_local: calls are serialised, but an op_host may log from a helper thread of its own,
// whose records then stay out of another call's report
inline std::string& HostLog() {
    static thread_local std::string log;
    return log;
}

enum LogLevel : int32_t { kLogDebug = 0, kLogInfo = 1, kLogWarn = 2, kLogError = 3, kLogNone = 4 };

inline int32_t GlobalLogLevel() {
    const char* env = std::getenv("ASCEND_GLOBAL_LOG_LEVEL");
    if (env == nullptr || *env == '\0') return kLogError;
    char* end = nullptr;
    const long v = std::strtol(env, &end, 10);
    return (*end != '\0' || v < kLogDebug || v > kLogNone) ? kLogError : static_cast<int32_t>(v);
}

inline bool LogEnabled(int32_t level) { return level >= GlobalLogLevel() && level < kLogNone; }

inline const char* LevelName(int32_t level) {
    switch (level) {
        case kLogDebug: return "DEBUG";
        case kLogInfo: return "INFO";
        case kLogWarn: return "WARNING";
        default: return "ERROR";
    }
}

inline std::string FormatV(const char* fmt, va_list args) {
    if (fmt == nullptr) return std::string();
    va_list again;
    va_copy(again, args);
    const int n = std::vsnprintf(nullptr, 0, fmt, again);
    va_end(again);
    if (n <= 0) return std::string();
    std::string text(static_cast<size_t>(n) + 1, '\0');
    std::vsnprintf(&text[0], text.size(), fmt, args);
    text.resize(static_cast<size_t>(n));
    while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
    return text;
}

// One record: a line "[LEVEL] text" (the log's lines are what the TilingError shows).
inline void LogLine(const std::string& line) {
    HostLog() += line + "\n";
    const char* out = std::getenv("ASCEND_SLOG_PRINT_TO_STDOUT");
    if (out != nullptr && std::string(out) == "1") std::printf("%s\n", line.c_str());
}

inline void LogRecord(int32_t level, const std::string& text) {
    LogLine(std::string("[") + LevelName(level) + "] " + text);
}

// An error-manager report ("E<code>: text"). opbase's OP_LOGE both logs its text and reports
// it; the report is kept once when the log line just before it already ends with that text.
inline void ReportError(const std::string& code, const std::string& text) {
    const std::string& log = HostLog();
    // every record ends with '\n': the last one starts after the one before that, if any
    const size_t before = log.size() < 2 ? std::string::npos : log.rfind('\n', log.size() - 2);
    const std::string last = before == std::string::npos ? log : log.substr(before + 1);
    const std::string tail = text + "\n";
    if (!text.empty() && last.size() >= tail.size() &&
        last.compare(last.size() - tail.size(), tail.size(), tail) == 0) {
        return;
    }
    LogLine(code + ": " + text);
}

}  // namespace opgen_host
