"""Numerics of Cast and the vector reductions against independent models of the Ascend C API
reference (asc-devkit docs/zh/api, "Memory矢量计算"):

- Cast: "类型转换/Cast" (pairs and RoundModes of the Atlas A2 products) and "数据结构/精度转换"
  (each mode's rounding; overflow saturates by default), with the saturation rules of
  "SetCtrlSpr(ISASI)" (CTRL[48] = 0) and "C-API/reg/data_type_convert/rounding_mode"
  (NaN -> 0, +-inf -> +-MAX for half/bfloat16_t results and integer results).
- ReduceSum (count form): "归约计算/ReduceSum", 关键特性说明, 方式一: a binary tree inside each
  repeat, the repeats' sums added in order.
- WholeReduceSum / BlockReduceSum / PairReduceSum: "归约计算/ReduceRepeat", "ReduceDataBlock"
  (binary tree; a data block without active lanes is not written; the saturating example),
  "ReducePairElem" (a pair with both lanes masked out is not written).
- Div: "基础算术/Div" (half and float only on the Atlas A2 and inference products).
- ReduceMax/ReduceMin (count and mask forms), WholeReduceMax/Min, BlockReduceMax/Min with NaN
  lanes: "归约计算/ReduceMax", "ReduceMin", "ReduceRepeat", "ReduceDataBlock" are silent; a NaN
  wins (the first NaN's index), as CANN's non_finite_check relies on.

Every expected value comes from exact rational arithmetic (fractions.Fraction) or numpy float16 /
float32 steps, never from the simulator.
"""

from __future__ import annotations

import math
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import opgen_runtime as rt

