/* CPU-debug driver of an op_kernel: workspace and tiling in GmAlloc'ed memory, the tiling key
 * chosen with ICPU_SET_TILING_KEY; runs key 1 and key 2 and writes both outputs. */
#include "data_utils.h"
#include "tikicpulib.h"

extern "C" __global__ __aicore__ void add_custom(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling);

struct AddCustomTilingData {  // the host's view of optiling::TilingData
    uint32_t totalLength;
    uint32_t tileNum;
};

int32_t main(int32_t argc, char *argv[])
{
    constexpr uint32_t blockDim = 8;
    constexpr uint32_t totalLength = 8 * 2048;
    size_t byteSize = totalLength * sizeof(float);
    uint8_t *x = (uint8_t *)AscendC::GmAlloc(byteSize);
    uint8_t *y = (uint8_t *)AscendC::GmAlloc(byteSize);
    uint8_t *z = (uint8_t *)AscendC::GmAlloc(byteSize);
    uint8_t *workspace = (uint8_t *)AscendC::GmAlloc(16 * 1024 * 1024);
    uint8_t *tiling = (uint8_t *)AscendC::GmAlloc(sizeof(AddCustomTilingData));
    auto *t = reinterpret_cast<AddCustomTilingData *>(tiling);
    t->totalLength = totalLength;
    t->tileNum = 8;
    ReadFile("./input/input_x.bin", byteSize, x, byteSize);
    ReadFile("./input/input_y.bin", byteSize, y, byteSize);

    AscendC::SetKernelMode(KernelMode::AIV_MODE);
    ICPU_SET_TILING_KEY(1);
    ICPU_RUN_KF(add_custom, blockDim, x, y, z, workspace, tiling);
    WriteFile("./output/output_z_key1.bin", z, byteSize);

    ICPU_SET_TILING_KEY(2);
    ICPU_RUN_KF(add_custom, blockDim, x, y, z, workspace, tiling);
    WriteFile("./output/output_z_key2.bin", z, byteSize);

    AscendC::GmFree((void *)x);
    AscendC::GmFree((void *)y);
    AscendC::GmFree((void *)z);
    AscendC::GmFree((void *)workspace);
    AscendC::GmFree((void *)tiling);
    return 0;
}
