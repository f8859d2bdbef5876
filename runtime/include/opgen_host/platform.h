// opgen host runtime: platform_ascendc::PlatformAscendC over the simulated SoC. The numbers
// (vector and cube cores, UB size, system workspace) come from the runtime's SoC profile for
// the launch (opgen_runtime.soc), so a TilingFunc plans for the chip the simulator enforces.
#pragma once

#include <cstdint>
#include <string>

#include "gert.h"
#include "soc_spec.h"

namespace opgen_host {
// The SoC of the host call in progress (host_abi.h sets it), for code that asks
// PlatformAscendCManager rather than its context.
inline fe::PlatFormInfos& CurrentPlatform() {
    static thread_local fe::PlatFormInfos info;
    return info;
}
}  // namespace opgen_host

namespace platform_ascendc {

enum class CoreMemType { L0_A = 0, L0_B = 1, L0_C = 2, L1 = 3, L2 = 4, UB = 5, HBM = 6, FB = 7,
                         BT = 8, RESERVED };

enum class SocVersion { ASCEND910 = 0, ASCEND910B, ASCEND910_93, ASCEND910_95, ASCEND310P,
                        ASCEND310B, BS9SX1A, ASCEND610LITE, ASCEND031, ASCEND035, ASCEND950,
                        MC61AM21A, KIRINX90, KIRIN9030, RESERVED_VERSION = 99999 };

class PlatformAscendC {
public:
    PlatformAscendC() = delete;
    explicit PlatformAscendC(fe::PlatFormInfos* info) : info_(info == nullptr ? Fallback() : info) {}
    uint32_t GetCoreNum() const { return info_->aiv_cores; }
    uint32_t GetCoreNumAic() const { return info_->aic_cores; }
    uint32_t GetCoreNumAiv() const { return info_->aiv_cores; }
    uint32_t GetCoreNumVector() const { return info_->aiv_cores; }
    SocVersion GetSocVersion() const {
        const std::string& s = info_->soc;
        if (s == "ascend910b") return SocVersion::ASCEND910B;
        if (s == "ascend910_93") return SocVersion::ASCEND910_93;
        if (s == "ascend910") return SocVersion::ASCEND910;
        if (s == "ascend310p") return SocVersion::ASCEND310P;
        if (s == "ascend310b") return SocVersion::ASCEND310B;
        return SocVersion::RESERVED_VERSION;
    }
    // the SoC's architecture, as CANN numbers it (platform/soc_spec.h)
    NpuArch GetCurNpuArch() const {
        const std::string& s = info_->soc;
        if (s == "ascend910b" || s == "ascend910_93") return NpuArch::DAV_2201;
        if (s == "ascend910") return NpuArch::DAV_1001;
        if (s == "ascend310p") return NpuArch::DAV_2002;
        if (s == "ascend310b") return NpuArch::DAV_3002;
        return NpuArch::DAV_RESV;
    }
    void GetCoreMemSize(CoreMemType type, uint64_t& size) const {
        switch (type) {
            case CoreMemType::UB: size = info_->ub_bytes; break;
            case CoreMemType::L1: size = info_->l1_bytes; break;
            case CoreMemType::L0_A: size = info_->l0a_bytes; break;
            case CoreMemType::L0_B: size = info_->l0b_bytes; break;
            case CoreMemType::L0_C: size = info_->l0c_bytes; break;
            case CoreMemType::L2: size = info_->l2_bytes; break;
            case CoreMemType::HBM: size = info_->hbm_bytes; break;
            default: size = 0; break;
        }
    }
    void GetCoreMemBw(CoreMemType, uint64_t& bw) const { bw = 0; }
    uint32_t GetLibApiWorkSpaceSize() const { return info_->sys_workspace; }
    uint32_t GetResCubeGroupWorkSpaceSize() const { return 0; }
    uint32_t GetResGroupBarrierWorkSpaceSize() const { return 0; }
    uint32_t GetVecRegLen() const { return 256; }
    // Vector-only ops pass aicCoreNum 0: the vector cores are the blocks. With cube cores in
    // use, one block is one cube core with its vector cores (CANN's group launch).
    uint32_t CalcTschBlockDim(uint32_t slice_num, uint32_t aic, uint32_t aiv) const {
        return CalcTschNumBlocks(slice_num, aic, aiv);
    }
    uint32_t CalcTschNumBlocks(uint32_t slice_num, uint32_t aic, uint32_t aiv) const {
        if (aic == 0 || aiv == 0 || aic == aiv) return slice_num;
        const uint32_t ratio = aiv / aic == 0 ? 1 : aiv / aic;
        return (slice_num + ratio - 1) / ratio;
    }
    int64_t ReserveLocalMemory(int64_t) { return 0; }

private:
    static fe::PlatFormInfos* Fallback() { return &opgen_host::CurrentPlatform(); }
    fe::PlatFormInfos* info_;
};

class PlatformAscendCManager {
public:
    static PlatformAscendC* GetInstance() {
        static thread_local PlatformAscendC p(nullptr);
        return &p;
    }
    static PlatformAscendC* GetInstance(const char*) { return GetInstance(); }
};

}  // namespace platform_ascendc