NUMERICS_CPP = r"""
#include "kernel_operator.h"
using namespace AscendC;

struct NumericsTilingData {
    int32_t mode;
    int32_t round;
    int32_t n;
    int32_t a;
    int32_t b;
};
REGISTER_TILING_DEFAULT(NumericsTilingData);

template <typename D, typename S>
__aicore__ inline void DoCast(const LocalTensor<uint8_t>& in, const LocalTensor<uint8_t>& out,
                              int32_t round, int32_t n)
{
    Cast(out.ReinterpretCast<D>(), in.ReinterpretCast<S>(), static_cast<RoundMode>(round), n);
}

extern "C" __global__ __aicore__ void numerics(GM_ADDR x, GM_ADDR z, GM_ADDR workspace,
                                               GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 96 * 1024);
    GlobalTensor<uint8_t> xGm, zGm;
    xGm.SetGlobalBuffer((__gm__ uint8_t*)x, 64 * 1024);
    zGm.SetGlobalBuffer((__gm__ uint8_t*)z, 32 * 1024);
    LocalTensor<uint8_t> all = buf.Get<uint8_t>();
    LocalTensor<uint8_t> in = all[0], out = all[32 * 1024], work = all[64 * 1024];
    in.SetSize(32 * 1024);
    out.SetSize(32 * 1024);
    work.SetSize(32 * 1024);
    DataCopy(in, xGm, 32 * 1024);
    DataCopy(out, xGm[32 * 1024], 32 * 1024);
    const int32_t r = t.round, n = t.n, a = t.a, b = t.b;
    LocalTensor<half> ih = in.ReinterpretCast<half>(), oh = out.ReinterpretCast<half>();
    LocalTensor<half> wh = work.ReinterpretCast<half>();
    LocalTensor<float> iff = in.ReinterpretCast<float>(), of = out.ReinterpretCast<float>();
    LocalTensor<float> wf = work.ReinterpretCast<float>();
    switch (t.mode) {
        case 0: DoCast<half, int8_t>(in, out, r, n); break;
        case 1: DoCast<half, uint8_t>(in, out, r, n); break;
        case 2: DoCast<half, int16_t>(in, out, r, n); break;
        case 3: DoCast<float, int16_t>(in, out, r, n); break;
        case 4: DoCast<int8_t, half>(in, out, r, n); break;
        case 5: DoCast<uint8_t, half>(in, out, r, n); break;
        case 6: DoCast<int16_t, half>(in, out, r, n); break;
        case 7: DoCast<int32_t, half>(in, out, r, n); break;
        case 8: DoCast<float, half>(in, out, r, n); break;
        case 9: DoCast<int32_t, bfloat16_t>(in, out, r, n); break;
        case 10: DoCast<float, bfloat16_t>(in, out, r, n); break;
        case 11: DoCast<int16_t, int32_t>(in, out, r, n); break;
        case 12: DoCast<half, int32_t>(in, out, r, n); break;
        case 13: DoCast<float, int32_t>(in, out, r, n); break;
        case 14: DoCast<int64_t, int32_t>(in, out, r, n); break;
        case 15: DoCast<int16_t, float>(in, out, r, n); break;
        case 16: DoCast<int32_t, float>(in, out, r, n); break;
        case 17: DoCast<int64_t, float>(in, out, r, n); break;
        case 18: DoCast<bfloat16_t, float>(in, out, r, n); break;
        case 19: DoCast<float, float>(in, out, r, n); break;
        case 20: DoCast<half, float>(in, out, r, n); break;
        case 21: DoCast<int32_t, int64_t>(in, out, r, n); break;
        case 22: DoCast<float, int64_t>(in, out, r, n); break;
        case 23: DoCast<int8_t, int32_t>(in, out, r, n); break;   // no such pair
        case 24: DoCast<half, half>(in, out, r, n); break;         // no such pair
        case 40: ReduceSum<half>(oh, ih, wh, n); break;
        case 41: ReduceSum<float>(of, iff, wf, n); break;
        case 42: WholeReduceSum<half>(oh, ih, a, b, 1, 1, 8); break;
        case 43: WholeReduceSum<float>(of, iff, a, b, 1, 1, 8); break;
        case 44: BlockReduceSum<half>(oh, ih, b, a, 1, 1, 8); break;
        case 45: BlockReduceSum<float>(of, iff, b, a, 1, 1, 8); break;
        case 46: BlockReduceMax<half>(oh, ih, b, a, 1, 1, 8); break;
        case 47: PairReduceSum<half>(oh, ih, b, a, 1, 1, 8); break;
        case 48: PairReduceSum<float>(of, iff, b, a, 1, 1, 8); break;
        case 49: {
            uint64_t m[2] = {0x0F0F0F0F0F0F0F0FULL, 0x00000000FFFF0000ULL};
            PairReduceSum<half>(oh, ih, b, m, 1, 1, 8);
            break;
        }
        case 50: Div(out.ReinterpretCast<int32_t>(), in.ReinterpretCast<int32_t>(),
                     in.ReinterpretCast<int32_t>()[64], n); break;
        case 51: Div(out.ReinterpretCast<int16_t>(), in.ReinterpretCast<int16_t>(),
                     in.ReinterpretCast<int16_t>()[128], 128, 1, {1, 1, 1, 8, 8, 8}); break;
        case 52: Add(out.ReinterpretCast<int32_t>(), in.ReinterpretCast<int32_t>(),
                     in.ReinterpretCast<int32_t>()[64], n); break;
        case 53: ReduceSum<int32_t>(out.ReinterpretCast<int32_t>(), in.ReinterpretCast<int32_t>(),
                                    work.ReinterpretCast<int32_t>(), n); break;
        case 60: ReduceMax<half>(oh, ih, wh, n, true); break;
        case 61: ReduceMax<float>(of, iff, wf, n, true); break;
        case 62: ReduceMin<half>(oh, ih, wh, n, true); break;
        case 63: ReduceMin<float>(of, iff, wf, n, true); break;
        case 64: WholeReduceMax<float>(of, iff, a, b, 1, 1, 8); break;
        case 65: WholeReduceMin<half>(oh, ih, a, b, 1, 1, 8); break;
        case 66: BlockReduceMax<float>(of, iff, b, a, 1, 1, 8); break;
        case 67: BlockReduceMin<half>(oh, ih, b, a, 1, 1, 8); break;
        case 68: ReduceMax<float>(of, iff, wf, a, b, 8, true); break;
        case 69: ReduceMin<half>(oh, ih, wh, a, b, 8, true); break;
        default: break;
    }
    DataCopy(zGm, out, 32 * 1024);
}
"""

LAYOUT = rt.TilingLayout.from_fields(
    "NumericsTilingData",
    [
        ("mode", "int32_t"),
        ("round", "int32_t"),
        ("n", "int32_t"),
        ("a", "int32_t"),
        ("b", "int32_t"),
    ],
)
BYTES = 32 * 1024
RNG = np.random.default_rng(15)

# RoundMode values (Cast, "RoundMode取值说明")
NONE, RINT, FLOOR, CEIL, ROUND, TRUNC, ODD = range(7)
MODE_NAMES = [
    "CAST_NONE",
    "CAST_RINT",
    "CAST_FLOOR",
    "CAST_CEIL",
    "CAST_ROUND",
    "CAST_TRUNC",
    "CAST_ODD",
]
RFCRT = [RINT, FLOOR, CEIL, ROUND, TRUNC]


