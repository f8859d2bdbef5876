// opgen host: loading and launching a simulator kernel from C++ (the caller side of
// opgen_sim/launch.h's C ABI, which opgen_runtime/launcher.py drives from Python).
//
// A framework op library embeds each kernel variant's shared object as bytes (see
// docs/tensorflow.md, "Kernel variants"); LoadEmbeddedKernel turns those bytes back into a
// loaded library without a file the user could lose: an anonymous memfd, dlopen'ed through
// /proc/self/fd (a temporary file, unlinked at once, where memfd is unavailable).
// Framework-neutral: no TensorFlow, no simulator headers.
#pragma once

#include <dlfcn.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace opgen_host {

// The launch ABI this header speaks (opgen_sim::kAbiVersion).
inline constexpr int32_t kSimAbiVersion = 2;
inline constexpr int32_t kSimFlagStrictDataCopy = 1;
inline constexpr int kSimMaxArgs = 48;

using SimLaunchFn = int32_t (*)(void*, int32_t, uint8_t**, const int64_t*, const char*, int32_t,
                                int64_t, int32_t, int64_t, int32_t, int64_t*);
using SimLastErrorFn = int32_t (*)(char*, int32_t, int32_t*);
// A host's thread pool (opgen_sim::ParallelFn): runs body(arg) on up to n threads.
using SimParallelFn = void (*)(void* ctx, int32_t n, void (*body)(void*), void* arg);
using SimLaunchWithFn = int32_t (*)(void*, int32_t, uint8_t**, const int64_t*, const char*,
                                    int32_t, int64_t, int32_t, int64_t, int32_t, int64_t*,
                                    SimParallelFn, void*);

// Where a launch runs its blocks: the kernel library's own threads (parallel == nullptr), or a
// framework's thread pool. How many blocks run at once is the simulator's choice
// (OPGEN_SIM_THREADS, else one per CPU core), bounded by the pool's own size.
struct SimThreads {
    SimParallelFn parallel = nullptr;
    void* ctx = nullptr;
};

struct SimKernel {
    void* handle = nullptr;
    void* entry = nullptr;
    SimLaunchFn launch = nullptr;
    SimLaunchWithFn launch_with = nullptr;  // absent in kernels built before it existed
    SimLastErrorFn last_error = nullptr;
    void (*set_tiling_key)(uint64_t) = nullptr;  // TILING_KEY_IS of the next launch (this thread)
    int32_t num_counters = 0;
};

namespace detail {

inline std::string WriteImage(const uint8_t* data, size_t size, const char* label, int* fd_out,
                              std::string* path_out) {
    int fd = static_cast<int>(memfd_create(label, MFD_CLOEXEC));
    std::string path;
    if (fd >= 0) {
        path = "/proc/self/fd/" + std::to_string(fd);
    } else {
        const char* tmp = std::getenv("TMPDIR");
        std::string templ = std::string(tmp && *tmp ? tmp : "/tmp") + "/opgen-kernel-XXXXXX";
        std::vector<char> buf(templ.begin(), templ.end());
        buf.push_back('\0');
        fd = mkstemp(buf.data());
        if (fd < 0) return std::string("cannot create a file for the kernel: ") + std::strerror(errno);
        path = buf.data();
    }
    size_t done = 0;
    while (done < size) {
        const ssize_t n = write(fd, data + done, size - done);
        if (n < 0) {
            if (errno == EINTR) continue;
            const std::string err = std::strerror(errno);
            close(fd);
            return "cannot write the kernel image: " + err;
        }
        done += static_cast<size_t>(n);
    }
    *fd_out = fd;
    *path_out = path;
    return "";
}

}  // namespace detail

