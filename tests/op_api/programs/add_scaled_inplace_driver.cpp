// A driver of the generated aclnn API of AddScaledInplace (tests/fixtures/msopgen_inplace: an
// OpDef with no output, whose kernel writes its first input x). aclnnAddScaledInplace-
// GetWorkspaceSize takes only the inputs and the attr; the result is read back from x's device
// buffer. Reads N floats of x then N of y from IN, writes x after the call to OUT.
// Usage: add_scaled_inplace_driver IN OUT N ALPHA
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "acl/acl.h"
#include "aclnn_add_scaled_inplace.h"

#define CHECK(call)                                                                   \
    do {                                                                              \
        const int rc_ = (call);                                                       \
        if (rc_ != 0) {                                                               \
            std::printf("FAILED %s: %d: %s\n", #call, rc_, aclGetRecentErrMsg());     \
            return 1;                                                                 \
        }                                                                             \
    } while (0)

int main(int argc, char** argv) {
    if (argc < 5) return 2;
    const int64_t n = std::atoll(argv[3]);
    const float alpha = static_cast<float>(std::atof(argv[4]));
    const size_t bytes = static_cast<size_t>(n) * sizeof(float);
    std::vector<float> host(static_cast<size_t>(n) * 2);
    FILE* f = std::fopen(argv[1], "rb");
    if (f == nullptr || std::fread(host.data(), bytes, 2, f) != 2) return 3;
    std::fclose(f);
    CHECK(aclInit(nullptr));
    CHECK(aclrtSetDevice(0));
    aclrtStream stream = nullptr;
    CHECK(aclrtCreateStream(&stream));
    void* dx = nullptr;
    void* dy = nullptr;
    CHECK(aclrtMalloc(&dx, bytes, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK(aclrtMalloc(&dy, bytes, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK(aclrtMemcpy(dx, bytes, host.data(), bytes, ACL_MEMCPY_HOST_TO_DEVICE));
    CHECK(aclrtMemcpy(dy, bytes, host.data() + n, bytes, ACL_MEMCPY_HOST_TO_DEVICE));
    const int64_t shape[1] = {n};
    aclTensor* x = aclCreateTensor(shape, 1, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, shape, 1, dx);
    aclTensor* y = aclCreateTensor(shape, 1, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, shape, 1, dy);

    uint64_t workspaceSize = 0;
    aclOpExecutor* executor = nullptr;
    CHECK(aclnnAddScaledInplaceGetWorkspaceSize(x, y, alpha, &workspaceSize, &executor));
    void* ws = nullptr;
    if (workspaceSize > 0) CHECK(aclrtMalloc(&ws, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK(aclnnAddScaledInplace(ws, workspaceSize, executor, stream));
    CHECK(aclrtSynchronizeStream(stream));

    std::vector<float> out(static_cast<size_t>(n));
    CHECK(aclrtMemcpy(out.data(), bytes, dx, bytes, ACL_MEMCPY_DEVICE_TO_HOST));
    f = std::fopen(argv[2], "wb");
    if (f == nullptr || std::fwrite(out.data(), bytes, 1, f) != 1) return 4;
    std::fclose(f);
    CHECK(aclDestroyTensor(x));
    CHECK(aclDestroyTensor(y));
    std::printf("end\n");
    return 0;
}
