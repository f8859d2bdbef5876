/* CPU-debug driver of row_mean: 100 rows of 37 floats on 4 cores. */
#include "sample_io.h"
#include "tikicpulib.h"

extern "C" __global__ __aicore__ void row_mean(GM_ADDR x, GM_ADDR y, GM_ADDR tiling);

int32_t main(int32_t argc, char *argv[])
{
    constexpr uint32_t rows = 100, cols = 37, blockDim = 4;
    size_t xBytes = rows * cols * sizeof(float);
    size_t yBytes = rows * sizeof(float);
    uint8_t *x = (uint8_t *)AscendC::GmAlloc(xBytes);
    uint8_t *y = (uint8_t *)AscendC::GmAlloc(yBytes);
    uint8_t *tiling = (uint8_t *)AscendC::GmAlloc(2 * sizeof(uint32_t));
    reinterpret_cast<uint32_t *>(tiling)[0] = rows;
    reinterpret_cast<uint32_t *>(tiling)[1] = cols;
    sample_io::Load("./input/x.bin", x, xBytes);

    AscendC::SetKernelMode(KernelMode::AIV_MODE);
    ICPU_RUN_KF(row_mean, blockDim, x, y, tiling);

    sample_io::Store("./output/y.bin", y, yBytes);
    AscendC::GmFree((void *)x);
    AscendC::GmFree((void *)y);
    AscendC::GmFree((void *)tiling);
    return 0;
}
