// A driver of the generated aclnn API of SumList (tests/fixtures/msopgen_sum_list: a dynamic
// input xList, an aclTensorList). It reads K tensors of N floats from IN, runs y = their sum and
// writes y to OUT; a failing call prints its code and message and exits 1. With K = 0 it checks
// the misuse codes instead: a null list, a list of mixed dtypes.
// Usage: sum_list_driver IN OUT K N
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "acl/acl.h"
#include "aclnn_sum_list.h"

#define CHECK(call)                                                                   \
    do {                                                                              \
        const int rc_ = (call);                                                       \
        if (rc_ != 0) {                                                               \
            std::printf("FAILED %s: %d: %s\n", #call, rc_, aclGetRecentErrMsg());     \
            return 1;                                                                 \
        }                                                                             \
    } while (0)

static int Misuse() {
    const int64_t shape[1] = {64};
    void* a = nullptr;
    void* b = nullptr;
    CHECK(aclrtMalloc(&a, 256, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK(aclrtMalloc(&b, 256, ACL_MEM_MALLOC_HUGE_FIRST));
    aclTensor* y = aclCreateTensor(shape, 1, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, shape, 1, b);
    uint64_t ws = 0;
    aclOpExecutor* ex = nullptr;
    std::printf("null_list %d\n", aclnnSumListGetWorkspaceSize(nullptr, y, &ws, &ex));
    aclTensor* parts[2] = {
        aclCreateTensor(shape, 1, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, shape, 1, a),
        aclCreateTensor(shape, 1, ACL_FLOAT16, nullptr, 0, ACL_FORMAT_ND, shape, 1, a)};
    aclTensorList* mixed = aclCreateTensorList(parts, 2);
    const int mixed_rc = aclnnSumListGetWorkspaceSize(mixed, y, &ws, &ex);
    std::printf("mixed_dtypes %d %s\n", mixed_rc, aclGetRecentErrMsg());
    CHECK(aclDestroyTensorList(mixed));
    CHECK(aclDestroyTensor(y));
    std::printf("end\n");
    return 0;
}

int main(int argc, char** argv) {
    if (argc < 5) return 2;
    const int k = std::atoi(argv[3]);
    const int64_t n = std::atoll(argv[4]);
    CHECK(aclInit(nullptr));
    CHECK(aclrtSetDevice(0));
    aclrtStream stream = nullptr;
    CHECK(aclrtCreateStream(&stream));
    if (k == 0) return Misuse();
    const size_t bytes = static_cast<size_t>(n) * sizeof(float);
    std::vector<float> host(static_cast<size_t>(n) * k);
    FILE* f = std::fopen(argv[1], "rb");
    if (f == nullptr || std::fread(host.data(), bytes, k, f) != static_cast<size_t>(k)) return 3;
    std::fclose(f);

    const int64_t shape[2] = {1, n};
    std::vector<void*> dx(k);
    std::vector<aclTensor*> xs(k);
    for (int i = 0; i < k; ++i) {
        CHECK(aclrtMalloc(&dx[i], bytes, ACL_MEM_MALLOC_HUGE_FIRST));
        CHECK(aclrtMemcpy(dx[i], bytes, host.data() + i * n, bytes, ACL_MEMCPY_HOST_TO_DEVICE));
        xs[i] = aclCreateTensor(shape, 2, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, shape, 2, dx[i]);
    }
    aclTensorList* list = aclCreateTensorList(xs.data(), static_cast<uint64_t>(k));
    void* dy = nullptr;
    CHECK(aclrtMalloc(&dy, bytes, ACL_MEM_MALLOC_HUGE_FIRST));
    aclTensor* y = aclCreateTensor(shape, 2, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, shape, 2, dy);

    uint64_t workspaceSize = 0;
    aclOpExecutor* executor = nullptr;
    CHECK(aclnnSumListGetWorkspaceSize(list, y, &workspaceSize, &executor));
    CHECK(aclnnSumList(nullptr, workspaceSize, executor, stream));
    CHECK(aclrtSynchronizeStream(stream));

    std::vector<float> out(static_cast<size_t>(n));
    CHECK(aclrtMemcpy(out.data(), bytes, dy, bytes, ACL_MEMCPY_DEVICE_TO_HOST));
    f = std::fopen(argv[2], "wb");
    std::fwrite(out.data(), 1, bytes, f);
    std::fclose(f);
    CHECK(aclDestroyTensorList(list));  // destroys the tensors it holds
    CHECK(aclDestroyTensor(y));
    for (void* p : dx) CHECK(aclrtFree(p));
    CHECK(aclrtFree(dy));
    CHECK(aclrtDestroyStream(stream));
    CHECK(aclrtResetDevice(0));
    CHECK(aclFinalize());
    return 0;
}
