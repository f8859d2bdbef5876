"""The mask/repeat (level-0) forms run their active lanes as runs of consecutive elements
(opgen_sim::ForRuns) on the count forms' SIMD lane functions. Their results must stay those of
the reference's lane-by-lane definition, repeat after repeat, lane after lane, reading what the
earlier lanes wrote: random masks (count, bits, counter mode), repeat and block strides
(including 0 and overlapping repeats), in-place and partly overlapping operands, for float,
half and int32_t, against a per-lane model in numpy."""

from __future__ import annotations

import struct
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import opgen_runtime as rt

from .exp_ref import expf

UB_ELEMS = 4096  # elements of the kernel's one UB buffer (and of its GM input and output)

KERNEL = r"""
#include "kernel_operator.h"
using namespace AscendC;

struct Level0Tiling {
    int32_t op;
    int32_t maskMode;  // 0: count mask, 1: bit mask, 2: counter mode
    uint64_t maskLo;
    uint64_t maskHi;
    int32_t repeat;
    int32_t dOff, aOff, bOff;
    int32_t dBlk, aBlk, bBlk;
    int32_t dRep, aRep, bRep;
    float scalar;
};
REGISTER_TILING_DEFAULT(Level0Tiling);

template <typename T>
__aicore__ inline void Run(const Level0Tiling& t, const LocalTensor<T>& d, const LocalTensor<T>& a,
                           const LocalTensor<T>& b, const uint64_t* bits, uint64_t count)
{
    const BinaryRepeatParams bp(t.dBlk, t.aBlk, t.bBlk, t.dRep, t.aRep, t.bRep);
    const UnaryRepeatParams up(t.dBlk, t.aBlk, t.dRep, t.aRep);
    const uint8_t rep = static_cast<uint8_t>(t.repeat);
    const T s = static_cast<T>(t.scalar);
    const bool useBits = t.maskMode == 1;
#define L0_BIN(NAME) (useBits ? NAME(d, a, b, bits, rep, bp) : NAME(d, a, b, count, rep, bp))
#define L0_SCA(NAME) (useBits ? NAME(d, a, s, bits, rep, up) : NAME(d, a, s, count, rep, up))
#define L0_UN(NAME) (useBits ? NAME(d, a, bits, rep, up) : NAME(d, a, count, rep, up))
    switch (t.op) {
        case 0: L0_BIN(Add); break;
        case 1: L0_BIN(Sub); break;
        case 2: L0_BIN(Mul); break;
        case 3: L0_BIN(Max); break;
        case 4: L0_BIN(Min); break;
        case 6: L0_SCA(Adds); break;
        case 7: L0_SCA(Muls); break;
        case 8: L0_SCA(Maxs); break;
        case 9: L0_SCA(Mins); break;
        case 11: L0_UN(Abs); break;
        case 12: L0_UN(Relu); break;
        case 15:
        {
            const uint16_t blk = static_cast<uint16_t>(t.dBlk);
            const uint8_t stride = static_cast<uint8_t>(t.dRep);
            if (useBits) Duplicate(d, s, bits, rep, blk, stride);
            else Duplicate(d, s, count, rep, blk, stride);
            break;
        }
        case 16: {
            const CopyRepeatParams cp(t.dBlk, t.aBlk, t.dRep, t.aRep);
            if (useBits) Copy(d, a, bits, rep, cp);
            else Copy(d, a, count, rep, cp);
            break;
        }
        default:
            if constexpr (!std::is_same_v<T, int32_t>) {
                switch (t.op) {
                    case 5: L0_BIN(Div); break;
                    case 10: L0_SCA(LeakyRelu); break;
                    case 13: L0_UN(Sqrt); break;
                    case 14: L0_UN(Exp); break;
                    case 17: L0_BIN(AddRelu); break;
                    case 18: L0_BIN(SubRelu); break;
                    default: break;
                }
            }
    }
#undef L0_BIN
#undef L0_SCA
#undef L0_UN
}

extern "C" __global__ __aicore__ void level0(GM_ADDR x, GM_ADDR z, GM_ADDR workspace,
                                             GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, UB_ELEMS * sizeof(DTYPE_X));
    GlobalTensor<DTYPE_X> xGm, zGm;
    xGm.SetGlobalBuffer((__gm__ DTYPE_X*)x, UB_ELEMS);
    zGm.SetGlobalBuffer((__gm__ DTYPE_X*)z, UB_ELEMS);
    LocalTensor<DTYPE_X> all = buf.Get<DTYPE_X>();
    DataCopy(all, xGm, UB_ELEMS);
    const uint64_t bits[2] = {t.maskLo, t.maskHi};
    uint64_t count = t.maskLo;
    if (t.maskMode == 2) {
        SetMaskCount();
        SetVectorMask<DTYPE_X, MaskMode::COUNTER>(0, t.maskLo);
    }
    Run<DTYPE_X>(t, all[t.dOff], all[t.aOff], all[t.bOff], bits, count);
    if (t.maskMode == 2) {
        SetMaskNorm();
        ResetMask();
    }
    DataCopy(zGm, all, UB_ELEMS);
}
""".replace("UB_ELEMS", str(UB_ELEMS))

