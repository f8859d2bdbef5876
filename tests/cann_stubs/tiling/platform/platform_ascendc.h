// Stub of CANN tiling/platform/platform_ascendc.h.
#pragma once
#include <cstdint>

namespace fe {
class PlatFormInfos;
}  // namespace fe

namespace platform_ascendc {
enum class CoreMemType { L0_A = 0, L0_B = 1, L0_C = 2, L1 = 3, L2 = 4, UB = 5, HBM = 6, RESERVED };

class PlatformAscendC {
public:
    explicit PlatformAscendC(fe::PlatFormInfos* platformInfo);
    uint32_t GetCoreNum(void) const;
    uint32_t GetCoreNumAic(void) const;
    uint32_t GetCoreNumAiv(void) const;
    void GetCoreMemSize(const CoreMemType& memType, uint64_t& size) const;
};
}  // namespace platform_ascendc
