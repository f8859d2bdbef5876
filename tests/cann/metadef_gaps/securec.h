// securec.h (the bounds-checking C library metadef's headers use): the calls they make.
#pragma once
#include <cstddef>
#include <cstring>

typedef int errno_t;
#define EOK 0

inline errno_t memcpy_s(void* dest, size_t dest_max, const void* src, size_t count)
{
    if (count > dest_max) {
        return 1;
    }
    std::memcpy(dest, src, count);
    return EOK;
}

inline errno_t memset_s(void* dest, size_t dest_max, int c, size_t count)
{
    if (count > dest_max) {
        return 1;
    }
    std::memset(dest, c, count);
    return EOK;
}
