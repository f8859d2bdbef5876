// opgen NPU simulator: the kernel binaries of CANN's runtime (aclrtBinaryLoadFromData/FromFile,
// aclrtBinaryGetFunction, aclrtLaunchKernel*, aclrtBinaryUnLoad) for the binaries aclrtc compiles
// on the simulator (acl/acl_rt_compile.h): a shared library of the program's kernels with a table
// of launch entries (opgen_sim/rtc_launch.h). Loading it hands it the program's GM registry, so
// its kernels may touch exactly the buffers the program allocated; a launch runs the blocks at
// once, as a <<<>>> launch does. A device binary of the NPU compiler cannot run on the CPU: it is
// refused with a message saying so. Included by acl_rt.h.
#pragma once

#include <dlfcn.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#define ACL_RT_BINARY_MAGIC_ELF_AICORE 0x43554245U
#define ACL_RT_BINARY_MAGIC_ELF_VECTOR_CORE 0x41415246U
#define ACL_RT_BINARY_MAGIC_ELF_CUBE_CORE 0x41494343U

typedef void* aclrtBinHandle;
typedef void* aclrtFuncHandle;

typedef enum aclrtBinaryLoadOptionType {
    ACL_RT_BINARY_LOAD_OPT_LAZY_LOAD = 1,
    ACL_RT_BINARY_LOAD_OPT_LAZY_MAGIC = 2,
    ACL_RT_BINARY_LOAD_OPT_MAGIC = 2,
    ACL_RT_BINARY_LOAD_OPT_CPU_KERNEL_MODE = 3,
} aclrtBinaryLoadOptionType;

typedef union aclrtBinaryLoadOptionValue {
    uint32_t isLazyLoad;
    uint32_t magic;
    int32_t cpuKernelMode;
    uint32_t rsv[4];
} aclrtBinaryLoadOptionValue;

typedef struct {
    aclrtBinaryLoadOptionType type;
    aclrtBinaryLoadOptionValue value;
} aclrtBinaryLoadOption;

typedef struct aclrtBinaryLoadOptions {
    aclrtBinaryLoadOption* options;
    size_t numOpt;
} aclrtBinaryLoadOptions;

// Launch attributes (timeouts, engine, dynamic UB...) change nothing on the simulator.
typedef struct aclrtLaunchKernelCfg {
    void* attrs;
    size_t numAttrs;
} aclrtLaunchKernelCfg;

namespace opgen_acl {

// One launch entry of a compiled binary (opgen_sim::RtcEntry has this layout).
using RtcLaunchFn = int (*)(uint32_t blocks, void** args, const void* packed, size_t packed_size);
struct RtcTableEntry {
    const char* name;
    RtcLaunchFn launch;
};

struct RtcFunction {
    Handle handle{"function", {}};
    std::string name;
    RtcLaunchFn launch = nullptr;
};

struct RtcBinary {
    Handle handle{"binary", {}};
    void* library = nullptr;
    const RtcTableEntry* table = nullptr;
    size_t entries = 0;
    std::vector<std::unique_ptr<RtcFunction>> functions;
};

// dlopen's a binary aclrtc compiled and hands it the program's GM registry.
inline aclError LoadBinary(const char* api, const std::string& path, aclrtBinHandle* binHandle) {
    void* lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (lib == nullptr) {
        const char* why = dlerror();
        return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": not a binary the simulator can load (" +
                                                 (why != nullptr ? why : "dlopen failed") +
                                                 "); on the CPU only binaries of aclrtcCompileProg run");
    }
    const auto* table = static_cast<const RtcTableEntry*>(dlsym(lib, "opgen_rtc_table"));
    const auto* size = static_cast<const size_t*>(dlsym(lib, "opgen_rtc_table_size"));
    auto* attach = reinterpret_cast<void (*)(void*)>(dlsym(lib, "opgen_rtc_attach"));
    if (table == nullptr || size == nullptr || attach == nullptr) {
        dlclose(lib);
        return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) +
                                                 ": the binary holds no kernels compiled by aclrtcCompileProg "
                                                 "(a device binary of the NPU compiler does not run on the CPU)");
    }
    attach(&opgen_sim::Gm());
    auto* bin = new RtcBinary();
    bin->handle.recorded = std::chrono::steady_clock::now();
    bin->library = lib;
    bin->table = table;
    bin->entries = *size;
    Register(bin);
    *binHandle = bin;
    return ACL_SUCCESS;
}

inline aclError Launch(const char* api, aclrtFuncHandle funcHandle, uint32_t numBlocks, aclrtStream stream,
                       void** args, const void* packed, size_t packed_size) {
    if (FindHandle(funcHandle, "function") == nullptr) {
        return Fail(ACL_ERROR_RT_INVALID_HANDLE,
                    std::string(api) + ": funcHandle " + Hex(funcHandle) +
                        " is not a function of a loaded binary (aclrtBinaryGetFunction; unloaded already?)");
    }
    const aclError rc = CheckStream(api, stream);
    if (rc != ACL_SUCCESS) return rc;
    if (numBlocks == 0) return Fail(ACL_ERROR_INVALID_PARAM, std::string(api) + ": numBlocks is 0");
    static_cast<RtcFunction*>(funcHandle)->launch(numBlocks, args, packed, packed_size);
    return ACL_SUCCESS;
}

}  // namespace opgen_acl

