// Binary file helpers of the CPU-debug drivers here: a driver reads its inputs from
// ./input/<name>.bin (the test writes them, as a sample's gen_data.py would) and leaves its
// outputs in ./output/<name>.bin for the test to compare with numpy.
#ifndef OPGEN_FIDELITY_SAMPLE_IO_H
#define OPGEN_FIDELITY_SAMPLE_IO_H
#include <cstddef>
#include <cstdio>
#include <cstdlib>

namespace sample_io {

// Fills `dst` with exactly `bytes` bytes of the file; a short or missing file ends the program,
// since a driver fed half an input would only produce a misleading mismatch later.
inline void Load(const char *path, void *dst, size_t bytes)
{
    FILE *f = std::fopen(path, "rb");
    size_t got = f != nullptr ? std::fread(dst, 1, bytes, f) : 0;
    if (f != nullptr) {
        std::fclose(f);
    }
    if (got != bytes) {
        std::fprintf(stderr, "sample_io: %s: wanted %zu bytes, read %zu\n", path, bytes, got);
        std::exit(2);
    }
}

inline void Store(const char *path, const void *src, size_t bytes)
{
    FILE *f = std::fopen(path, "wb");
    if (f == nullptr || std::fwrite(src, 1, bytes, f) != bytes) {
        std::fprintf(stderr, "sample_io: cannot write %s\n", path);
        std::exit(2);
    }
    std::fclose(f);
}

}  // namespace sample_io
#endif
