/* masked_atomic_sum: z[j] += w(j) * x[row, j] over all rows, every core adding its rows into the
 * same 256 outputs with SetAtomicAdd. w doubles the even lanes of each repeat, selected with a
 * bit mask. Static-tensor style: LocalMemAllocator and explicit SetFlag/WaitFlag, no TPipe. */
#include "kernel_operator.h"

constexpr uint32_t COLS = 256;
constexpr uint32_t ROWS_PER_CORE = 32;

extern "C" __global__ __aicore__ void masked_atomic_sum(GM_ADDR x, GM_ADDR z)
{
    AscendC::InitSocState();
    AscendC::GlobalTensor<float> xGm, zGm;
    xGm.SetGlobalBuffer((__gm__ float *)x + AscendC::GetBlockIdx() * ROWS_PER_CORE * COLS, ROWS_PER_CORE * COLS);
    zGm.SetGlobalBuffer((__gm__ float *)z, COLS);
    AscendC::LocalMemAllocator<AscendC::Hardware::UB> ubAllocator;
    AscendC::LocalTensor<float> row = ubAllocator.Alloc<float, COLS>();
    uint64_t evenLanes[2] = {0x5555555555555555ULL, 0};
    uint8_t repeat = COLS / 64;
#ifdef OPGEN_TEST_OVERRUN
    repeat += 1;  // one repeat past the 256-float tensor
#endif
    for (uint32_t i = 0; i < ROWS_PER_CORE; ++i) {
        AscendC::DataCopy(row, xGm[i * COLS], COLS);
        AscendC::SetFlag<AscendC::HardEvent::MTE2_V>(EVENT_ID0);
        AscendC::WaitFlag<AscendC::HardEvent::MTE2_V>(EVENT_ID0);
        AscendC::Muls(row, row, 2.0f, evenLanes, repeat, {1, 1, 8, 8});
        AscendC::SetFlag<AscendC::HardEvent::V_MTE3>(EVENT_ID0);
        AscendC::WaitFlag<AscendC::HardEvent::V_MTE3>(EVENT_ID0);
        AscendC::SetAtomicAdd<float>();
        AscendC::DataCopy(zGm, row, COLS);
        AscendC::SetAtomicNone();
        AscendC::SetFlag<AscendC::HardEvent::MTE3_MTE2>(EVENT_ID0);
        AscendC::WaitFlag<AscendC::HardEvent::MTE3_MTE2>(EVENT_ID0);
    }
}
