// opgen host runtime: the C structs of the op_host library ABI (opgen_host_call), shared by
// the library side (host_abi.h) and its callers in C++ (host_client.h); opgen_runtime.ophost
// mirrors them with ctypes.
#pragma once

#include <cstdint>

extern "C" {

struct OpgenHostTensor {
    int32_t dtype;
    int32_t format;
    int32_t ndim;
    int32_t reserved;
    int64_t dims[25];
    const void* data;  // host values (ValueDepend inputs), else null
    int64_t nbytes;
};

// kind: 0 int (int64), 1 float (float32), 2 bool (uint8), 3 string (count bytes),
// 4 list_int (int64[count]), 5 list_float (float32[count]), 6 list_bool (uint8[count])
struct OpgenHostAttr {
    int32_t kind;
    int32_t reserved;
    int64_t count;
    const void* data;
};

enum { OPGEN_HOST_TILING = 1, OPGEN_HOST_INFER_SHAPE = 2, OPGEN_HOST_INFER_DTYPE = 3 };
enum { OPGEN_HOST_MAX_OUTPUTS = 64, OPGEN_HOST_MAX_WORKSPACES = 16 };

struct OpgenHostRequest {
    const char* op_type;
    int32_t what;
    int32_t num_ir_inputs;
    const int32_t* ir_counts;  // instances per IR input: 0 absent, 1, or n for a dynamic one
    int32_t num_inputs;
    int32_t num_outputs;
    const OpgenHostTensor* inputs;
    const OpgenHostTensor* outputs;
    int32_t num_attrs;
    int32_t aiv_cores;
    const OpgenHostAttr* attrs;
    const char* soc;
    int64_t ub_bytes;
    int32_t aic_cores;
    int32_t reserved;
    int64_t sys_workspace;
    uint8_t* tiling;
    int64_t tiling_capacity;
    // instances per IR output (a dynamic output has several); null: one per output
    int32_t num_ir_outputs;
    int32_t reserved2;
    const int32_t* ir_out_counts;
};

struct OpgenHostReply {
    int64_t tiling_size;
    uint64_t tiling_key;
    int64_t block_dim;
    int32_t block_dim_set;
    int32_t schedule_mode;
    int32_t need_atomic;
    int32_t num_workspaces;
    uint64_t init_zero_outputs;  // bit o: output o is declared with InitValue
    int64_t workspaces[OPGEN_HOST_MAX_WORKSPACES];
    int32_t out_ndim[OPGEN_HOST_MAX_OUTPUTS];
    int32_t out_dtypes[OPGEN_HOST_MAX_OUTPUTS];
    int64_t out_dims[OPGEN_HOST_MAX_OUTPUTS][25];
    char message[4096];
};

}  // extern "C"

namespace opgen_host {
// status codes of opgen_host_call
enum : int32_t { kOk = 0, kFailed = 1, kMissing = 2, kFault = 3, kThrew = 4, kBadRequest = 5 };
}  // namespace opgen_host
