/* CPU-debug driver: the tiling struct is computed on the host and passed by value. */
#include "add_custom_tiling.h"
#include "data_utils.h"
#ifndef ASCENDC_CPU_DEBUG
#include "acl/acl.h"
#else
#include "tikicpulib.h"
extern "C" __global__ __aicore__ void add_custom(GM_ADDR x, GM_ADDR y, GM_ADDR z, AddCustomTilingData tiling);
#endif
constexpr uint32_t CORE_NUM = 4;
constexpr uint32_t TOTAL_LENGTH = 4 * 4096;

void GenerateTilingData(uint8_t *tilingBuf)
{
    AddCustomTilingData *tiling = reinterpret_cast<AddCustomTilingData *>(tilingBuf);
    tiling->totalLength = TOTAL_LENGTH;
    tiling->tileNum = 8;
    tiling->alpha = 0.5f;
}

int32_t main(int32_t argc, char *argv[])
{
    size_t byteSize = TOTAL_LENGTH * sizeof(float);
    uint8_t *tiling = (uint8_t *)AscendC::GmAlloc(sizeof(AddCustomTilingData));
    GenerateTilingData(tiling);
#ifdef OPGEN_TEST_ZERO_TILES
    reinterpret_cast<AddCustomTilingData *>(tiling)->tileNum = 0;  // trips the kernel's ascendc_assert
#endif
    uint8_t *x = (uint8_t *)AscendC::GmAlloc(byteSize);
    uint8_t *y = (uint8_t *)AscendC::GmAlloc(byteSize);
    uint8_t *z = (uint8_t *)AscendC::GmAlloc(byteSize);
    ReadFile("./input/input_x.bin", byteSize, x, byteSize);
    ReadFile("./input/input_y.bin", byteSize, y, byteSize);

    AscendC::SetKernelMode(KernelMode::AIV_MODE);
    ICPU_RUN_KF(add_custom, CORE_NUM, x, y, z, *reinterpret_cast<AddCustomTilingData *>(tiling));

    WriteFile("./output/output_z.bin", z, byteSize);
    AscendC::GmFree((void *)x);
    AscendC::GmFree((void *)y);
    AscendC::GmFree((void *)z);
    AscendC::GmFree((void *)tiling);
    return 0;
}
