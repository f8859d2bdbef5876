"""convert_from_bytes<T>(bytes) (the AOT guide's compile-time tiling constant): the bytes of a
constexpr array read as a struct in a constant expression, so a kernel specialised on it sees
the tiling as constants."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from .conftest import opgen

PROGRAM = r"""
#include "acl/acl.h"
#include "kernel_operator.h"

struct Tiling {
    uint32_t n;
    int16_t s;
    uint8_t flag;
    float scale;
};

// little-endian: n = 0x01020304, s = -2, flag = 7, scale = 1.5f (0x3fc00000)
static constexpr uint8_t kBytes[] = {4, 3, 2, 1, 0xfe, 0xff, 7, 0, 0, 0, 0xc0, 0x3f};

template <const uint8_t* P>
struct Holder {
    static constexpr Tiling value = convert_from_bytes<Tiling>(P);
};

static_assert(Holder<kBytes>::value.n == 0x01020304u, "n");
static_assert(Holder<kBytes>::value.s == -2, "s");
static_assert(Holder<kBytes>::value.flag == 7, "flag");
static_assert(Holder<kBytes>::value.scale == 1.5f, "scale");

template <typename H>
__global__ __vector__ void put_tiling(GM_ADDR out)
{
    constexpr Tiling t = H::value;
    auto* o = reinterpret_cast<__gm__ float*>(out);
    o[0] = static_cast<float>(t.n & 0xffff);
    o[1] = static_cast<float>(t.s) * t.scale;
}

int main()
{
    aclInit(nullptr);
    aclrtSetDevice(0);
    void* d = nullptr;
    aclrtMalloc(&d, 8, ACL_MEM_MALLOC_HUGE_FIRST);
    put_tiling<Holder<kBytes>><<<1, nullptr, nullptr>>>((GM_ADDR)d);
    float h[2] = {};
    aclrtMemcpy(h, 8, d, 8, ACL_MEMCPY_DEVICE_TO_HOST);
    std::printf("%g %g\n", h[0], h[1]);
    aclrtFree(d);
    aclFinalize();
    return 0;
}
"""


def test_convert_from_bytes_is_a_compile_time_struct(tmp_path: Path) -> None:
    src = tmp_path / "aot.asc"
    src.write_text(PROGRAM)
    run = opgen("run", str(src), cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    got = [float(v) for v in run.stdout.split()]
    np.testing.assert_array_equal(got, [0x0304, -3.0])
