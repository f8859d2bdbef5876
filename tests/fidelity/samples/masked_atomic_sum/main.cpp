/* CPU-debug driver of masked_atomic_sum: 16 cores add into one output. */
#include "sample_io.h"
#include "tikicpulib.h"

extern "C" __global__ __aicore__ void masked_atomic_sum(GM_ADDR x, GM_ADDR z);

int32_t main(int32_t argc, char *argv[])
{
    constexpr uint32_t blockDim = 16, rowsPerCore = 32, cols = 256;
    size_t xBytes = blockDim * rowsPerCore * cols * sizeof(float);
    size_t zBytes = cols * sizeof(float);
    uint8_t *x = (uint8_t *)AscendC::GmAlloc(xBytes);
    uint8_t *z = (uint8_t *)AscendC::GmAlloc(zBytes);  // GmAlloc memory starts zeroed
    sample_io::Load("./input/x.bin", x, xBytes);

    AscendC::SetKernelMode(KernelMode::AIV_MODE);
    ICPU_RUN_KF(masked_atomic_sum, blockDim, x, z);

    sample_io::Store("./output/z.bin", z, zBytes);
    AscendC::GmFree((void *)x);
    AscendC::GmFree((void *)z);
    return 0;
}
