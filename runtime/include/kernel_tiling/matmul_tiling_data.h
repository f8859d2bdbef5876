// opgen: the kernel-side TCubeTiling of CANN's kernel_tiling/kernel_tiling.h, the tiling of the
// advanced Matmul API (lib/matmul_intf.h). 50 int32_t fields in the order of the host class
// optiling::TCubeTiling (asc-devkit include/adv_api/matmul/matmul_tilingdata.h), so the bytes
// SaveToBuffer writes are this struct; a driver that copies the tiling word by word into a
// TCubeTiling (CANN's KernelLaunch samples) reads the same fields. The field meanings are the
// reference page "TCubeTiling结构体". Kernels name it unqualified, as CANN's header exports it.
#pragma once

#include <cstdint>

namespace AscendC {
namespace tiling {

struct TCubeTiling {
    int32_t usedCoreNum = 0;
    int32_t M = 0;  // the original shapes: A is [M, Ka], B [Kb, N]
    int32_t N = 0;
    int32_t Ka = 0;
    int32_t Kb = 0;
    int32_t singleCoreM = 0;  // one core's share of C, and its K
    int32_t singleCoreN = 0;
    int32_t singleCoreK = 0;
    int32_t baseM = 0;  // one Mmad's block
    int32_t baseN = 0;
    int32_t baseK = 0;
    int32_t depthA1 = 0;
    int32_t depthB1 = 0;
    int32_t stepM = 0;
    int32_t stepN = 0;
    int32_t isBias = 0;
    int32_t transLength = 0;
    int32_t iterateOrder = 0;  // 0: along M first, then N; 1: along N first
    int32_t shareMode = 0;
    int32_t shareL1Size = 0;
    int32_t shareL0CSize = 0;
    int32_t shareUbSize = 0;
    int32_t batchM = 0;
    int32_t batchN = 0;
    int32_t singleBatchM = 0;
    int32_t singleBatchN = 0;
    int32_t stepKa = 0;
    int32_t stepKb = 0;
    int32_t depthAL1CacheUB = 0;
    int32_t depthBL1CacheUB = 0;
    int32_t dbL0A = 0;
    int32_t dbL0B = 0;
    int32_t dbL0C = 0;
    int32_t ALayoutInfoB = 0;
    int32_t ALayoutInfoS = 0;
    int32_t ALayoutInfoN = 0;
    int32_t ALayoutInfoG = 0;
    int32_t ALayoutInfoD = 0;
    int32_t BLayoutInfoB = 0;
    int32_t BLayoutInfoS = 0;
    int32_t BLayoutInfoN = 0;
    int32_t BLayoutInfoG = 0;
    int32_t BLayoutInfoD = 0;
    int32_t CLayoutInfoB = 0;
    int32_t CLayoutInfoS1 = 0;
    int32_t CLayoutInfoN = 0;
    int32_t CLayoutInfoG = 0;
    int32_t CLayoutInfoS2 = 0;
    int32_t BatchNum = 0;
    int32_t mxTypePara = 0;
};
static_assert(sizeof(TCubeTiling) == 50 * 4, "TCubeTiling: 50 int32_t fields, as CANN's");

}  // namespace tiling
}  // namespace AscendC

using AscendC::tiling::TCubeTiling;
