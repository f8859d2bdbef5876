// Calls acl runtime functions wrongly and rightly and prints `name=code` per call, and the last
// recorded message, for tests/acl/test_acl_runtime.py to compare with CANN's documented codes.
#include <cstdio>
#include <cstring>

#include "acl/acl.h"

static void Report(const char* name, aclError code)
{
    std::printf("%s=%d\n", name, code);
}

int main()
{
    Report("init", aclInit(nullptr));
    Report("init_again", aclInit(nullptr));
    Report("set_device_1", aclrtSetDevice(1));
    Report("set_device_0", aclrtSetDevice(0));
    int32_t device = -1;
    Report("get_device", aclrtGetDevice(&device));
    std::printf("device=%d\n", device);

    void* dev = nullptr;
    Report("malloc_zero", aclrtMalloc(&dev, 0, ACL_MEM_MALLOC_HUGE_FIRST));
    Report("malloc", aclrtMalloc(&dev, 100, ACL_MEM_MALLOC_HUGE_FIRST));
    char host[256] = {};
    std::memset(host, 7, sizeof(host));
    // 100 bytes requested: 128 + 32 usable, as CANN rounds
    Report("memcpy_h2d_160", aclrtMemcpy(dev, 160, host, 160, ACL_MEMCPY_HOST_TO_DEVICE));
    Report("memcpy_h2d_161", aclrtMemcpy(dev, 161, host, 161, ACL_MEMCPY_HOST_TO_DEVICE));
    std::printf("msg_161=%s\n", aclGetRecentErrMsg());
    std::printf("msg_after=[%s]\n", aclGetRecentErrMsg());
    Report("memcpy_count_gt_destmax", aclrtMemcpy(dev, 16, host, 32, ACL_MEMCPY_HOST_TO_DEVICE));
    Report("memcpy_bad_kind", aclrtMemcpy(dev, 16, host, 16, static_cast<aclrtMemcpyKind>(42)));
    Report("memcpy_swapped_kind", aclrtMemcpy(host, 16, dev, 16, ACL_MEMCPY_HOST_TO_DEVICE));
    Report("memcpy_null", aclrtMemcpy(nullptr, 16, host, 16, ACL_MEMCPY_HOST_TO_DEVICE));
    Report("memset", aclrtMemset(dev, 160, 3, 160));
    char back[160] = {};
    Report("memcpy_d2h", aclrtMemcpy(back, 160, dev, 160, ACL_MEMCPY_DEVICE_TO_HOST));
    std::printf("back_159=%d\n", back[159]);
    Report("memcpy_default", aclrtMemcpy(back, 16, dev, 16, ACL_MEMCPY_DEFAULT));
    Report("memset_past", aclrtMemset(dev, 200, 0, 200));
    Report("free_inside", aclrtFree(static_cast<char*>(dev) + 32));
    Report("free", aclrtFree(dev));
    Report("free_again", aclrtFree(dev));
    Report("free_null", aclrtFree(nullptr));
    Report("free_host_ptr", aclrtFree(host));

    void* pinned = nullptr;
    Report("malloc_host", aclrtMallocHost(&pinned, 64));
    Report("free_host", aclrtFreeHost(pinned));
    Report("free_host_again", aclrtFreeHost(pinned));

    aclrtStream stream = nullptr;
    Report("create_stream", aclrtCreateStream(&stream));
    Report("sync_stream", aclrtSynchronizeStream(stream));
    Report("destroy_stream", aclrtDestroyStream(stream));
    Report("sync_dead_stream", aclrtSynchronizeStream(stream));
    Report("destroy_null_stream", aclrtDestroyStream(nullptr));

    aclrtContext ctx = nullptr;
    aclrtContext current = nullptr;
    Report("create_context", aclrtCreateContext(&ctx, 0));
    Report("get_context", aclrtGetCurrentContext(&current));
    std::printf("context_is_current=%d\n", current == ctx ? 1 : 0);
    Report("destroy_context", aclrtDestroyContext(ctx));
    Report("destroy_context_again", aclrtDestroyContext(ctx));

    std::printf("fp16_roundtrip=%g\n", aclFloat16ToFloat(aclFloatToFloat16(1.0f / 3.0f)));
    std::printf("fp16_bits=%u\n", static_cast<unsigned>(aclFloatToFloat16(65504.0f)));
    Report("reset_device", aclrtResetDevice(0));
    Report("finalize", aclFinalize());
    Report("finalize_again", aclFinalize());
    return 0;
}