BINARY = {0: "Add", 1: "Sub", 2: "Mul", 3: "Max", 4: "Min", 5: "Div", 17: "AddRelu", 18: "SubRelu"}
SCALAR = {6: "Adds", 7: "Muls", 8: "Maxs", 9: "Mins", 10: "LeakyRelu"}
UNARY = {11: "Abs", 12: "Relu", 13: "Sqrt", 14: "Exp", 15: "Duplicate", 16: "Copy"}
FLOAT_ONLY = {5, 10, 13, 14, 17, 18}
DTYPES = {"float": np.float32, "half": np.float16, "int32_t": np.int32}



@pytest.fixture(scope="module")
def libs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, rt.KernelLibrary]:
    src = Path(tmp_path_factory.mktemp("level0")) / "level0.cpp"
    src.write_text(KERNEL)
    return {name: rt.build_kernel(src, entry="level0", defines={"DTYPE_X": name})
            for name in DTYPES}


def _lane_fn(op: int, dtype: type, scalar: float) -> Callable[..., object]:
    """One lane as the reference defines it: in float for float and half, wrapping for int32."""
    if dtype is np.int32:
        wrap: dict[int, Callable[..., int]] = {
            0: lambda a, b: a + b, 1: lambda a, b: a - b, 2: lambda a, b: a * b,
            6: lambda a: a + int(scalar), 7: lambda a: a * int(scalar)}
        if op in wrap:
            f = wrap[op]
            return lambda *v: np.uint32(f(*(int(x) for x in v)) & 0xFFFFFFFF).view(np.int32)
    s = np.float32(scalar) if dtype is not np.int32 else np.int32(int(scalar))
    lanes: dict[int, Callable[..., object]] = {
        0: lambda a, b: a + b, 1: lambda a, b: a - b, 2: lambda a, b: a * b,
        3: lambda a, b: a if a > b else b, 4: lambda a, b: a if a < b else b,
        5: lambda a, b: a / b,
        6: lambda a: a + s, 7: lambda a: a * s, 8: lambda a: a if a > s else s,
        9: lambda a: a if a < s else s, 10: lambda a: a if a >= 0 else a * s,
        11: lambda a: -a if a < 0 else a + 0, 12: lambda a: a if a > 0 else type(a)(0),
        13: lambda a: np.sqrt(a), 14: lambda a: np.float32(expf(a)),
        15: lambda: s, 16: lambda a: a,
        17: lambda a, b: a + b if a + b > 0 else type(a)(0),  # (NaN and -0.0 give +0.0)
        18: lambda a, b: a - b if a - b > 0 else type(a)(0),
    }
    return lanes[op]


