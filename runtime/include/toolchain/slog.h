// opgen host runtime: CANN's device-log API (CheckLogLevel, DlogRecord and the dlog_* macros)
// for op_host code. Records go to the log of the host call in progress (opgen_host/host_log.h),
// which opgen reports when the call fails; opgen_host/host_abi.h defines the two functions.
#pragma once

#include <cstdint>

#ifndef DLOG_DEBUG
#define DLOG_DEBUG 0x0
#endif
#ifndef DLOG_INFO
#define DLOG_INFO 0x1
#endif
#ifndef DLOG_WARN
#define DLOG_WARN 0x2
#endif
#ifndef DLOG_ERROR
#define DLOG_ERROR 0x3
#endif
#ifndef DLOG_NULL
#define DLOG_NULL 0x4
#endif

extern "C" {
// 1 when records of `logLevel` are kept (at or above ASCEND_GLOBAL_LOG_LEVEL), else 0.
int32_t CheckLogLevel(int32_t moduleId, int32_t logLevel);
// printf-style record at `level`, kept when CheckLogLevel would say so.
void DlogRecord(int32_t moduleId, int32_t level, const char* fmt, ...)
    __attribute__((format(printf, 3, 4)));
}

#define dlog_error(moduleId, fmt, ...) DlogRecord((moduleId), DLOG_ERROR, fmt, ##__VA_ARGS__)
#define dlog_warn(moduleId, fmt, ...) DlogRecord((moduleId), DLOG_WARN, fmt, ##__VA_ARGS__)
#define dlog_info(moduleId, fmt, ...) DlogRecord((moduleId), DLOG_INFO, fmt, ##__VA_ARGS__)
#define dlog_debug(moduleId, fmt, ...) DlogRecord((moduleId), DLOG_DEBUG, fmt, ##__VA_ARGS__)
