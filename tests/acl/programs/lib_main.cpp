// Calls the kernel library's host function (lib_kernel.asc) and checks y = 2x + 1.
#include <cstdio>
#include <vector>

#include "acl/acl.h"

void run_twice_plus(float* x, float* y, uint32_t total, uint32_t blocks, aclrtStream stream);

int main() {
    constexpr uint32_t total = 4 * 1024;
    const size_t bytes = total * sizeof(float);
    aclInit(nullptr);
    aclrtSetDevice(0);
    aclrtStream stream = nullptr;
    aclrtCreateStream(&stream);
    std::vector<float> hx(total), hy(total);
    for (uint32_t i = 0; i < total; ++i) hx[i] = static_cast<float>(i) * 0.25f;
    void *x, *y;
    aclrtMalloc(&x, bytes, ACL_MEM_MALLOC_HUGE_FIRST);
    aclrtMalloc(&y, bytes, ACL_MEM_MALLOC_HUGE_FIRST);
    aclrtMemcpy(x, bytes, hx.data(), bytes, ACL_MEMCPY_HOST_TO_DEVICE);
    run_twice_plus(static_cast<float*>(x), static_cast<float*>(y), total, 4, stream);
    aclrtSynchronizeStream(stream);
    aclrtMemcpy(hy.data(), bytes, y, bytes, ACL_MEMCPY_DEVICE_TO_HOST);
    uint32_t bad = 0;
    for (uint32_t i = 0; i < total; ++i) bad += hy[i] != hx[i] * 2.0f + 1.0f;
    std::printf("twice_plus: %u of %u wrong\n", bad, total);
    aclrtFree(x);
    aclrtFree(y);
    aclrtDestroyStream(stream);
    aclrtResetDevice(0);
    aclFinalize();
    return bad == 0 ? 0 : 1;
}