def _offset(r: int, lane: int, blk: int, rep: int, block: int) -> int:
    return r * rep * block + (lane // block) * blk * block + lane % block


def _model(ub: np.ndarray, p: dict[str, int | float], dtype: type) -> np.ndarray:
    """The call lane by lane, in order, each lane reading what earlier lanes wrote."""
    out = ub.copy()
    block = 32 // out.itemsize
    lanes = 256 // out.itemsize
    op = int(p["op"])
    f = _lane_fn(op, dtype, float(p["scalar"]))
    acc = np.float32 if dtype is not np.int32 else np.int32
    n_src = 2 if op in BINARY else (0 if op == 15 else 1)
    with np.errstate(all="ignore"):
        for r, lane in _active(p, lanes):
            src = [out[int(p[o + "Off"])
                       + _offset(r, lane, int(p[o + "Blk"]), int(p[o + "Rep"]), block)]
                   for o in ("a", "b")[:n_src]]
            v = f(*(acc(x) for x in src))
            out[int(p["dOff"]) + _offset(r, lane, int(p["dBlk"]), int(p["dRep"]), block)] = dtype(v)
    return out


def _active(p: dict[str, int | float], lanes: int) -> list[tuple[int, int]]:
    lo, hi = int(p["maskLo"]), int(p["maskHi"])
    if p["maskMode"] == 2 and p["op"] == 16:  # Copy: one long repeat, at the block strides
        return [(0, k) for k in range(lo)]
    if p["maskMode"] == 2:
        return [(k // lanes, k % lanes) for k in range(lo)]
    bits = (1 << lo) - 1 if p["maskMode"] == 0 else lo | (hi << 64)
    return [(r, lane) for r in range(int(p["repeat"])) for lane in range(lanes) if bits >> lane & 1]


def _fits(p: dict[str, int | float], itemsize: int) -> bool:
    block, lanes = 32 // itemsize, 256 // itemsize
    n_src = 2 if p["op"] in BINARY else (0 if p["op"] == 15 else 1)
    for name in ("d", "a", "b")[:1 + n_src]:
        reach = max((_offset(r, lane, int(p[name + "Blk"]), int(p[name + "Rep"]), block)
                     for r, lane in _active(p, lanes)), default=-1)
        if int(p[name + "Off"]) + reach >= UB_ELEMS:
            return False
    return bool(_active(p, lanes))


def _pack(p: dict[str, int | float]) -> bytes:
    return struct.pack("<iiQQiiiiiiiiiif4x", *(p[k] for k in (
        "op", "maskMode", "maskLo", "maskHi", "repeat", "dOff", "aOff", "bOff",
        "dBlk", "aBlk", "bBlk", "dRep", "aRep", "bRep", "scalar")))


def _run(lib: rt.KernelLibrary, dtype: type, p: dict[str, int | float], seed: int) -> None:
    rng = np.random.default_rng(seed)
    if dtype is np.int32:
        x0 = rng.integers(-2**31, 2**31, UB_ELEMS, dtype=np.int64).astype(np.int32)
    else:
        x0 = (rng.standard_normal(UB_ELEMS) * 4).astype(dtype)
        if p["op"] in (5, 13):  # Div and Sqrt: positive operands, no zero divisor
            x0 = (np.abs(x0) + dtype(0.5)).astype(dtype)
    x = rt.gm_empty(UB_ELEMS, dtype)
    x[...] = x0
    z = rt.gm_empty(UB_ELEMS, dtype)
    rt.launch(lib, "level0", {"x": x, "z": z}, block_dim=1, tiling=_pack(p))
    want = _model(x0, p, dtype)
    got = np.asarray(z)
    bad = np.flatnonzero(want.view(f"u{want.itemsize}") != got.view(f"u{got.itemsize}"))
    assert bad.size == 0, (f"{p}: {bad.size} elements differ, first at {bad[0]}: "
                           f"got {got[bad[0]]!r}, want {want[bad[0]]!r}")


_BLOCKS = {"float": 8, "half": 16, "int32_t": 8}


@st.composite
def _cases(draw: st.DrawFn, dtype_name: str) -> dict[str, int | float]:
    block = _BLOCKS[dtype_name]
    lanes = block * 8
    ops = [op for op in (*BINARY, *SCALAR, *UNARY)
           if dtype_name != "int32_t" or op not in FLOAT_ONLY | {3, 4, 8, 9, 11, 12}]
    op = draw(st.sampled_from(ops))
    mode = draw(st.sampled_from([0, 1, 2]))
    repeat = draw(st.integers(0 if mode == 2 else 1, 6))
    if mode == 0:
        lo, hi = draw(st.integers(1, lanes)), 0
    elif mode == 1:
        lo = draw(st.sampled_from([2**64 - 1, 0x5555555555555555, 0x00FF00FF00FF00FF,
                                   0xF0, 1, 2**63]) | st.integers(1, 2**64 - 1))
        hi = draw(st.integers(0, 2**64 - 1)) if lanes > 64 else 0
    else:
        lo, hi = draw(st.integers(1, lanes * 5)), 0
    scalar = draw(st.sampled_from([1.5, -0.25, 3.0]))
    p: dict[str, int | float] = {"op": op, "maskMode": mode, "maskLo": lo, "maskHi": hi,
                                 "repeat": repeat, "scalar": scalar}
    base = draw(st.integers(0, 16)) * block
    for name in ("d", "a", "b"):
        p[name + "Blk"] = draw(st.sampled_from([1, 1, 1, 0, 2, 3]))
        p[name + "Rep"] = draw(st.sampled_from([8, 8, 8, 0, 1, 4, 9, 16]))
        # the same start as dst, a start overlapping it, or far away
        p[name + "Off"] = draw(st.sampled_from([base, base + block, base + UB_ELEMS // 2]))
    if draw(st.booleans()):  # in place: every operand at dst's start with dst's strides
        for name in ("a", "b"):
            p[name + "Off"], p[name + "Blk"], p[name + "Rep"] = p["dOff"], p["dBlk"], p["dRep"]
    return p


def _settings(examples: int) -> Callable[[Callable[..., None]], Callable[..., None]]:
    return settings(max_examples=examples, derandomize=True, deadline=None, database=None,
                    suppress_health_check=list(HealthCheck), print_blob=False)


@pytest.mark.parametrize("dtype_name", list(DTYPES))
def test_level0_forms_match_the_lane_by_lane_definition(
        libs: dict[str, rt.KernelLibrary], dtype_name: str) -> None:
    dtype = DTYPES[dtype_name]
    ran = []

    @_settings(120)
    @given(_cases(dtype_name), st.integers(0, 2**31 - 1))
    def check(p: dict[str, int | float], seed: int) -> None:
        if not _fits(p, np.dtype(dtype).itemsize):
            return
        _run(libs[dtype_name], dtype, p, seed)
        ran.append(p)

    check()
    assert len(ran) >= 60, f"only {len(ran)} of the drawn calls fit the buffer"


@pytest.mark.parametrize("dtype_name", ["float", "half"])
@pytest.mark.parametrize("op", [0, 7, 14, 16])
def test_whole_calls_of_many_repeats(libs: dict[str, rt.KernelLibrary], dtype_name: str,
                                     op: int) -> None:
    """Every lane active, default strides: one run over all repeats (255 of them for half's
    128-lane repeats would pass the buffer, so as many as fit), in place and not."""
    dtype = DTYPES[dtype_name]
    lanes = 256 // np.dtype(dtype).itemsize
    repeats = UB_ELEMS // 2 // lanes
    for in_place in (False, True):
        p: dict[str, int | float] = {
            "op": op, "maskMode": 0, "maskLo": lanes, "maskHi": 0, "repeat": repeats,
            "scalar": 1.5, "dOff": 0, "aOff": 0 if in_place else UB_ELEMS // 2,
            "bOff": UB_ELEMS // 2, "dBlk": 1, "aBlk": 1, "bBlk": 1, "dRep": 8, "aRep": 8,
            "bRep": 8}
        _run(libs[dtype_name], dtype, p, 7)


# Operands the simulator runs a repeat at a time (one span of the first k lanes, a source of
# block stride 0 or above 1 gathered first, a dst of block stride above 1 spread): ops-nn's norms
# (a Brcb'd value per row at block stride 0, a gamma strip at repeat stride 0, rows 128 blocks
# apart, a row's next 64 floats added onto its first), and sources starting where dst starts at
# other strides or a little behind it in the same rows, which read what earlier lanes wrote and
# so must keep the lane-by-lane runs.
SPANS = [
    {"aBlk": 1, "aRep": 128 // 8, "bBlk": 0, "bRep": 1, "bOff": 3008},
    {"aBlk": 1, "aRep": 16, "bBlk": 1, "bRep": 0, "bOff": 3008},
    {"dBlk": 2, "aBlk": 3, "bBlk": 0, "bRep": 2, "aOff": 2048, "bOff": 3008},
    {"aBlk": 0, "aRep": 1, "aOff": 0},               # a: dst's start, block stride 0
    {"aBlk": 2, "aRep": 16, "aOff": 0},              # a: dst's start, block stride 2
    {"dBlk": 2, "dRep": 16, "aBlk": 1, "aOff": 0},   # dst spread over a read densely in place
    {"bBlk": 0, "bRep": 0, "bOff": 16},              # b: one block inside dst's first repeat
    # a in dst's rows (16 blocks apart), 64 elements on, 64 back, and 32 back: the last reads in
    # every repeat what dst's first lanes wrote (float and half), the second only for half
    {"aOff": 64},
    {"dOff": 64, "aOff": 0},
    {"dOff": 32, "aOff": 0},
]


@pytest.mark.parametrize("dtype_name", ["float", "half"])
@pytest.mark.parametrize("case", range(len(SPANS)))
@pytest.mark.parametrize("mask", ["all", "prefix"])
def test_repeat_spans_match_the_lane_by_lane_definition(
        libs: dict[str, rt.KernelLibrary], dtype_name: str, case: int, mask: str) -> None:
    dtype = DTYPES[dtype_name]
    lanes = 256 // np.dtype(dtype).itemsize
    p: dict[str, int | float] = {
        "op": 0, "maskMode": 0, "maskLo": lanes if mask == "all" else lanes - 13, "maskHi": 0,
        "repeat": 6, "scalar": 1.5, "dOff": 0, "aOff": 1024, "bOff": 2048,
        "dBlk": 1, "aBlk": 1, "bBlk": 1, "dRep": 16, "aRep": 16, "bRep": 16, **SPANS[case]}
    assert _fits(p, np.dtype(dtype).itemsize), p
    for op in (0, 2, 7, 14):  # Add, Mul, Muls, Exp
        _run(libs[dtype_name], dtype, {**p, "op": op}, 11 + case)


RELU16 = r"""
#include "kernel_operator.h"
using namespace AscendC;
extern "C" __global__ __aicore__ void relu16(GM_ADDR x, GM_ADDR z, GM_ADDR workspace,
                                             GM_ADDR tiling)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 3 * 256 * sizeof(int16_t));
    GlobalTensor<int16_t> xGm, zGm;
    xGm.SetGlobalBuffer((__gm__ int16_t*)x, 512);
    zGm.SetGlobalBuffer((__gm__ int16_t*)z, 512);
    LocalTensor<int16_t> a = buf.Get<int16_t>(), b = a[256], d = a[512];
    DataCopy(a, xGm, 256);
    DataCopy(b, xGm[256], 256);
    AddRelu(d, a, b, 256);
    DataCopy(zGm, d, 256);
    SubRelu(d, a, b, 256);
    DataCopy(zGm[256], d, 256);
}
"""


def test_int16_add_and_sub_relu_wrap_then_clip_at_zero(tmp_path: Path) -> None:
    """AddRelu/SubRelu on int16_t: the sum wraps as Add's does, then negatives become 0."""
    src = tmp_path / "relu16.cpp"
    src.write_text(RELU16)
    lib = rt.build_kernel(src, entry="relu16")
    rng = np.random.default_rng(9)
    x0 = rng.integers(-32768, 32768, 512).astype(np.int16)
    x = rt.gm_empty(512, np.int16)
    x[...] = x0
    z = rt.gm_empty(512, np.int16)
    rt.launch(lib, "relu16", {"x": x, "z": z}, block_dim=1, tiling=bytes(8))
    a, b = x0[:256].astype(np.int64), x0[256:].astype(np.int64)
    def wrap(v: np.ndarray) -> np.ndarray:
        return ((v + 32768) % 65536 - 32768).astype(np.int16)

    want = np.concatenate([np.maximum(wrap(a + b), 0), np.maximum(wrap(a - b), 0)])
    assert np.array_equal(np.asarray(z), want)
