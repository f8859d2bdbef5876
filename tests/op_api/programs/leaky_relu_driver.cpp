// A driver of the generated aclnn API of LeakyRelu (specs/leaky_relu.yaml), written the way
// CANN's aclnn samples are: aclrtMalloc'ed tensors, the two phases, a stream. It reads x from
// argv[1] (float32), writes y to argv[2], and reports any failing call's code and message.
// Usage: leaky_relu_driver IN OUT N SLOPE [fp16]
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "acl/acl.h"
#include "aclnn_leaky_relu.h"

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
    const double slope = std::atof(argv[4]);
    const bool half = argc > 5 && std::strcmp(argv[5], "fp16") == 0;
    const size_t esize = half ? 2 : 4;
    std::vector<unsigned char> host(static_cast<size_t>(n) * esize);
    FILE* f = std::fopen(argv[1], "rb");
    if (f == nullptr || std::fread(host.data(), 1, host.size(), f) != host.size()) return 3;
    std::fclose(f);

    CHECK(aclInit(nullptr));
    CHECK(aclrtSetDevice(0));
    aclrtStream stream = nullptr;
    CHECK(aclrtCreateStream(&stream));
    void* dx = nullptr;
    void* dy = nullptr;
    CHECK(aclrtMalloc(&dx, host.size(), ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK(aclrtMalloc(&dy, host.size(), ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK(aclrtMemcpy(dx, host.size(), host.data(), host.size(), ACL_MEMCPY_HOST_TO_DEVICE));
    const int64_t shape[2] = {2, n / 2};
    const aclDataType dt = half ? ACL_FLOAT16 : ACL_FLOAT;
    aclTensor* x = aclCreateTensor(shape, 2, dt, nullptr, 0, ACL_FORMAT_ND, shape, 2, dx);
    aclTensor* y = aclCreateTensor(shape, 2, dt, nullptr, 0, ACL_FORMAT_ND, shape, 2, dy);

    uint64_t workspaceSize = 0;
    aclOpExecutor* executor = nullptr;
    CHECK(aclnnLeakyReluGetWorkspaceSize(x, slope, y, &workspaceSize, &executor));
    void* workspace = nullptr;
    if (workspaceSize > 0) CHECK(aclrtMalloc(&workspace, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK(aclnnLeakyRelu(workspace, workspaceSize, executor, stream));
    CHECK(aclrtSynchronizeStream(stream));

    CHECK(aclrtMemcpy(host.data(), host.size(), dy, host.size(), ACL_MEMCPY_DEVICE_TO_HOST));
    f = std::fopen(argv[2], "wb");
    std::fwrite(host.data(), 1, host.size(), f);
    std::fclose(f);
    std::printf("workspace %llu\n", static_cast<unsigned long long>(workspaceSize));

    aclDestroyTensor(x);
    aclDestroyTensor(y);
    aclrtFree(dx);
    aclrtFree(dy);
    if (workspace != nullptr) aclrtFree(workspace);
    aclrtDestroyStream(stream);
    aclrtResetDevice(0);
    aclFinalize();
    return 0;
}