@pytest.fixture(scope="module")
def lib(tmp_path_factory: pytest.TempPathFactory) -> rt.KernelLibrary:
    src = Path(tmp_path_factory.mktemp("numerics")) / "numerics.cpp"
    src.write_text(NUMERICS_CPP)
    return rt.build_kernel(src, entry="numerics")


def run(
    lib: rt.KernelLibrary,
    mode: int,
    data: bytes,
    *,
    init: bytes = b"",
    rnd: int = 0,
    n: int = 0,
    a: int = 0,
    b: int = 0,
) -> bytes:
    x = np.zeros(2 * BYTES, np.uint8)
    x[: len(data)] = np.frombuffer(data, np.uint8)
    x[BYTES : BYTES + len(init)] = np.frombuffer(init, np.uint8)
    z = np.zeros(BYTES, np.uint8)
    rt.launch(
        lib,
        "numerics",
        {"x": x, "z": z},
        block_dim=1,
        tiling=LAYOUT.pack({"mode": mode, "round": rnd, "n": n, "a": a, "b": b}),
    )
    return z.tobytes()


# ---- an exact model of "精度转换" ------------------------------------------------------------
def round_integral(v: Fraction, mode: int) -> int:
    """Rounds v to an integer as table 1 of "精度转换" describes (on the magnitude)."""
    neg = v < 0
    mag = -v if neg else v
    kept = math.floor(mag)
    rest = mag - kept
    if rest == 0:
        up = False
    elif mode == ROUND:
        up = rest >= Fraction(1, 2)
    elif mode == TRUNC:
        up = False
    elif mode == FLOOR:
        up = neg
    elif mode == CEIL:
        up = not neg
    elif mode == ODD:
        up = kept % 2 == 0
    else:  # RINT, NONE
        up = rest > Fraction(1, 2) or (rest == Fraction(1, 2) and kept % 2 == 1)
    kept += 1 if up else 0
    return -kept if neg else kept


FORMATS = {  # significant bits, smallest normal exponent, largest finite value
    "float16": (11, -14, Fraction(65504)),
    "bfloat16": (8, -126, Fraction((2**8 - 1) * 2**120)),
    "float32": (24, -126, Fraction((2**24 - 1) * 2**104)),
}


def round_to_format(v: Fraction, fmt: str, mode: int) -> Fraction:
    bits, emin, vmax = FORMATS[fmt]
    if v == 0:
        return v
    e = math.floor(math.log2(abs(v)))
    while Fraction(2) ** e > abs(v):
        e -= 1
    while Fraction(2) ** (e + 1) <= abs(v):
        e += 1
    q = max(e, emin) - (bits - 1)
    r = round_integral(v / Fraction(2) ** q, mode) * Fraction(2) ** q
    if abs(r) > vmax:  # overflow saturates ("精度转换": 饱和模式 by default)
        r = vmax if r > 0 else -vmax
    return r


def bf16_bits(v: float) -> int:
    """bfloat16 bits of a value a bfloat16 holds exactly."""
    return int(np.array([v], np.float32).view(np.uint32)[0]) >> 16


DT: dict[str, Any] = {
    "int8": np.int8,
    "uint8": np.uint8,
    "int16": np.int16,
    "int32": np.int32,
    "int64": np.int64,
    "float16": np.float16,
    "float32": np.float32,
}


