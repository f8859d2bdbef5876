"""PhiloxRandom (opgen_sim/random.h) against a numpy Philox4x32 counter-based generator as
PhiloxRandom.md documents it (128-bit counter, 64-bit key, 7 or 10 rounds; float as a 23-bit
mantissa in [1, 2) minus 1) with CANN's element order (impl/adv_api/detail/math/philox:
element e is word e % 4 of counter C + e / 4; stride mode skips the counters of stride - column
values a row). TransData (opgen_sim/transdata.h) is not simulated yet."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import opgen_runtime as rt

# ---- PhiloxRandom --------------------------------------------------------------------------------
PHILOX_KERNEL = r"""
#include "kernel_operator.h"
using namespace AscendC;

struct PhiloxTest {
    int32_t mode;
    uint32_t count;
    uint32_t stride;
    uint32_t row;
    uint32_t column;
    uint32_t key[2];
    uint32_t ctr[4];
};

template <typename T>
__aicore__ inline void Body(GM_ADDR y, const PhiloxTest& t)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 4096 * sizeof(T));
    GlobalTensor<T> yGm;
    yGm.SetGlobalBuffer((__gm__ T*)y, 4096);
    LocalTensor<T> dst = buf.Get<T>();
    Duplicate(dst, (T)0, 4096);
    const PhiloxKey key = {t.key[0], t.key[1]};
    const PhiloxCounter ctr = {t.ctr[0], t.ctr[1], t.ctr[2], t.ctr[3]};
    const PhiloxRandomParams params = {t.stride, t.row, t.column};
    if (t.mode == 0) PhiloxRandom<10>(dst, key, ctr, static_cast<uint16_t>(t.count));
    if (t.mode == 1) PhiloxRandom<7>(dst, key, ctr, static_cast<uint16_t>(t.count));
    if (t.mode == 2) PhiloxRandom(dst, key, ctr, static_cast<uint16_t>(t.count));  // Rounds 7
    if (t.mode == 3) PhiloxRandom<10>(dst, key, ctr, params);
    if (t.mode == 4) PhiloxRandom<7>(dst, key, ctr, params);
    if (t.mode == 5) PhiloxRandom<10>(dst[8], key, ctr, static_cast<uint16_t>(t.count));
    DataCopy(yGm, dst, 4096);
}

#define ENTRY(NAME, T)                                                              \
    extern "C" __global__ __aicore__ void NAME(GM_ADDR y, GM_ADDR ws, GM_ADDR tiling) \
    {                                                                               \
        Body<T>(y, *reinterpret_cast<const PhiloxTest*>(tiling));                   \
    }
