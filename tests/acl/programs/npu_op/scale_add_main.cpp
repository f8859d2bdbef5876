// A driver of the op package's aclnn API: z = alpha * x + y on 4096 floats, checked on the host.
#include <cmath>
#include <cstdio>
#include <vector>

#include "acl/acl.h"
#include "aclnn/acl_meta.h"
#include "aclnn_scale_add_custom.h"

int main()
{
    const std::vector<int64_t> shape = {4, 1024};
    const size_t n = 4096, bytes = n * sizeof(float);
    std::vector<float> x(n), y(n), z(n);
    for (size_t i = 0; i < n; ++i) {
        x[i] = 0.25f * static_cast<float>(i % 97) - 3.0f;
        y[i] = static_cast<float>(i % 13);
    }
    aclInit(nullptr);
    aclrtSetDevice(0);
    aclrtStream stream = nullptr;
    aclrtCreateStream(&stream);
    void* d[3] = {nullptr, nullptr, nullptr};
    for (void*& p : d) aclrtMalloc(&p, bytes, ACL_MEM_MALLOC_HUGE_FIRST);
    aclrtMemcpy(d[0], bytes, x.data(), bytes, ACL_MEMCPY_HOST_TO_DEVICE);
    aclrtMemcpy(d[1], bytes, y.data(), bytes, ACL_MEMCPY_HOST_TO_DEVICE);
    aclTensor* t[3];
    for (int k = 0; k < 3; ++k) {
        t[k] = aclCreateTensor(shape.data(), shape.size(), ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND,
                               shape.data(), shape.size(), d[k]);
    }
    uint64_t workspaceSize = 0;
    aclOpExecutor* executor = nullptr;
    int ret = aclnnScaleAddCustomGetWorkspaceSize(t[0], t[1], 1.5, t[2], &workspaceSize, &executor);
    if (ret != 0) {
        std::printf("GetWorkspaceSize failed: %d\n", ret);
        return 1;
    }
    ret = aclnnScaleAddCustom(nullptr, workspaceSize, executor, stream);
    if (ret != 0) {
        std::printf("launch failed: %d\n", ret);
        return 1;
    }
    aclrtSynchronizeStream(stream);
    aclrtMemcpy(z.data(), bytes, d[2], bytes, ACL_MEMCPY_DEVICE_TO_HOST);
    size_t wrong = 0;
    for (size_t i = 0; i < n; ++i) {
        if (z[i] != 1.5f * x[i] + y[i]) ++wrong;
    }
    std::printf("scale_add: %zu of %zu wrong\n", wrong, n);
    for (aclTensor* p : t) aclDestroyTensor(p);
    for (void* p : d) aclrtFree(p);
    aclrtDestroyStream(stream);
    aclrtResetDevice(0);
    aclFinalize();
    return wrong == 0 ? 0 : 1;
}
