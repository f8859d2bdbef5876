// opgen NPU simulator: Global Memory inside the kernel's own binary. A kernel may hold data in
// static storage and read it as GM (e.g. `constexpr static __gm__ T table[] = {...}` set on a
// GlobalTensor); on the device such data is part of the kernel binary's GM image. Here it is part
// of the kernel library (or program) the simulator is compiled into, so an address inside that
// image counts as a GM region of its own: the object holding it when the dynamic symbol table
// names one, else the loaded segment holding it.
#pragma once

#include <dlfcn.h>
#include <link.h>

#include <cstdint>
#include <string>

#include "opgen_sim/outline.h"

namespace opgen_sim {

struct ImageData {
    const uint8_t* begin = nullptr;
    uint64_t size = 0;
    std::string name;  // the object's symbol, or "static data of <library>"
};

// A function of this image: its address tells which loaded object the simulator (and the kernel
// compiled with it) lives in. Hidden visibility gives each kernel library its own copy.
inline void ImageAnchor() {}

// True when p lies in the loaded image of this kernel library (or program); `out` is the region.
OPGEN_SIM_OUTLINE bool FindImageData(const void* p, ImageData* out)
#if OPGEN_SIM_OUTLINE_BODIES
{
    Dl_info self{};
    if (dladdr(reinterpret_cast<void*>(&ImageAnchor), &self) == 0) return false;
    Dl_info at{};
    void* entry = nullptr;
    if (dladdr1(p, &at, &entry, RTLD_DL_SYMENT) == 0) return false;
    const auto* sym = static_cast<const ElfW(Sym)*>(entry);
    if (at.dli_fbase != self.dli_fbase) return false;
    const auto* a = static_cast<const uint8_t*>(p);
    if (sym != nullptr && at.dli_saddr != nullptr && sym->st_size > 0) {
        const auto* s = static_cast<const uint8_t*>(at.dli_saddr);
        if (a >= s && a < s + sym->st_size) {
            *out = {s, static_cast<uint64_t>(sym->st_size), at.dli_sname ? at.dli_sname : "?"};
            return true;
        }
    }
    struct Search {
        const uint8_t* p;
        const uint8_t* begin;
        uint64_t size;
    } search{a, nullptr, 0};
    dl_iterate_phdr(
        [](dl_phdr_info* info, size_t, void* data) -> int {
            auto* s = static_cast<Search*>(data);
            for (int i = 0; i < info->dlpi_phnum; ++i) {
                const ElfW(Phdr)& ph = info->dlpi_phdr[i];
                if (ph.p_type != PT_LOAD) continue;
                const auto* seg = reinterpret_cast<const uint8_t*>(info->dlpi_addr + ph.p_vaddr);
                if (s->p >= seg && s->p < seg + ph.p_memsz) {
                    s->begin = seg;
                    s->size = ph.p_memsz;
                    return 1;
                }
            }
            return 0;
        },
        &search);
    if (search.begin == nullptr) return false;
    std::string lib = at.dli_fname ? at.dli_fname : "the kernel library";
    const size_t slash = lib.rfind('/');
    if (slash != std::string::npos) lib = lib.substr(slash + 1);
    *out = {search.begin, search.size, "static data of " + lib};
    return true;
}
#else
;
#endif

}  // namespace opgen_sim
