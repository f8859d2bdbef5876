// tiling/platform/platform_ascendc.h (asc-devkit): the PlatformAscendC members opgen's tiling
// headers call, with asc-devkit's signatures.
#pragma once
#include <cstdint>

namespace fe {
class PlatFormInfos;
}  // namespace fe

namespace platform_ascendc {
enum class CoreMemType { L0_A = 0, L0_B = 1, L0_C = 2, L1 = 3, L2 = 4, UB = 5, HBM = 6, RESERVED };

class PlatformAscendC {
public:
    PlatformAscendC() = delete;
    explicit PlatformAscendC(fe::PlatFormInfos* platformInfo) : platformInfo_(platformInfo) {}
    uint32_t GetCoreNumAic(void) const;
    uint32_t GetCoreNumAiv(void) const;
    uint32_t GetLibApiWorkSpaceSize(void) const;
    void GetCoreMemSize(const CoreMemType& memType, uint64_t& size) const;

private:
    fe::PlatFormInfos* platformInfo_;
};
}  // namespace platform_ascendc
