/* half_diff: out = a - b on float16 vectors of a size fixed at compile time. Each of the CORES
 * blocks owns a contiguous slice and streams it through UB in SLICES steps, with two buffers per
 * queue so that the copy of one step overlaps the subtraction of the previous one. */
#include "kernel_operator.h"

namespace half_diff {
constexpr uint32_t ELEMENTS = 16384;
constexpr uint32_t CORES = 8;
constexpr uint32_t PER_CORE = ELEMENTS / CORES;
constexpr uint32_t SLICES = 16;
constexpr uint32_t STEP = PER_CORE / SLICES;  // elements moved per step: 256 bytes of half
constexpr int32_t DEPTH = 2;                  // buffers per queue

struct Streams {
    AscendC::GlobalTensor<half> a, b, out;
    AscendC::TQue<AscendC::TPosition::VECIN, DEPTH> aIn, bIn;
    AscendC::TQue<AscendC::TPosition::VECOUT, DEPTH> diffOut;
};

__aicore__ inline void Load(Streams &s, uint32_t step)
{
    AscendC::LocalTensor<half> a = s.aIn.AllocTensor<half>();
    AscendC::LocalTensor<half> b = s.bIn.AllocTensor<half>();
    AscendC::DataCopy(a, s.a[step * STEP], STEP);
    AscendC::DataCopy(b, s.b[step * STEP], STEP);
    s.aIn.EnQue(a);
    s.bIn.EnQue(b);
}

__aicore__ inline void Subtract(Streams &s)
{
    AscendC::LocalTensor<half> a = s.aIn.DeQue<half>();
    AscendC::LocalTensor<half> b = s.bIn.DeQue<half>();
    AscendC::LocalTensor<half> d = s.diffOut.AllocTensor<half>();
    AscendC::Sub(d, a, b, STEP);
    s.diffOut.EnQue<half>(d);
    s.aIn.FreeTensor(a);
    s.bIn.FreeTensor(b);
}

__aicore__ inline void Save(Streams &s, uint32_t step)
{
    AscendC::LocalTensor<half> d = s.diffOut.DeQue<half>();
    AscendC::DataCopy(s.out[step * STEP], d, STEP);
    s.diffOut.FreeTensor(d);
}
}  // namespace half_diff

extern "C" __global__ __aicore__ void half_diff_kernel(GM_ADDR a, GM_ADDR b, GM_ADDR out)
{
    using namespace half_diff;
    const uint32_t offset = PER_CORE * AscendC::GetBlockIdx();
    Streams s;
    s.a.SetGlobalBuffer((__gm__ half *)a + offset, PER_CORE);
    s.b.SetGlobalBuffer((__gm__ half *)b + offset, PER_CORE);
    s.out.SetGlobalBuffer((__gm__ half *)out + offset, PER_CORE);
    AscendC::TPipe pipe;
    pipe.InitBuffer(s.aIn, DEPTH, STEP * sizeof(half));
    pipe.InitBuffer(s.bIn, DEPTH, STEP * sizeof(half));
    pipe.InitBuffer(s.diffOut, DEPTH, STEP * sizeof(half));
    for (uint32_t step = 0; step < SLICES; ++step) {
        Load(s, step);
        Subtract(s);
        Save(s, step);
    }
}

#ifndef ASCENDC_CPU_DEBUG
// NPU-only launcher; the CPU-debug build never sees the <<<>>> syntax.
void launch_half_diff(uint32_t blocks, void *stream, uint8_t *a, uint8_t *b, uint8_t *out)
{
    half_diff_kernel<<<blocks, nullptr, stream>>>(a, b, out);
}
#endif
