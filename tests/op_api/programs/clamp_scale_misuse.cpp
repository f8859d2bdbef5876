// Wrong calls of the generated aclnn API of ClampScale, one per line of output:
// "<case> <status> <message>". Each must return CANN's aclnn code with a message, and the
// program must get to the end (no crash, even when the op_host itself crashes).
#include <cstdio>
#include <vector>

#include "acl/acl.h"
#include "aclnn_clamp_scale.h"

static void Report(const char* what, int status) {
    std::printf("%s %d %s\n", what, status, status == 0 ? "" : aclGetRecentErrMsg());
}

int main() {
    aclInit(nullptr);
    aclrtSetDevice(0);
    aclrtStream stream = nullptr;
    aclrtCreateStream(&stream);
    const int64_t shape[1] = {64};
    void* dx = nullptr;
    void* dy = nullptr;
    aclrtMalloc(&dx, 64 * 4, ACL_MEM_MALLOC_HUGE_FIRST);
    aclrtMalloc(&dy, 64 * 4, ACL_MEM_MALLOC_HUGE_FIRST);
    aclrtMemset(dx, 64 * 4, 0, 64 * 4);
    aclTensor* x = aclCreateTensor(shape, 1, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, shape, 1, dx);
    aclTensor* y = aclCreateTensor(shape, 1, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, shape, 1, dy);
    aclTensor* y16 = aclCreateTensor(shape, 1, ACL_INT32, nullptr, 0, ACL_FORMAT_ND, shape, 1, dy);
    std::vector<float> host(64);
    aclTensor* on_host =
        aclCreateTensor(shape, 1, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, shape, 1, host.data());
    uint64_t ws = 0;
    aclOpExecutor* e = nullptr;
    void* w = nullptr;  // more than any of the calls asks for
    aclrtMalloc(&w, 32u << 20, ACL_MEM_MALLOC_HUGE_FIRST);

    Report("null_input", aclnnClampScaleGetWorkspaceSize(nullptr, 1.0, 6.0, 0, y, &ws, &e));
    Report("null_executor", aclnnClampScaleGetWorkspaceSize(x, 1.0, 6.0, 0, y, &ws, nullptr));
    Report("wrong_dtype", aclnnClampScaleGetWorkspaceSize(x, 1.0, 6.0, 0, y16, &ws, &e));
    Report("tiling_fails", aclnnClampScaleGetWorkspaceSize(x, 1.0, 6.0, 1, y, &ws, &e));
    Report("tiling_crashes", aclnnClampScaleGetWorkspaceSize(x, 1.0, 6.0, 2, y, &ws, &e));
    Report("no_tiling_data_prepare", aclnnClampScaleGetWorkspaceSize(x, 1.0, 6.0, 3, y, &ws, &e));
    Report("no_tiling_data", aclnnClampScale(w, ws, e, stream));

    Report("host_memory_prepare", aclnnClampScaleGetWorkspaceSize(on_host, 1.0, 6.0, 0, y, &ws, &e));
    Report("host_memory", aclnnClampScale(nullptr, 0, e, stream));

    Report("prepare", aclnnClampScaleGetWorkspaceSize(x, 1.0, 6.0, 0, y, &ws, &e));
    Report("short_workspace", aclnnClampScale(w, 16, e, stream));
    Report("prepare_again", aclnnClampScaleGetWorkspaceSize(x, 1.0, 6.0, 0, y, &ws, &e));
    Report("run", aclnnClampScale(w, ws, e, stream));
    Report("run_twice", aclnnClampScale(w, ws, e, stream));

    Report("repeatable_prepare", aclnnClampScaleGetWorkspaceSize(x, 1.0, 6.0, 0, y, &ws, &e));
    Report("repeatable", aclSetAclOpExecutorRepeatable(e));
    Report("repeatable_run_1", aclnnClampScale(w, ws, e, stream));
    Report("repeatable_run_2", aclnnClampScale(w, ws, e, stream));
    Report("repeatable_destroy", aclDestroyAclOpExecutor(e));

    aclDestroyTensor(x);
    aclDestroyTensor(y);
    aclDestroyTensor(y16);
    aclDestroyTensor(on_host);
    aclrtFree(dx);
    aclrtFree(dy);
    aclrtFree(w);
    std::printf("end\n");
    return 0;
}
