// Single-operator execution of ScaleAddCustom: the model atc --singleop wrote is loaded from the
// directory argv[1]; z = alpha * x + y on 4x1024 floats, checked on the host. argv[2] picks a
// failure to show: "shape" (no model for 8x512), "attr" (alpha not set).
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "acl/acl.h"

int main(int argc, char** argv)
{
    const std::string mode = argc > 2 ? argv[2] : "";
    const std::vector<int64_t> shape = mode == "shape" ? std::vector<int64_t>{8, 512}
                                                      : std::vector<int64_t>{4, 1024};
    const size_t n = 4096, bytes = n * sizeof(float);
    std::vector<float> x(n), y(n), z(n);
    for (size_t i = 0; i < n; ++i) {
        x[i] = 0.5f * static_cast<float>(i % 31) - 7.0f;
        y[i] = static_cast<float>(i % 5);
    }
    aclInit(nullptr);
    aclrtSetDevice(0);
    aclrtStream stream = nullptr;
    aclrtCreateStream(&stream);
    if (aclopSetModelDir(argv[1]) != ACL_SUCCESS) return 2;
    aclTensorDesc* desc[3];
    aclDataBuffer* buf[3];
    void* d[3];
    for (int k = 0; k < 3; ++k) {
        desc[k] = aclCreateTensorDesc(ACL_FLOAT, 2, shape.data(), ACL_FORMAT_ND);
        aclrtMalloc(&d[k], bytes, ACL_MEM_MALLOC_HUGE_FIRST);
        buf[k] = aclCreateDataBuffer(d[k], bytes);
    }
    aclrtMemcpy(d[0], bytes, x.data(), bytes, ACL_MEMCPY_HOST_TO_DEVICE);
    aclrtMemcpy(d[1], bytes, y.data(), bytes, ACL_MEMCPY_HOST_TO_DEVICE);
    aclopAttr* attr = aclopCreateAttr();
    if (mode != "attr") aclopSetAttrFloat(attr, "alpha", 1.5f);
    const aclError ret = aclopExecuteV2("ScaleAddCustom", 2, desc, buf, 1, desc + 2, buf + 2, attr,
                                        stream);
    if (ret != ACL_SUCCESS) {
        std::printf("aclopExecuteV2 returned %d\n", ret);
        return 1;
    }
    aclrtSynchronizeStream(stream);
    aclrtMemcpy(z.data(), bytes, d[2], bytes, ACL_MEMCPY_DEVICE_TO_HOST);
    size_t wrong = 0;
    for (size_t i = 0; i < n; ++i) {
        if (z[i] != 1.5f * x[i] + y[i]) ++wrong;
    }
    std::printf("scale_add (aclop): %zu of %zu wrong\n", wrong, n);
    aclopDestroyAttr(attr);
    for (int k = 0; k < 3; ++k) {
        aclDestroyDataBuffer(buf[k]);
        aclDestroyTensorDesc(desc[k]);
        aclrtFree(d[k]);
    }
    aclrtDestroyStream(stream);
    aclrtResetDevice(0);
    aclFinalize();
    return wrong == 0 ? 0 : 1;
}
