/* Runs half_diff_kernel on the CPU simulator: GmAlloc'ed buffers, ICPU_RUN_KF over 8 blocks.
 * OPGEN_TEST_SHORT_OUTPUT allocates the output 64 bytes short, so the last block's write-back
 * leaves its GM buffer (the simulator must report it). */
#include "sample_io.h"
#include "tikicpulib.h"

extern "C" __global__ __aicore__ void half_diff_kernel(GM_ADDR a, GM_ADDR b, GM_ADDR out);

int main()
{
    const uint32_t blocks = 8;
    const size_t inBytes = 16384 * sizeof(uint16_t);  // float16 elements
    size_t outBytes = inBytes;
#ifdef OPGEN_TEST_SHORT_OUTPUT
    outBytes -= 64;
#endif
    auto *a = static_cast<uint8_t *>(AscendC::GmAlloc(inBytes));
    auto *b = static_cast<uint8_t *>(AscendC::GmAlloc(inBytes));
    auto *out = static_cast<uint8_t *>(AscendC::GmAlloc(outBytes));
    sample_io::Load("./input/a.bin", a, inBytes);
    sample_io::Load("./input/b.bin", b, inBytes);

    AscendC::SetKernelMode(KernelMode::AIV_MODE);
    ICPU_RUN_KF(half_diff_kernel, blocks, a, b, out);
    sample_io::Store("./output/out.bin", out, outBytes);

    for (uint8_t *p : {a, b, out}) {
        AscendC::GmFree(p);
    }
    return 0;
}
