/* Runs axpy_clamp on 4 simulated blocks, its tiling computed here and passed by value.
 * OPGEN_TEST_ZERO_TILES passes tileNum = 0, which the kernel's ascendc_assert must reject. */
#include "axpy_clamp_tiling.h"
#include "sample_io.h"
#include "tikicpulib.h"

extern "C" __global__ __aicore__ void axpy_clamp(GM_ADDR x, GM_ADDR y, GM_ADDR z,
                                                 AxpyClampTiling tiling);

static AxpyClampTiling PlanFor(uint32_t length)
{
    AxpyClampTiling t{};
    t.length = length;
    t.tileNum = 8;
    t.alpha = 1.5f;
    t.low = -2.0f;
    t.high = 3.0f;
#ifdef OPGEN_TEST_ZERO_TILES
    t.tileNum = 0;
#endif
    return t;
}

int main()
{
    const uint32_t length = 16384;
    const size_t bytes = length * sizeof(float);
    auto *x = static_cast<uint8_t *>(AscendC::GmAlloc(bytes));
    auto *y = static_cast<uint8_t *>(AscendC::GmAlloc(bytes));
    auto *z = static_cast<uint8_t *>(AscendC::GmAlloc(bytes));
    sample_io::Load("./input/x.bin", x, bytes);
    sample_io::Load("./input/y.bin", y, bytes);

    AscendC::SetKernelMode(KernelMode::AIV_MODE);
    ICPU_RUN_KF(axpy_clamp, 4, x, y, z, PlanFor(length));
    sample_io::Store("./output/z.bin", z, bytes);

    for (uint8_t *p : {x, y, z}) {
        AscendC::GmFree(p);
    }
    return 0;
}