ENTRY(philox_f, float)
ENTRY(philox_i, int32_t)
ENTRY(philox_u, uint32_t)
"""

PHILOX_ENTRIES = {"float32": "philox_f", "int32": "philox_i", "uint32": "philox_u"}
M32 = 0xFFFFFFFF


@pytest.fixture(scope="module")
def philox_lib(tmp_path_factory: pytest.TempPathFactory) -> rt.KernelLibrary:
    src = Path(tmp_path_factory.mktemp("philox")) / "philox.cpp"
    src.write_text(PHILOX_KERNEL)
    return rt.build_kernel(src, entry=tuple(PHILOX_ENTRIES.values()))


def philox4x32(counter: int, key: tuple[int, int], rounds: int) -> list[int]:
    """Philox4x32 on the 128-bit counter (word 0 its low 32 bits), key bumped between rounds."""
    c = [(counter >> (32 * i)) & M32 for i in range(4)]
    k0, k1 = key
    for _ in range(rounds):
        p0 = 0xD2511F53 * c[0]
        p1 = 0xCD9E8D57 * c[2]
        c = [(p1 >> 32) ^ c[1] ^ k0, p1 & M32, (p0 >> 32) ^ c[3] ^ k1, p0 & M32]
        k0 = (k0 + 0x9E3779B9) & M32
        k1 = (k1 + 0xBB67AE85) & M32
    return c


def philox_model(ctr: list[int], key: tuple[int, int], rounds: int, row: int, column: int,
                 stride: int, dtype: str) -> np.ndarray:
    base = sum(w << (32 * i) for i, w in enumerate(ctr))
    words = []
    for r in range(row):
        for j in range(0, column, 4):
            block = philox4x32((base + (r * stride + j) // 4) % (1 << 128), key, rounds)
            words.extend(block[:min(4, column - j)])
    w = np.array(words, np.uint64).astype(np.uint32)
    if dtype == "float32":
        return ((w & 0x7FFFFF) | 0x3F800000).view(np.float32) - np.float32(1.0)
    return w.view(dtype)


def run_philox(lib: rt.KernelLibrary, dtype: str, mode: int, *, count: int = 0, stride: int = 0,
               row: int = 0, column: int = 0, key: tuple[int, int] = (0, 0),
               ctr: tuple[int, ...] = (0, 0, 0, 0)) -> np.ndarray:
    y = rt.gm_empty(4096, dtype)
    y[:] = 0
    blob = np.array([mode, count, stride, row, column, *key, *ctr], np.uint32).tobytes()
    rt.launch(lib, PHILOX_ENTRIES[dtype], [y], block_dim=1, tiling=blob)
    return np.asarray(y).copy()


def assert_same_bits(got: np.ndarray, want: np.ndarray) -> None:
    np.testing.assert_array_equal(got.view(np.uint32), np.asarray(want).view(np.uint32))


def test_philox_known_answer() -> None:
    """The model is Philox4x32-10 as published (Salmon et al., Random123 known-answer vectors)."""
    assert philox4x32(0, (0, 0), 10) == [0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8]
    ones = sum(M32 << (32 * i) for i in range(4))
    assert philox4x32(ones, (M32, M32), 10) == [0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD]


@pytest.mark.parametrize("dtype", ["float32", "int32", "uint32"])
@pytest.mark.parametrize(("mode", "rounds"), [(0, 10), (1, 7), (2, 7)])
def test_philox_count_mode(philox_lib: rt.KernelLibrary, dtype: str, mode: int,
                           rounds: int) -> None:
    """PhiloxRandom.md, 连续模式: count values from counters C, C + 1, ... (4 a counter); a count
    not a multiple of 4 ends inside a block; the counter carries over 32-bit words; the default
    Rounds is 7; nothing past count is written."""
    key = (0x12345678, 0x9ABCDEF0)
    ctr = (0xFFFFFFF0, M32, 7, 0)  # word 0 wraps after 16 counters: the carry reaches word 2
    count = 1000 + 2
    got = run_philox(philox_lib, dtype, mode, count=count, key=key, ctr=ctr)
    want = philox_model(list(ctr), key, rounds, 1, count, count, dtype)
    assert_same_bits(got[:count], want)
    assert not got[count:].any()


@pytest.mark.parametrize("dtype", ["float32", "uint32"])
@pytest.mark.parametrize(("stride", "row", "column"),
                         [(32, 32, 32), (8, 4, 4), (40, 9, 12), (1024, 3, 520), (300, 2, 296),
                          (16, 1, 8)])
def test_philox_stride_mode(philox_lib: rt.KernelLibrary, dtype: str, stride: int, row: int,
                            column: int) -> None:
    """PhiloxRandom.md, stride模式: row x column values written one row after the other, row r from
    counter C + r * stride / 4 (the counters of the stride - column values skipped)."""
    key, ctr = (3, 5), (11, 0, 0, 1)
    got = run_philox(philox_lib, dtype, 3, stride=stride, row=row, column=column, key=key,
                     ctr=ctr)
    want = philox_model(list(ctr), key, 10, row, column, stride, dtype)
    assert_same_bits(got[:row * column], want)
    assert not got[row * column:].any()
    got7 = run_philox(philox_lib, dtype, 4, stride=stride, row=row, column=column, key=key,
                      ctr=ctr)
    assert_same_bits(got7[:row * column], philox_model(list(ctr), key, 7, row, column, stride,
                                                       dtype))


def test_philox_documented_example(philox_lib: rt.KernelLibrary) -> None:
    """PhiloxRandom.md's figure: two stride calls (stride 8, 4 x 4, counters 0 and 1) produce the
    columns of one continuous call of 32; its float example starts 0.31179297 0.8263413."""
    whole = run_philox(philox_lib, "float32", 0, count=32)[:32].reshape(4, 8)
    left = run_philox(philox_lib, "float32", 3, stride=8, row=4, column=4)[:16].reshape(4, 4)
    right = run_philox(philox_lib, "float32", 3, stride=8, row=4, column=4,
                       ctr=(1, 0, 0, 0))[:16].reshape(4, 4)
    assert_same_bits(np.hstack([left, right]), whole)
    assert list(whole.ravel()[:2]) == [np.float32(0.31179297), np.float32(0.8263413)]
    assert ((whole >= 0) & (whole < 1)).all()


@pytest.mark.parametrize(("kw", "error", "text"), [
    ({"stride": 10, "row": 2, "column": 8}, rt.SimulatorError,
     "PhiloxRandom: params {stride 10, row 2, column 8}: stride must be a multiple of 4"),
    ({"stride": 16, "row": 2, "column": 6}, rt.SimulatorError,
     "PhiloxRandom: params {stride 16, row 2, column 6}: column must be a multiple of 4"),
    ({"stride": 8, "row": 2, "column": 12}, rt.SimulatorError,
     "PhiloxRandom: params {stride 8, row 2, column 12}: stride must be at least column"),
    ({"stride": 8, "row": 0, "column": 8}, rt.SimulatorError,
     "PhiloxRandom: params {stride 8, row 0, column 8}: row and column must be greater than 0"),
    ({"stride": 8192, "row": 2, "column": 4096}, rt.LocalMemoryOutOfBounds,
     "PhiloxRandom: dstLocal: count 8192 exceeds the LocalTensor<float> of 4096 elements"),
])
def test_philox_misuse_is_an_error(philox_lib: rt.KernelLibrary, kw: dict[str, int],
                                   error: type[Exception], text: str,
                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """PhiloxRandom.md, params: column % 4 == 0, stride % 4 == 0, stride >= column, row * column
    > 0 and within the LocalTensor."""
    monkeypatch.setenv("OPGEN_SIM_STRICT", "1")  # past the LocalTensor: strict mode only
    with pytest.raises(error, match="block 0: " + re.escape(text)):
        run_philox(philox_lib, "float32", 3, **kw)


def test_philox_dst_must_be_aligned(philox_lib: rt.KernelLibrary) -> None:
    """PhiloxRandom.md: dstLocal's start address 32-byte aligned (dst[8] of float is)."""
    got = run_philox(philox_lib, "float32", 5, count=8)
    assert_same_bits(got[8:16], philox_model([0, 0, 0, 0], (0, 0), 10, 1, 8, 8, "float32"))


@pytest.mark.parametrize(("call", "text"), [
    ("PhiloxRandom<10>(h, key, ctr, (uint16_t)8);",
     "PhiloxRandom: T must be uint32_t, int32_t or float"),
    ("PhiloxRandom<8>(dst, key, ctr, (uint16_t)8);", "PhiloxRandom: Rounds must be 7 or 10"),
])
def test_philox_unlisted_type_or_rounds_is_a_compile_error(tmp_path: Path, call: str,
                                                           text: str) -> None:
    src = tmp_path / "bad.cpp"
    src.write_text(PHILOX_KERNEL.replace(
        "    DataCopy(yGm, dst, 4096);",
        "    LocalTensor<half> h = buf.Get<half>();\n    " + call
        + "\n    DataCopy(yGm, dst, 4096);"))
    with pytest.raises(rt.BuildError, match=re.escape(text)):
        rt.build_kernel(src, entry="philox_f")
