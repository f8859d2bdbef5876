/* Runs the op_kernel blend_pair as a framework would launch it: workspace and tiling in GM,
 * the tiling key set before each launch with ICPU_SET_TILING_KEY. Key 1 and key 2 each
 * leave their own output file. */
#include <cstring>

#include "sample_io.h"
#include "tikicpulib.h"

extern "C" __global__ __aicore__ void blend_pair(GM_ADDR x, GM_ADDR y, GM_ADDR z,
                                                 GM_ADDR workspace, GM_ADDR tiling);

namespace {
struct HostBlendTiling {  // the bytes optiling::BlendPairTilingData serialises to
    uint32_t totalLength;
    uint32_t tileNum;
};
constexpr uint32_t BLOCKS = 8;
constexpr uint32_t LENGTH = 16384;
constexpr size_t WORKSPACE_BYTES = 16u << 20;
}  // namespace

int main()
{
    const size_t bytes = LENGTH * sizeof(float);
    auto *x = static_cast<uint8_t *>(AscendC::GmAlloc(bytes));
    auto *y = static_cast<uint8_t *>(AscendC::GmAlloc(bytes));
    auto *z = static_cast<uint8_t *>(AscendC::GmAlloc(bytes));
    auto *workspace = static_cast<uint8_t *>(AscendC::GmAlloc(WORKSPACE_BYTES));
    auto *tiling = static_cast<uint8_t *>(AscendC::GmAlloc(sizeof(HostBlendTiling)));
    const HostBlendTiling plan{LENGTH, 4};
    std::memcpy(tiling, &plan, sizeof(plan));
    sample_io::Load("./input/x.bin", x, bytes);
    sample_io::Load("./input/y.bin", y, bytes);

    AscendC::SetKernelMode(KernelMode::AIV_MODE);
    const struct {
        uint64_t key;
        const char *file;
    } runs[] = {{1, "./output/z_sum.bin"}, {2, "./output/z_max.bin"}};
    for (const auto &run : runs) {
        ICPU_SET_TILING_KEY(run.key);
        ICPU_RUN_KF(blend_pair, BLOCKS, x, y, z, workspace, tiling);
        sample_io::Store(run.file, z, bytes);
    }

    for (uint8_t *p : {x, y, z, workspace, tiling}) {
        AscendC::GmFree(p);
    }
    return 0;
}