// Loads the kernel shared object held in [begin, end) and resolves `entry` in it. Each image is
// loaded once per process (cached by address); later calls return the same SimKernel.
inline std::string LoadEmbeddedKernel(const uint8_t* begin, const uint8_t* end, const char* label,
                                      const char* entry, SimKernel* out) {
    static std::mutex mu;
    static std::map<const uint8_t*, SimKernel>* cache = new std::map<const uint8_t*, SimKernel>();
    std::lock_guard<std::mutex> lock(mu);
    auto it = cache->find(begin);
    if (it != cache->end()) {
        *out = it->second;
        return "";
    }
    if (end <= begin) return std::string("kernel image '") + label + "' is empty";
    int fd = -1;
    std::string path;
    std::string err = detail::WriteImage(begin, static_cast<size_t>(end - begin), label, &fd, &path);
    if (!err.empty()) return err;
    // RTLD_LOCAL: every variant exports the same simulator symbols (opgen_sim_launch, ...).
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    const char* dl_err = handle == nullptr ? dlerror() : nullptr;
    // glibc finds an already-loaded object by the name dlopen was given: a closed memfd's
    // number (and so its /proc path) would be reused by the next image, which dlopen would then
    // take for this one. The memfd stays open for the life of the process (one per variant).
    if (path.rfind("/proc/self/fd/", 0) != 0) {
        unlink(path.c_str());
        close(fd);
    } else if (handle == nullptr) {
        close(fd);
    }
    if (handle == nullptr) {
        return std::string("cannot load kernel image '") + label + "': " + (dl_err ? dl_err : "?");
    }
    SimKernel k;
    k.handle = handle;
    k.entry = dlsym(handle, entry);
    k.launch = reinterpret_cast<SimLaunchFn>(dlsym(handle, "opgen_sim_launch"));
    k.launch_with = reinterpret_cast<SimLaunchWithFn>(dlsym(handle, "opgen_sim_launch_with"));
    k.last_error = reinterpret_cast<SimLastErrorFn>(dlsym(handle, "opgen_sim_last_error"));
    k.set_tiling_key =
        reinterpret_cast<void (*)(uint64_t)>(dlsym(handle, "opgen_sim_set_tiling_key"));
    auto abi = reinterpret_cast<int32_t (*)()>(dlsym(handle, "opgen_sim_abi_version"));
    auto counters = reinterpret_cast<int32_t (*)()>(dlsym(handle, "opgen_sim_num_counters"));
    if (k.entry == nullptr) {
        return std::string("kernel image '") + label + "' has no entry '" + entry + "'";
    }
    if (!k.launch || !k.last_error || !abi || !counters) {
        return std::string("kernel image '") + label +
               "' is not a simulator kernel (no opgen_sim_launch); rebuild the op library";
    }
    if (abi() != kSimAbiVersion) {
        return std::string("kernel image '") + label + "' speaks simulator ABI " +
               std::to_string(abi()) + ", this op library " + std::to_string(kSimAbiVersion) +
               "; rebuild the op library";
    }
    k.num_counters = counters();
    (*cache)[begin] = k;
    *out = k;
    return "";
}

// Runs the kernel on `block_dim` simulated cores. `args` are the GM pointers (inputs, outputs,
// workspace, tiling), `sizes` their byte sizes, `names` their names joined by '\0' (for the
// simulator's bounds messages); the last argument is the tiling. Returns "" or the simulator's
// message, with *error_block set to the failing block (-1: none).
inline std::string LaunchSimKernel(const SimKernel& k, int32_t nargs, uint8_t** args,
                                   const int64_t* sizes, const char* names, int64_t block_dim,
                                   int64_t ub_bytes, int64_t tiling_size, int32_t* error_block,
                                   const SimThreads& pool = {}) {
    *error_block = -1;
    int32_t rc;
    if (pool.parallel != nullptr && k.launch_with != nullptr) {
        rc = k.launch_with(k.entry, nargs, args, sizes, names, static_cast<int32_t>(block_dim),
                           ub_bytes, kSimFlagStrictDataCopy, tiling_size, 0, nullptr,
                           pool.parallel, pool.ctx);
    } else {
        rc = k.launch(k.entry, nargs, args, sizes, names, static_cast<int32_t>(block_dim),
                      ub_bytes, kSimFlagStrictDataCopy, tiling_size, 0, nullptr);
    }
    if (rc == 0) return "";
    char buf[4096];
    int32_t block = -1;
    k.last_error(buf, static_cast<int32_t>(sizeof buf), &block);
    *error_block = block;
    return buf;
}

}  // namespace opgen_host
