// A driver of the generated aclnn API of ClampScale (tests/fixtures/msopgen_clamp: attrs gain,
// limit, mode; its op_host's TilingFunc picks the tiling key and asks for a workspace). It reads
// x from IN, runs y = clamp(x * gain, -limit, limit) and writes y to OUT; a failing call prints
// its code and message and exits 1.
// Usage: clamp_scale_driver IN OUT N GAIN LIMIT MODE fp32|fp16
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "acl/acl.h"
#include "aclnn_clamp_scale.h"

#define CHECK(call)                                                                   \
    do {                                                                              \
        const int rc_ = (call);                                                       \
        if (rc_ != 0) {                                                               \
            std::printf("FAILED %s: %d: %s\n", #call, rc_, aclGetRecentErrMsg());     \
            return 1;                                                                 \
        }                                                                             \
    } while (0)

int main(int argc, char** argv) {
    if (argc < 8) return 2;
    const int64_t n = std::atoll(argv[3]);
    const double gain = std::atof(argv[4]);
    const double limit = std::atof(argv[5]);
    const int64_t mode = std::atoll(argv[6]);
    const bool half = std::strcmp(argv[7], "fp16") == 0;
    const size_t bytes = static_cast<size_t>(n) * (half ? 2 : 4);
    std::vector<unsigned char> host(bytes);
    FILE* f = std::fopen(argv[1], "rb");
    if (f == nullptr || std::fread(host.data(), 1, bytes, f) != bytes) return 3;
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
    const int64_t shape[1] = {n};
    const aclDataType dt = half ? ACL_FLOAT16 : ACL_FLOAT;
    aclTensor* x = aclCreateTensor(shape, 1, dt, nullptr, 0, ACL_FORMAT_ND, shape, 1, dx);
    aclTensor* y = aclCreateTensor(shape, 1, dt, nullptr, 0, ACL_FORMAT_ND, shape, 1, dy);

    uint64_t workspaceSize = 0;
    aclOpExecutor* executor = nullptr;
    CHECK(aclnnClampScaleGetWorkspaceSize(x, gain, limit, mode, y, &workspaceSize, &executor));
    void* workspace = nullptr;
    if (workspaceSize > 0) CHECK(aclrtMalloc(&workspace, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK(aclnnClampScale(workspace, workspaceSize, executor, stream));
    CHECK(aclrtSynchronizeStream(stream));
    std::printf("workspace %llu\n", static_cast<unsigned long long>(workspaceSize));

    CHECK(aclrtMemcpy(host.data(), bytes, dy, bytes, ACL_MEMCPY_DEVICE_TO_HOST));
    f = std::fopen(argv[2], "wb");
    std::fwrite(host.data(), 1, bytes, f);
    std::fclose(f);

    CHECK(aclDestroyTensor(x));
    CHECK(aclDestroyTensor(y));
    CHECK(aclrtFree(dx));
    CHECK(aclrtFree(dy));
    if (workspace != nullptr) CHECK(aclrtFree(workspace));
    CHECK(aclrtDestroyStream(stream));
    CHECK(aclrtResetDevice(0));
    CHECK(aclFinalize());
    return 0;
}
