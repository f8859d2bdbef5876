// opgen aclnn: a dynamic (aclTensorList) input as its kernel receives it, one GM buffer in
// CANN's ListTensorDesc layout. The layout and the choice to copy the tensors behind the
// descriptor are opgen_runtime/tensor_list.py's (its docstring states both); this is the same
// rule for the C++ op library, and tests run one kernel through both.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace opgen_aclnn {

struct ListInstance {
    const uint8_t* data;
    int64_t bytes;
    const int64_t* dims;
    int32_t rank;
};

// A device allocation's bytes for `n` (aclrtMalloc: rounded up to 32, plus 32).
inline int64_t GmAllocationBytes(int64_t n) { return (n + 31) / 32 * 32 + 32; }

// Fills `storage` and returns the 32-byte-aligned start of the packed buffer (its usable size
// in *size), or nullptr with *err set.
inline uint8_t* PackTensorList(const std::vector<ListInstance>& list,
                               std::vector<uint8_t>* storage, int64_t* size, std::string* err) {
    if (list.empty()) {
        *err = "an empty tensor list";
        return nullptr;
    }
    const uint64_t n = list.size();
    const int32_t rank = list[0].rank;
    for (const ListInstance& t : list) {
        if (t.rank != rank) {
            *err = "every tensor of a list must have the same rank (CANN's ListTensorDesc "
                   "describes them all with the first one's)";
            return nullptr;
        }
    }
    const uint64_t ptr_at = rank == 0 ? 3 : 1 + n * (1 + static_cast<uint64_t>(rank));
    const uint64_t words = ptr_at + n;
    int64_t at = GmAllocationBytes(static_cast<int64_t>(words * 8)) - 32;
    std::vector<int64_t> offsets;
    for (const ListInstance& t : list) {
        offsets.push_back(at);
        at += GmAllocationBytes(t.bytes);
    }
    storage->assign(static_cast<size_t>(at + 64), 0);
    uint8_t* base = storage->data() + (32 - reinterpret_cast<uintptr_t>(storage->data()) % 32) % 32;
    std::vector<uint64_t> desc(words, 0);
    if (rank == 0) {  // the pointers-only form
        desc[0] = 24;
        desc[1] = n << 32;
        desc[2] = 0xffffffffu;
    } else {
        desc[0] = ptr_at * 8;
        for (uint64_t i = 0; i < n; ++i) {
            const uint64_t w = 1 + i * (1 + static_cast<uint64_t>(rank));
            desc[w] = static_cast<uint64_t>(rank) | (i << 32);
            for (int32_t d = 0; d < rank; ++d) desc[w + 1 + d] = static_cast<uint64_t>(list[i].dims[d]);
        }
    }
    for (uint64_t i = 0; i < n; ++i) {
        desc[ptr_at + i] = static_cast<uint64_t>(reinterpret_cast<uintptr_t>(base + offsets[i]));
        if (list[i].bytes > 0) std::memcpy(base + offsets[i], list[i].data, static_cast<size_t>(list[i].bytes));
    }
    std::memcpy(base, desc.data(), words * 8);
    *size = at;
    return base;
}

}  // namespace opgen_aclnn