def source_values(src: str) -> list[Any]:
    """Edge values of a source type: 0.5 steps, the documented examples, overflow, NaN, inf, -0."""
    if src in ("int8", "uint8"):
        return list(range(np.iinfo(DT[src]).min, np.iinfo(DT[src]).max + 1))
    if src == "int16":
        vals = [0, 1, -1, 4098, 4097, 4099, 2049, 2051, 32767, -32768, 255, 256, -129, 2**11 + 1]
        return vals + [int(v) for v in RNG.integers(-32768, 32768, 60)]
    if src == "int32":
        vals = [
            0,
            1,
            -1,
            2**25 + 3,
            2**25 + 2,
            2**25 + 6,
            2**31 - 1,
            -(2**31),
            32767,
            32768,
            -32769,
            65504,
            65519,
            65520,
            70000,
            -70000,
            2**24 + 1,
            -(2**24 + 3),
        ]
        return vals + [int(v) for v in RNG.integers(-(2**31), 2**31, 60)]
    if src == "int64":
        vals = [
            0,
            -1,
            2**35 + 2**12 + 2**11,
            2**35 + 2**12,
            -(2**35 + 2**11),
            2**63 - 1,
            -(2**63),
            2**31,
            -(2**31) - 1,
            2**31 - 1,
            2**24 + 1,
            2**53 + 1,
        ]
        return vals + [int(v) for v in RNG.integers(-(2**62), 2**62, 40)]
    halves = [k / 2 for k in range(-9, 10)]
    special = [float("nan"), float("inf"), float("-inf"), -0.0, 0.0]
    common = [127.5, -128.5, 128.5, 255.5, 256.0, -0.75, 1.75, 2.0**-24, -(2.0**-25), 2.0**-26]
    if src == "float16":
        more = [65504.0, -65504.0, 32767.5, 2048.5, 1024.25, 0.0999755859375, 6.1e-5, -3.0e-8]
        rnd = [
            float(v)
            for v in (RNG.standard_normal(40) * 10.0 ** RNG.integers(-3, 5, 40)).astype(np.float16)
        ]
        return halves + special + common + more + rnd
    more = [
        65504.0,
        65519.0,
        65520.0,
        70000.0,
        -70000.0,
        0.5 + 2.0**-12,
        0.5 + 2.0**-11 + 2.0**-12,
        0.5 + 2.0**-9 + 2.0**-11,
        2.0**22 + 0.5,
        32767.5,
        -32768.5,
        2.0**31,
        -(2.0**31) - 256.0,
        2.0**63,
        -(2.0**63),
        3.0e38,
        -3.0e38,
        3.3895e38,
        1.0e-40,
        -1.0e-45,
        2.0**-24 + 2.0**-30,
        2.0**-25,
        3 * 2.0**-26,
        1 + 2.0**-8,
        1 + 2.0**-8 + 2.0**-20,
    ]
    rnd = [
        float(v)
        for v in (RNG.standard_normal(40) * 10.0 ** RNG.integers(-6, 10, 40)).astype(np.float32)
    ]
    return halves + special + common + more + rnd


def expected_cast(v: Any, src: str, dst: str, mode: int) -> tuple[str, float | int]:
    """("nan", 0) / ("value", x): the result the reference gives for one element."""
    is_float_src = src.startswith("float") or src == "bfloat16"
    if is_float_src and math.isnan(v):
        return ("nan", 0) if dst == "float32" else ("value", 0)  # saturation: NaN -> 0
    if dst in ("float16", "bfloat16", "float32"):
        if is_float_src and math.isinf(v):
            if dst == "float32":
                return ("value", v)
            vmax = float(FORMATS[dst][2])
            return ("value", math.copysign(vmax, v))
        fr = Fraction(v)
        if dst == "float32" and src == "float32":  # float -> float rounds to an integral value
            r = Fraction(round_integral(fr, mode))
        else:
            r = round_to_format(fr, dst, NONE if mode == NONE else mode)
        if r == 0:  # the sign of a zero follows the source
            neg = math.copysign(1.0, float(v)) < 0 if is_float_src else False
            return ("value", -0.0 if neg else 0.0)
        return ("value", float(r))
    info = np.iinfo(DT[dst])
    if is_float_src and math.isinf(v):
        return ("value", info.max if v > 0 else info.min)
    i = round_integral(Fraction(v), mode) if is_float_src else int(v)
    return ("value", min(max(i, int(info.min)), int(info.max)))


def encode(values: list[Any], src: str) -> Any:
    if src == "bfloat16":
        f = np.array(values, np.float32)
        return (f.view(np.uint32) >> 16).astype(np.uint16)
    return np.array(values, DT[src])


def decode(raw: bytes, dst: str, n: int) -> np.ndarray:
    if dst == "bfloat16":
        u = np.frombuffer(raw, np.uint16)[:n].astype(np.uint32) << 16
        return u.view(np.float32)
    return np.frombuffer(raw, DT[dst])[:n]


# (kernel mode, src, dst, the modes "类型转换/Cast" lists for the Atlas A2 products)
PAIRS = [
    (0, "int8", "float16", [NONE]),
    (1, "uint8", "float16", [NONE]),
    (2, "int16", "float16", [*RFCRT, NONE]),
    (3, "int16", "float32", [NONE]),
    (4, "float16", "int8", [*RFCRT, NONE]),
    (5, "float16", "uint8", [*RFCRT, NONE]),
    (6, "float16", "int16", RFCRT),
    (7, "float16", "int32", RFCRT),
    (8, "float16", "float32", [NONE]),
    (9, "bfloat16", "int32", RFCRT),
    (10, "bfloat16", "float32", [NONE]),
    (11, "int32", "int16", [NONE]),
    (13, "int32", "float32", [*RFCRT, NONE]),
    (14, "int32", "int64", [NONE]),
    (15, "float32", "int16", RFCRT),
    (16, "float32", "int32", RFCRT),
    (17, "float32", "int64", RFCRT),
    (18, "float32", "bfloat16", RFCRT),
    (19, "float32", "float32", RFCRT),
    (20, "float32", "float16", [*RFCRT, ODD, NONE]),
    (21, "int64", "int32", [NONE]),
    (22, "int64", "float32", RFCRT),
]
CASES = [(k, s, d, m) for (k, s, d, modes) in PAIRS for m in modes]


