"""What CANN's kernel build gives a kernel besides the Ascend C API, as the simulator's build
reproduces it (docs/simulator.md, "Kernel conventions"):

- ORIG_DTYPE_<NAME>, the ge::DataType code of each tensor's dtype, beside DTYPE_<NAME>, and the
  codes as DT_* macros (asc-devkit include/basic_api/kernel_type.h outside NPU host/device
  builds), so that `#if ORIG_DTYPE_X == DT_FLOAT16` selects code per dtype (ops-math's
  non_finite_check sizes its queue that way). Host-style headers (graph/types.h) still compile
  in the same kernel.
- Data in the kernel binary's static storage read as GM (a `constexpr static __gm__` table, as
  ops-math's lin_space keeps its ramp): on the device it lives in the binary's GM image; the
  simulator counts the kernel library's image as a GM region of its own.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import opgen_runtime as rt

DTYPE_KERNEL = r"""
#include "kernel_operator.h"
#include "graph/types.h"  // a host-style header after the DT_* macros
using namespace AscendC;

static_assert(sizeof(ge::DataType) == sizeof(int), "ge::DataType is usable beside the macros");
static_assert(DT_FLOAT16 == C_DT_FLOAT16 && DT_BF16 == C_DT_BF16, "the codes agree");

extern "C" __global__ __aicore__ void probe(GM_ADDR x, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
    GlobalTensor<int32_t> zGm;
    zGm.SetGlobalBuffer((__gm__ int32_t*)z, 8);
#if defined(ORIG_DTYPE_X) && ORIG_DTYPE_X == DT_FLOAT16
    zGm.SetValue(0, 16);
#elif defined(ORIG_DTYPE_X) && ORIG_DTYPE_X == DT_FLOAT
    zGm.SetValue(0, 32);
#else
    zGm.SetValue(0, -1);
#endif
    zGm.SetValue(1, ORIG_DTYPE_X);
    zGm.SetValue(2, static_cast<int32_t>(sizeof(DTYPE_X)));
    zGm.SetValue(3, ORIG_DTYPE_Z);
}
"""


@pytest.fixture(scope="module")
def dtype_source(tmp_path_factory: pytest.TempPathFactory) -> Path:
    src = Path(tmp_path_factory.mktemp("orig_dtype")) / "probe.cpp"
    src.write_text(DTYPE_KERNEL)
    return src


@pytest.mark.parametrize(
    ("dtype", "branch", "code", "size"), [("float16", 16, 1, 2), ("float32", 32, 0, 4)]
)
def test_orig_dtype_selects_code_with_dt_macros(
    dtype_source: Path, dtype: str, branch: int, code: int, size: int
) -> None:
    defines = rt.dtype_defines({"x": dtype, "z": "int32"})
    assert defines["ORIG_DTYPE_X"] == str(code) and defines["ORIG_DTYPE_Z"] == "3"
    lib = rt.build_kernel(dtype_source, entry="probe", defines=defines)
    x = np.zeros(16, dtype)
    z = np.zeros(8, np.int32)
    rt.launch(lib, "probe", {"x": x, "z": z}, block_dim=1, tiling=b"\0" * 8)
    assert list(z[:4]) == [branch, code, size, 3]


TABLE_KERNEL = r"""
#include "kernel_operator.h"
using namespace AscendC;

struct TableTiling {
    int32_t mode;
    int32_t n;
};
REGISTER_TILING_DEFAULT(TableTiling);

// A class-template constant as lin_space keeps its ramp (not in the dynamic symbol table: the
// loaded segment bounds it), and an exported one (its symbol gives its size).
template <typename T>
struct Ramp {
    constexpr static __gm__ T values[64] = {
        0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21,
        22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43,
        44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63};
};
extern "C" __attribute__((visibility("default"))) const float opgen_test_squares[32] = {
    0,   1,   4,   9,   16,  25,  36,  49,  64,  81,  100, 121, 144, 169, 196, 225,
    256, 289, 324, 361, 400, 441, 484, 529, 576, 625, 676, 729, 784, 841, 900, 961};

extern "C" __global__ __aicore__ void table(GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 1024);
    LocalTensor<float> local = buf.Get<float>();
    GlobalTensor<float> zGm, src;
    zGm.SetGlobalBuffer((__gm__ float*)z, 128);
    if (t.mode == 0) {
        src.SetGlobalBuffer((__gm__ float*)Ramp<float>::values, 64);
    } else if (t.mode == 1) {
        src.SetGlobalBuffer((__gm__ float*)opgen_test_squares, 32);
    } else {
        static float heap_table[64];  // writable static storage: in the image too
        src.SetGlobalBuffer((__gm__ float*)heap_table, 64);
    }
    DataCopy(local, src, t.n);
    DataCopy(zGm, local, t.n);
    if (t.mode == 0) zGm.SetValue(t.n, src.GetValue(t.n - 1) + 1000.0f);
}
"""
LAYOUT = rt.TilingLayout.from_fields("TableTiling", [("mode", "int32_t"), ("n", "int32_t")])


@pytest.fixture(scope="module")
def table_lib(tmp_path_factory: pytest.TempPathFactory) -> rt.KernelLibrary:
    src = Path(tmp_path_factory.mktemp("static_gm")) / "table.cpp"
    src.write_text(TABLE_KERNEL)
    return rt.build_kernel(src, entry="table")


def run_table(lib: rt.KernelLibrary, mode: int, n: int) -> np.ndarray:
    z = np.zeros(128, np.float32)
    rt.launch(lib, "table", {"z": z}, block_dim=1, tiling=LAYOUT.pack({"mode": mode, "n": n}))
    return z


def test_class_static_gm_table_reads_as_gm(table_lib: rt.KernelLibrary) -> None:
    z = run_table(table_lib, 0, 64)
    np.testing.assert_array_equal(z[:64], np.arange(64, dtype=np.float32))
    assert z[64] == 63 + 1000


def test_exported_table_is_bounded_by_its_symbol(table_lib: rt.KernelLibrary) -> None:
    z = run_table(table_lib, 1, 32)
    np.testing.assert_array_equal(z[:32], np.arange(32, dtype=np.float32) ** 2)
    with pytest.raises(rt.SimulatorError) as info:
        run_table(table_lib, 1, 40)
    text = str(info.value)
    assert "run past the end of the kernel's static data 'opgen_test_squares' (128 bytes)" in text


def test_writable_static_storage_counts_too(table_lib: rt.KernelLibrary) -> None:
    z = run_table(table_lib, 2, 64)
    np.testing.assert_array_equal(z[:64], np.zeros(64, np.float32))
