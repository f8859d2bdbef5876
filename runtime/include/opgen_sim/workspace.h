// opgen NPU simulator: the workspace argument of a kernel (GetUserWorkspace, GetSysWorkSpacePtr).
// An op_host sizes the workspace as the system part (PlatformAscendC::GetLibApiWorkSpaceSize)
// plus the user's; the kernel finds its part past the system one. The system size is the
// Ascend C headers' RESERVED_WORKSPACE: 2 MiB on the 310P (256 KiB UB), 16 MiB on the 910B.
// In CANN's CPU-debug mode (ICPU_RUN_KF drivers) there is no system part: the driver's
// workspace is the user's, as asc-devkit's CPU-debug branch returns it.
#pragma once

#include <cstring>

#include "core.h"

namespace opgen_sim {

inline uint64_t SystemWorkspaceBytes(const Core& c) {
    return c.ub_capacity == 256 * 1024 ? 2ull * 1024 * 1024 : 16ull * 1024 * 1024;
}

}  // namespace opgen_sim

namespace AscendC {

// On the device (dav_c220) GetUserWorkspace ignores its argument and returns the KFC workspace
// address past RESERVED_WORKSPACE: it never fails, even when the op_host asked for no workspace
// (e.g. ops-nn's mse_loss_v2 with reduction "none" sizes it 0 and calls it unconditionally, but
// never reads it). Without a workspace the pointer stays null, and a kernel that uses it fails at
// the first access (CheckGmRange: "not inside any GM buffer passed to the kernel").
inline GM_ADDR GetUserWorkspace(GM_ADDR workspace) {
    const opgen_sim::Core& c = opgen_sim::CurrentCore();
    if (workspace == nullptr) {
        if (c.icpu) {
            opgen_sim::Fail(opgen_sim::ErrorKind::GlobalMemoryOutOfBounds, "GetUserWorkspace",
                            "the workspace argument is a null pointer (CANN's CPU-debug mode "
                            "asserts it is not)");
        }
        return nullptr;
    }
    return c.icpu ? workspace : workspace + opgen_sim::SystemWorkspaceBytes(c);
}

// The system part starts the launch's workspace argument.
inline GM_ADDR GetSysWorkSpacePtr() {
    const opgen_sim::Core& c = opgen_sim::CurrentCore();
    for (int32_t i = 0; i < c.num_regions; ++i) {
        const char* name = c.regions[i].name;
        if (name != nullptr && std::strcmp(name, "workspace") == 0) {
            return const_cast<uint8_t*>(c.regions[i].begin);
        }
    }
    return nullptr;
}

inline void SetSysWorkspace(GM_ADDR) {}  // the launch's workspace already holds it

}  // namespace AscendC

// CANN declares GetSysWorkSpacePtr at global scope (kernel_operator_swap_mem_intf.h): kernels call
// it unqualified without `using namespace AscendC`.
using AscendC::GetSysWorkSpacePtr;