@pytest.mark.parametrize(
    ("kmode", "src", "dst", "rnd"),
    CASES,
    ids=[f"{s}-{d}-{MODE_NAMES[m]}" for (_, s, d, m) in CASES],
)
def test_cast_every_pair_and_mode_on_edge_values(
    lib: rt.KernelLibrary, kmode: int, src: str, dst: str, rnd: int
) -> None:
    """Cast / 精度转换: each value rounds as its mode says and saturates out of range."""
    if src == "bfloat16":
        values = [float(np.float32(v)) for v in source_values("float32")]
        values = [
            float(np.array([bf16_bits(v) << 16], np.uint32).view(np.float32)[0])
            if not math.isnan(v)
            else v
            for v in values
        ]
    else:
        values = source_values(src)
    if src == "bfloat16" or src.startswith("float"):
        values = [float(np.array([v], DT.get(src, np.float32))[0]) for v in values]
    n = (len(values) + 31) // 32 * 32
    values = values + [0] * (n - len(values))
    raw = run(lib, kmode, encode(values, src).tobytes(), rnd=rnd, n=n)
    got = decode(raw, dst, n)
    for i, v in enumerate(values):
        kind, want = expected_cast(v, src, dst, rnd)
        g = got[i]
        if kind == "nan":
            assert math.isnan(float(g)), (v, g)
        elif dst in ("float16", "float32", "bfloat16"):
            w = np.array([want], np.float32 if dst == "bfloat16" else DT[dst])
            assert w.tobytes() == np.array([g], w.dtype).tobytes(), (
                src,
                dst,
                MODE_NAMES[rnd],
                v,
                g,
                want,
            )
        else:
            assert int(g) == want, (src, dst, MODE_NAMES[rnd], v, int(g), want)


def test_cast_documented_examples(lib: rt.KernelLibrary) -> None:
    """精度转换: float -> float of 0.5 (CAST_CEIL and CAST_ROUND give 1.0), float -> half of
    0.5 + 2^-12 (CAST_CEIL/ROUND/ODD give 0.5 + 2^-11), float -> half overflow saturates."""
    x = np.array([0.5, -0.5, 70000.0, -np.inf, np.nan, 0.5 + 2.0**-12] + [0.0] * 26, np.float32)
    got = np.frombuffer(run(lib, 19, x.tobytes(), rnd=CEIL, n=32), np.float32)
    assert got[0] == 1.0 and got[1] == 0.0 and np.signbit(got[1])
    got = np.frombuffer(run(lib, 19, x.tobytes(), rnd=ROUND, n=32), np.float32)
    assert got[0] == 1.0 and got[1] == -1.0
    for mode in (CEIL, ROUND, ODD):
        h = np.frombuffer(run(lib, 20, x.tobytes(), rnd=mode, n=32), np.float16)
        assert h[5] == np.float16(0.5 + 2.0**-11)
        assert h[2] == np.float16(65504) and h[3] == np.float16(-65504) and h[4] == 0
    h = np.frombuffer(run(lib, 20, x.tobytes(), rnd=RINT, n=32), np.float16)
    assert h[5] == np.float16(0.5)


@pytest.mark.parametrize(
    ("kmode", "rnd", "text"),
    [
        (
            16,
            ODD,
            "Cast: CAST_ODD is not supported from float to int32_t (supported: CAST_RINT, "
            "CAST_FLOOR, CAST_CEIL, CAST_ROUND, CAST_TRUNC)",
        ),
        (19, NONE, "Cast: CAST_NONE is not supported from float to float"),
        (23, NONE, "Cast: no conversion from int32_t to int8_t on ascend910b"),
        (24, NONE, "Cast: no conversion from half to half on ascend910b"),
    ],
)
def test_cast_refuses_pairs_and_modes_the_reference_does_not_list(
    lib: rt.KernelLibrary, kmode: int, rnd: int, text: str
) -> None:
    with pytest.raises(rt.SimulatorError) as info:
        run(lib, kmode, b"", rnd=rnd, n=32)
    assert text in str(info.value)


