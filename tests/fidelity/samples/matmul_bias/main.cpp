/* Runs matmul_bias on the CPU simulator as CANN's KernelLaunch matmul samples do: the tiling from
 * MultiCoreMatmulTiling for 2 cores, ICPU_RUN_KF with blockDim 1 in the default MIX_MODE (one
 * block: one AIC and two AIV cores). OPGEN_TEST_AIV_MODE sets AIV_MODE instead, so the launch runs
 * one core and half of C is left as it was. */
#include <cstring>
#include <cstdint>
#include <vector>

#include "tiling/platform/platform_ascendc.h"
#include "tiling/tiling_api.h"

// The tiling, as a KernelLaunch sample's *_tiling.cpp makes it (before tikicpulib.h, whose kernel
// headers define CANN's DT_* macros for kernels).
static std::vector<uint8_t> GenerateTiling(int32_t m, int32_t n, int32_t k, uint64_t& workspace)
{
    auto* platform = platform_ascendc::PlatformAscendCManager::GetInstance("Ascend910B1");
    matmul_tiling::MultiCoreMatmulTiling api(*platform);
    api.SetDim(2);
    api.SetAType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND,
                 matmul_tiling::DataType::DT_FLOAT16);
    api.SetBType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND,
                 matmul_tiling::DataType::DT_FLOAT16);
    api.SetCType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND,
                 matmul_tiling::DataType::DT_FLOAT);
    api.SetBiasType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND,
                    matmul_tiling::DataType::DT_FLOAT);
    api.SetOrgShape(m, n, k);
    api.SetShape(m, n, k);
    api.EnableBias(true);
    api.SetBufferSpace(-1, -1, -1);
    optiling::TCubeTiling tilingData;
    if (api.GetTiling(tilingData) == -1) return {};
    std::vector<uint8_t> bytes(tilingData.GetDataSize());
    tilingData.SaveToBuffer(bytes.data(), bytes.size());
    workspace = platform->GetLibApiWorkSpaceSize();
    return bytes;
}

#include "sample_io.h"
#include "tikicpulib.h"

extern "C" __global__ __aicore__ void matmul_bias(GM_ADDR a, GM_ADDR b, GM_ADDR bias, GM_ADDR c,
                                                  GM_ADDR workspace, GM_ADDR tiling);

int main()
{
    constexpr int32_t m = 300, n = 200, k = 96;
    uint64_t workspaceBytes = 0;
    const std::vector<uint8_t> tilingBytes = GenerateTiling(m, n, k, workspaceBytes);
    if (tilingBytes.empty()) return 3;

    const size_t aBytes = m * k * 2, bBytes = k * n * 2, biasBytes = n * 4, cBytes = m * n * 4;
    auto* a = static_cast<uint8_t*>(AscendC::GmAlloc(aBytes));
    auto* b = static_cast<uint8_t*>(AscendC::GmAlloc(bBytes));
    auto* bias = static_cast<uint8_t*>(AscendC::GmAlloc(biasBytes));
    auto* c = static_cast<uint8_t*>(AscendC::GmAlloc(cBytes));
    auto* workspace = static_cast<uint8_t*>(AscendC::GmAlloc(workspaceBytes));
    auto* tiling = static_cast<uint8_t*>(AscendC::GmAlloc(tilingBytes.size()));
    std::memcpy(tiling, tilingBytes.data(), tilingBytes.size());
    sample_io::Load("./input/a.bin", a, aBytes);
    sample_io::Load("./input/b.bin", b, bBytes);
    sample_io::Load("./input/bias.bin", bias, biasBytes);
#ifdef OPGEN_TEST_AIV_MODE
    AscendC::SetKernelMode(KernelMode::AIV_MODE);
#endif
    ICPU_RUN_KF(matmul_bias, 1, a, b, bias, c, workspace, tiling);
    sample_io::Store("./output/c.bin", c, cBytes);
    sample_io::Store("./output/tiling.bin", tiling, tilingBytes.size());
    for (uint8_t* p : {a, b, bias, c, workspace, tiling}) AscendC::GmFree(p);
    return 0;
}
