// Stub of CANN tiling/platform/platform_ascendc.h. The numbers come from the stub
// fe::PlatFormInfos (exe_graph/runtime/contexts.h), which a test fills with a SoC's values.
#pragma once
#include <cstdint>

#include "exe_graph/runtime/contexts.h"

namespace platform_ascendc {
enum class CoreMemType { L0_A = 0, L0_B = 1, L0_C = 2, L1 = 3, L2 = 4, UB = 5, HBM = 6, RESERVED };

class PlatformAscendC {
public:
    explicit PlatformAscendC(fe::PlatFormInfos* platformInfo) : info_(platformInfo) {}
    uint32_t GetCoreNum(void) const { return GetCoreNumAiv(); }
    uint32_t GetCoreNumAic(void) const { return info_ == nullptr ? 0 : info_->stub_core_num_aiv / 2; }
    uint32_t GetCoreNumAiv(void) const { return info_ == nullptr ? 0 : info_->stub_core_num_aiv; }
    void GetCoreMemSize(const CoreMemType& memType, uint64_t& size) const
    {
        size = (info_ != nullptr && memType == CoreMemType::UB) ? info_->stub_ub_bytes : 0;
    }
    uint32_t GetLibApiWorkSpaceSize(void) const { return 16 * 1024 * 1024; }

private:
    fe::PlatFormInfos* info_;
};
}  // namespace platform_ascendc