extern "C" {

inline aclError aclrtBinaryLoadFromData(const void* data, size_t length, const aclrtBinaryLoadOptions* options,
                                        aclrtBinHandle* binHandle) {
    (void)options;  // the magic and lazy loading mean nothing here
    if (data == nullptr || length == 0 || binHandle == nullptr) {
        return opgen_acl::Fail(ACL_ERROR_INVALID_PARAM,
                               "aclrtBinaryLoadFromData: data, length and binHandle must be given");
    }
    const char* tmp = std::getenv("TMPDIR");
    std::string path = std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/opgen-rtc-bin-XXXXXX";
    const int fd = mkstemp(&path[0]);
    if (fd < 0) return opgen_acl::Fail(ACL_ERROR_FAILURE, "aclrtBinaryLoadFromData: cannot write " + path);
    const auto* bytes = static_cast<const char*>(data);
    size_t done = 0;
    while (done < length) {
        const ssize_t n = write(fd, bytes + done, length - done);
        if (n <= 0) break;
        done += static_cast<size_t>(n);
    }
    close(fd);
    const aclError rc = done == length
                            ? opgen_acl::LoadBinary("aclrtBinaryLoadFromData", path, binHandle)
                            : opgen_acl::Fail(ACL_ERROR_FAILURE, "aclrtBinaryLoadFromData: cannot write " + path);
    unlink(path.c_str());  // the loaded library stays mapped
    return rc;
}

inline aclError aclrtBinaryLoadFromFile(const char* binPath, aclrtBinaryLoadOptions* options,
                                        aclrtBinHandle* binHandle) {
    (void)options;
    if (binPath == nullptr || binHandle == nullptr) {
        return opgen_acl::Fail(ACL_ERROR_INVALID_PARAM, "aclrtBinaryLoadFromFile: binPath and binHandle must be given");
    }
    const std::string path = std::strchr(binPath, '/') != nullptr ? binPath : std::string("./") + binPath;
    return opgen_acl::LoadBinary("aclrtBinaryLoadFromFile", path, binHandle);
}

inline aclError aclrtBinaryGetFunction(const aclrtBinHandle binHandle, const char* kernelName,
                                       aclrtFuncHandle* funcHandle) {
    if (opgen_acl::FindHandle(binHandle, "binary") == nullptr) {
        return opgen_acl::Fail(ACL_ERROR_RT_INVALID_HANDLE, "aclrtBinaryGetFunction: binHandle " +
                                                                opgen_acl::Hex(binHandle) + " is not a loaded binary");
    }
    if (kernelName == nullptr || funcHandle == nullptr) {
        return opgen_acl::Fail(ACL_ERROR_INVALID_PARAM, "aclrtBinaryGetFunction: kernelName and funcHandle must be given");
    }
    auto* bin = static_cast<opgen_acl::RtcBinary*>(binHandle);
    std::string known;
    for (size_t i = 0; i < bin->entries; ++i) {
        const opgen_acl::RtcTableEntry& e = bin->table[i];
        if (std::strcmp(e.name, kernelName) == 0) {
            std::unique_ptr<opgen_acl::RtcFunction> fn(new opgen_acl::RtcFunction());
            fn->name = e.name;
            fn->launch = e.launch;
            opgen_acl::Register(fn.get());
            *funcHandle = fn.get();
            bin->functions.push_back(std::move(fn));
            return ACL_SUCCESS;
        }
        known += std::string(known.empty() ? "" : ", ") + e.name;
    }
    return opgen_acl::Fail(ACL_ERROR_INVALID_PARAM,
                           std::string("aclrtBinaryGetFunction: the binary has no kernel '") + kernelName +
                               "' (it has: " + (known.empty() ? "none" : known) +
                               "; an extern \"C\" kernel is found by its name, any other by the lowered name of "
                               "a name expression, aclrtcAddNameExpr and aclrtcGetLoweredName)");
}

inline aclError aclrtLaunchKernelWithArgsArray(void* func, uint32_t numBlocks, aclrtStream stream,
                                               aclrtLaunchKernelCfg* cfg, void** args) {
    (void)cfg;
    return opgen_acl::Launch("aclrtLaunchKernelWithArgsArray", func, numBlocks, stream, args, nullptr, 0);
}

inline aclError aclrtLaunchKernel(aclrtFuncHandle funcHandle, uint32_t numBlocks, const void* argsData,
                                  size_t argsSize, aclrtStream stream) {
    static const char none = 0;
    return opgen_acl::Launch("aclrtLaunchKernel", funcHandle, numBlocks, stream, nullptr,
                             argsData != nullptr ? argsData : &none, argsSize);
}

inline aclError aclrtLaunchKernelV2(aclrtFuncHandle funcHandle, uint32_t numBlocks, const void* argsData,
                                    size_t argsSize, aclrtLaunchKernelCfg* cfg, aclrtStream stream) {
    (void)cfg;
    return aclrtLaunchKernel(funcHandle, numBlocks, argsData, argsSize, stream);
}

inline aclError aclrtBinaryUnLoad(aclrtBinHandle binHandle) {
    if (opgen_acl::FindHandle(binHandle, "binary") == nullptr) {
        return opgen_acl::Fail(ACL_ERROR_RT_INVALID_HANDLE, "aclrtBinaryUnLoad: binHandle " +
                                                                opgen_acl::Hex(binHandle) + " is not a loaded binary");
    }
    auto* bin = static_cast<opgen_acl::RtcBinary*>(binHandle);
    for (const auto& fn : bin->functions) opgen_acl::Unregister(fn.get());
    opgen_acl::Unregister(bin);
    dlclose(bin->library);
    delete bin;
    return ACL_SUCCESS;
}

}  // extern "C"