# ---- reductions ---------------------------------------------------------------------------
def add16(a: Any, b: Any) -> Any:
    """One saturating float16 addition (ReduceDataBlock, figure 2: 60000 + 60000 gives 65504)."""
    s = np.float32(a) + np.float32(b)
    return np.float16(np.clip(s, -65504, 65504))


def add(a: Any, b: Any) -> Any:
    if isinstance(a, np.float16):
        return add16(a, b)
    return np.float32(np.float32(a) + np.float32(b))


def tree(vals: list[Any]) -> Any:
    """Binary tree of adjacent pairs (ReduceDataBlock, 关键特性说明)."""
    while len(vals) > 1:
        vals = [add(vals[2 * i], vals[2 * i + 1]) for i in range(len(vals) // 2)]
    return vals[0]


def reduce_sum_model(x: Any) -> Any:
    """ReduceSum count form, Atlas A2 (方式一): tree per repeat, repeats added in order."""
    lanes = 256 // x.itemsize
    total = None
    for r in range(0, len(x), lanes):
        part = list(x[r : r + lanes]) + [x.dtype.type(0)] * max(0, r + lanes - len(x))
        s = tree(part)
        total = s if total is None else add(total, s)
    return total


def test_reduce_sum_documented_example_is_finite(lib: rt.KernelLibrary) -> None:
    """ReduceDataBlock, figure 2: [60000, 60000, -30000, 100] -> 65504 + (-29900) = "35604".
    In float16 every step rounds: 60000 + 60000 saturates to 65504; -29900 is no float16 (the
    step there is 16) and becomes -29904; 65504 - 29904 = 35600 lies halfway between the float16
    neighbours 35584 and 35616 (step 32) and rounds to the even one, 35584."""
    x = np.zeros(128, np.float16)
    x[:4] = [60000, 60000, -30000, 100]
    got = np.frombuffer(run(lib, 40, x.tobytes(), n=4), np.float16)[0]
    assert got == np.float16(35584) == reduce_sum_model(x[:4])
    assert float(got) != 35604 and np.isfinite(got)


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
@pytest.mark.parametrize("n", [1, 7, 64, 128, 129, 300, 448, 512, 576, 1000, 1024, 4096])
def test_reduce_sum_follows_tree_then_sequential_order(
    lib: rt.KernelLibrary, dtype: Any, n: int
) -> None:
    v = RNG.standard_normal(n) * 10
    v[:: max(1, n // 5)] *= 300  # large and small magnitudes, so that the order shows
    x = v.astype(dtype)
    got = np.frombuffer(run(lib, 40 if dtype == np.float16 else 41, x.tobytes(), n=n), dtype)[0]
    want = reduce_sum_model(x)
    assert got.tobytes() == np.array([want], dtype).tobytes(), (
        got,
        want,
        x.astype(np.float64).sum(),
    )


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
def test_whole_reduce_sum_tree_per_repeat(lib: rt.KernelLibrary, dtype: Any) -> None:
    lanes = 256 // np.dtype(dtype).itemsize
    repeats, mask = 5, lanes - 3
    x = (RNG.standard_normal(lanes * repeats) * 1000).astype(dtype)
    got = np.frombuffer(
        run(lib, 42 if dtype == np.float16 else 43, x.tobytes(), a=mask, b=repeats), dtype
    )
    for r in range(repeats):
        row = list(x[r * lanes : r * lanes + mask]) + [dtype(0)] * (lanes - mask)
        assert got[r].tobytes() == np.array([tree(row)], dtype).tobytes()


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
def test_block_reduce_sum_per_block_and_inactive_blocks_keep_dst(
    lib: rt.KernelLibrary, dtype: Any
) -> None:
    lanes = 256 // np.dtype(dtype).itemsize
    blk = 32 // np.dtype(dtype).itemsize
    repeats, mask = 3, 3 * blk + 2  # blocks 0-2 whole, block 3 two lanes, blocks 4-7 none
    x = (RNG.standard_normal(lanes * repeats) * 1000).astype(dtype)
    init = np.full(8 * repeats, 7, dtype)
    got = np.frombuffer(
        run(
            lib,
            44 if dtype == np.float16 else 45,
            x.tobytes(),
            init=init.tobytes(),
            a=mask,
            b=repeats,
        ),
        dtype,
    )
    for r in range(repeats):
        for k in range(8):
            lane0 = r * lanes + k * blk
            active = max(0, min(blk, mask - k * blk))
            if active == 0:
                assert got[8 * r + k] == 7  # ReduceDataBlock, 约束说明: not written on Atlas A2
                continue
            vals = list(x[lane0 : lane0 + active]) + [dtype(0)] * (blk - active)
            assert got[8 * r + k].tobytes() == np.array([tree(vals)], dtype).tobytes()


def test_block_reduce_sum_saturates_as_in_the_documented_example(lib: rt.KernelLibrary) -> None:
    x = np.zeros(128, np.float16)
    x[:4] = [60000, 60000, -30000, 100]
    got = np.frombuffer(run(lib, 44, x.tobytes(), a=128, b=1), np.float16)
    assert got[0] == np.float16(35584)


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
def test_pair_reduce_sum(lib: rt.KernelLibrary, dtype: Any) -> None:
    lanes = 256 // np.dtype(dtype).itemsize
    repeats, mask = 4, lanes - 1  # the last pair has one lane: it adds 0
    x = (RNG.standard_normal(lanes * repeats) * 1000).astype(dtype)
    got = np.frombuffer(
        run(lib, 47 if dtype == np.float16 else 48, x.tobytes(), a=mask, b=repeats), dtype
    )
    for r in range(repeats):
        for k in range(lanes // 2):
            i = r * lanes + 2 * k
            b = x[i + 1] if 2 * k + 1 < mask else dtype(0)
            assert got[r * lanes // 2 + k].tobytes() == np.array([add(x[i], b)], dtype).tobytes()


def test_pair_reduce_sum_bit_mask_skips_pairs_with_no_active_lane(lib: rt.KernelLibrary) -> None:
    lo, hi = 0x0F0F0F0F0F0F0F0F, 0x00000000FFFF0000
    bits = [(lo >> i) & 1 for i in range(64)] + [(hi >> i) & 1 for i in range(64)]
    x = (RNG.standard_normal(256) * 100).astype(np.float16)
    init = np.full(128, -3, np.float16)
    got = np.frombuffer(run(lib, 49, x.tobytes(), init=init.tobytes(), b=2), np.float16)
    for r in range(2):
        for k in range(64):
            on0, on1 = bits[2 * k], bits[2 * k + 1]
            if not on0 and not on1:
                assert got[64 * r + k] == -3
                continue
            a = x[128 * r + 2 * k] if on0 else np.float16(0)
            b = x[128 * r + 2 * k + 1] if on1 else np.float16(0)
            assert got[64 * r + k] == add16(a, b)


# ---- integer instructions ---------------------------------------------------------------------
@pytest.mark.parametrize(
    ("kmode", "text"),
    [
        (
            50,
            "Div: int32_t is not supported on the simulated SoCs (the Ascend C reference "
            "lists half and float for Div",
        ),
        (51, "Div: int16_t is not supported on the simulated SoCs"),
        (53, "ReduceSum: int32_t is not supported on the simulated SoCs"),
    ],
)
def test_integer_div_and_reduce_are_refused_before_any_lane_runs(
    lib: rt.KernelLibrary, kmode: int, text: str
) -> None:
    """Div / ReduceSum, 数据类型: half and float only; a zero divisor never reaches a division."""
    with pytest.raises(rt.SimulatorError) as info:
        run(lib, kmode, np.zeros(256, np.int32).tobytes(), n=64)  # all divisors 0
    assert text in str(info.value)


def test_integer_add_wraps_around(lib: rt.KernelLibrary) -> None:
    x = np.zeros(128, np.int32)
    x[:64] = RNG.integers(-(2**31), 2**31, 64)
    x[64:] = RNG.integers(-(2**31), 2**31, 64)
    x[0], x[64] = 2**31 - 1, 1
    got = np.frombuffer(run(lib, 52, x.tobytes(), n=64), np.int32)[:64]
    want = (x[:64].astype(np.int64) + x[64:].astype(np.int64)).astype(np.int32)
    np.testing.assert_array_equal(got, want)
    assert got[0] == -(2**31)


# ---- NaN in the max/min reductions -----------------------------------------------------------
# "归约计算/ReduceMax", "ReduceMin", "ReduceRepeat" (WholeReduceMax/Min) and "ReduceDataBlock"
# (BlockReduceMax/Min) do not say what a NaN lane does. CANN's ops-math non_finite_check finds a
# NaN only through ReduceMax/ReduceMin returning it, so the simulator lets a NaN win: the result
# is NaN, and its index is the first NaN's.
def extreme_model(vals: np.ndarray, kind: str) -> tuple[float, int]:
    nan = np.flatnonzero(np.isnan(vals.astype(np.float32)))
    if len(nan):
        return math.nan, int(nan[0])
    i = int(np.argmax(vals) if kind == "max" else np.argmin(vals))
    return float(vals[i]), i


def index_of(raw: np.ndarray, dtype: Any) -> int:
    return int(raw.view(np.uint16 if dtype == np.float16 else np.uint32)[0])


@pytest.mark.parametrize(
    ("kmode", "dtype", "kind"),
    [
        (60, np.float16, "max"),
        (61, np.float32, "max"),
        (62, np.float16, "min"),
        (63, np.float32, "min"),
    ],
)
@pytest.mark.parametrize("n", [5, 64, 300, 4096])
def test_reduce_max_min_count_form_return_a_nan(
    lib: rt.KernelLibrary, kmode: int, dtype: Any, kind: str, n: int
) -> None:
    for nans in ([], [n - 1], [n // 2, 1], [0, n - 1]):
        x = (RNG.standard_normal(n) * 100).astype(dtype)
        x[n // 3] = np.inf if kind == "max" else -np.inf  # an infinity loses to a NaN
        for i in nans:
            x[i] = np.nan
        got = np.frombuffer(run(lib, kmode, x.tobytes(), n=n), dtype)
        value, index = extreme_model(x, kind)
        if math.isnan(value):
            assert np.isnan(got[0]), (nans, got[0])
        else:
            assert got[0] == value
        assert index_of(got[1:2], dtype) == index


def test_whole_reduce_max_nan_per_repeat(lib: rt.KernelLibrary) -> None:
    repeats, mask = 4, 60
    x = (RNG.standard_normal(64 * repeats) * 100).astype(np.float32)
    x[64 + 7] = x[64 + 30] = np.nan  # repeat 1: two NaNs, the first one's lane
    x[128 + 61] = np.nan  # repeat 2: a NaN in a masked-out lane does not count
    x[192 + 59] = np.nan  # repeat 3: the last active lane
    got = np.frombuffer(run(lib, 64, x.tobytes(), a=mask, b=repeats), np.float32)
    for r in range(repeats):
        value, lane = extreme_model(x[64 * r : 64 * r + mask], "max")
        assert (np.isnan(got[2 * r]) if math.isnan(value) else got[2 * r] == value), r
        assert index_of(got[2 * r + 1 : 2 * r + 2], np.float32) == lane


def test_whole_reduce_min_half_nan(lib: rt.KernelLibrary) -> None:
    x = (RNG.standard_normal(256) * 100).astype(np.float16)
    x[128 + 100] = np.nan
    got = np.frombuffer(run(lib, 65, x.tobytes(), a=128, b=2), np.float16)
    assert got[0] == x[:128].min() and index_of(got[1:2], np.float16) == int(np.argmin(x[:128]))
    assert np.isnan(got[2]) and index_of(got[3:4], np.float16) == 100


@pytest.mark.parametrize(
    ("kmode", "dtype", "kind"), [(66, np.float32, "max"), (67, np.float16, "min")]
)
def test_block_reduce_max_min_nan_per_block(
    lib: rt.KernelLibrary, kmode: int, dtype: Any, kind: str
) -> None:
    lanes = 256 // np.dtype(dtype).itemsize
    blk = 32 // np.dtype(dtype).itemsize
    x = (RNG.standard_normal(lanes * 2) * 100).astype(dtype)
    x[blk + 3] = np.nan
    x[lanes + 7 * blk] = np.nan
    got = np.frombuffer(run(lib, kmode, x.tobytes(), a=lanes, b=2), dtype)
    for k in range(16):
        value, _ = extreme_model(x[k * blk : (k + 1) * blk], kind)
        assert (np.isnan(got[k]) if math.isnan(value) else got[k] == value), k


@pytest.mark.parametrize(
    ("kmode", "dtype", "kind"), [(68, np.float32, "max"), (69, np.float16, "min")]
)
def test_reduce_max_min_mask_form_nan(
    lib: rt.KernelLibrary, kmode: int, dtype: Any, kind: str
) -> None:
    lanes = 256 // np.dtype(dtype).itemsize
    repeats = 3
    x = (RNG.standard_normal(lanes * repeats) * 100).astype(dtype)
    x[lanes + 5] = x[2 * lanes + 1] = np.nan
    got = np.frombuffer(run(lib, kmode, x.tobytes(), a=lanes, b=repeats), dtype)
    assert np.isnan(got[0])
    assert index_of(got[1:2], dtype) == lanes + 5
    x[lanes + 5] = x[2 * lanes + 1] = 0
    got = np.frombuffer(run(lib, kmode, x.tobytes(), a=lanes, b=repeats), dtype)
    value, index = extreme_model(x, kind)
    assert got[0] == value and index_of(got[1:2], dtype) == index
