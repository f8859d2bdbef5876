"""The host side of the advanced Matmul API (tiling/matmul_tiling.h): matmul_tiling's
MultiCoreMatmulTiling and MatmulApiTiling fill a TCubeTiling as asc-devkit's host algorithm
(impl/adv_api/tiling/matmul/matmul_tiling_algorithm.cpp) does, the split over cores and the base
blocks the samples' kernels hard-code offsets from; every plan GetTiling returns keeps the
reference page "TCubeTiling结构体"'s table 2; optiling::TCubeTiling serialises to the kernel
struct; and the header compiles in a plain host program, an op_host library and a single-source
.asc program."""

from __future__ import annotations

import random
import re
import subprocess
import sys
from pathlib import Path

import opgen_runtime as rt

from .conftest import run_host_program

# The 50 fields of TCubeTiling, in order: the kernel struct's (kernel_tiling/matmul_tiling_data.h).
FIELDS = tuple(re.findall(
    r"int32_t (\w+) = 0;",
    (rt.include_dir() / "kernel_tiling" / "matmul_tiling_data.h").read_text("utf-8")))

# The simulated A2 (Ascend910B) core: L1, L0A, L0B, L0C and the bias table in bytes.
L1, L0A, L0B, L0C, BIAS_TABLE = 512 * 1024, 64 * 1024, 64 * 1024, 128 * 1024, 1024
# matmul_tiling::DataType values and their bits
HALF, FLOAT, INT8, INT32, BF16 = 1, 0, 2, 3, 27
BITS = {HALF: 16, FLOAT: 32, INT8: 8, INT32: 32, BF16: 16}

PRELUDE = r"""
#include <cstdio>
#include <cstring>
#include "tiling/tiling_api.h"
#include "tiling/platform/platform_ascendc.h"
using namespace matmul_tiling;

// One configuration: the shape, the types (matmul_tiling::DataType values), the layout flags.
struct Case {
    const char* name;
    int dim, m, n, k, setShape, a, b, c, bias, biasType, transA, transB, fixM, fixN, fixK;
    int cPos, ub;
};

inline void Print(const char* name, long ret, const AscendC::tiling::TCubeTiling& t) {
    std::printf("%s %ld", name, ret);
#define OPGEN_PRINT(f) std::printf(" %d", t.f);
    OPGEN_TCUBE_TILING_FIELDS(OPGEN_PRINT)
    std::printf("\n");
}

inline long Plan(MatmulApiTilingBase& api, const Case& c, AscendC::tiling::TCubeTiling& t) {
    api.SetAType(TPosition::GM, CubeFormat::ND, static_cast<DataType>(c.a), c.transA != 0);
    api.SetBType(TPosition::GM, CubeFormat::ND, static_cast<DataType>(c.b), c.transB != 0);
    api.SetCType(static_cast<TPosition>(c.cPos), CubeFormat::ND, static_cast<DataType>(c.c));
    api.SetBiasType(TPosition::GM, CubeFormat::ND, static_cast<DataType>(c.biasType));
    api.SetOrgShape(c.m, c.n, c.k);
    if (c.setShape) api.SetShape(c.m, c.n, c.k);
    api.EnableBias(c.bias != 0);
    if (c.fixM || c.fixN || c.fixK) {
        api.SetFixSplit(c.fixM ? c.fixM : -1, c.fixN ? c.fixN : -1, c.fixK ? c.fixK : -1);
    }
    api.SetBufferSpace(-1, -1, c.ub);
    return api.GetTiling(t);
}

// dim 0 plans one core with MatmulApiTiling, else MultiCoreMatmulTiling over `dim` cores.
inline void Run(const Case& c) {
    auto* platform = platform_ascendc::PlatformAscendCManager::GetInstance();
    AscendC::tiling::TCubeTiling t;
    long ret = 0;
    if (c.dim == 0) {
        MatmulApiTiling api(*platform);
        ret = Plan(api, c, t);
    } else {
        MultiCoreMatmulTiling api(*platform);
        api.SetDim(c.dim);
        ret = Plan(api, c, t);
    }
    Print(c.name, ret, t);
}
"""


def case(name: str, dim: int, m: int, n: int, k: int, *, set_shape: bool = True,
         types: tuple[int, int, int] = (HALF, HALF, FLOAT), bias: int | None = None,
         trans: tuple[bool, bool] = (False, False), fix: tuple[int, int, int] = (0, 0, 0),
         c_pos: int = 0, ub: int = -1) -> str:
    """A C++ Case initialiser (bias: the bias type, None for no bias)."""
    vals = [dim, m, n, k, int(set_shape), *types, int(bias is not None),
            FLOAT if bias is None else bias, int(trans[0]), int(trans[1]), *fix, c_pos, ub]
    return '{"' + name + '", ' + ", ".join(str(v) for v in vals) + "}"


def run_cases(tmp_path: Path, cases: list[str]) -> dict[str, tuple[int, dict[str, int]]]:
    """GetTiling's return and fields for each case, by name."""
    source = (PRELUDE + "int main() {\n    const Case cases[] = {\n        "
              + ",\n        ".join(cases) + "};\n    for (const Case& c : cases) Run(c);\n}\n")
    out = run_host_program(tmp_path, source)
    got: dict[str, tuple[int, dict[str, int]]] = {}
    for line in out.stdout.splitlines():
        name, ret, *vals = line.split()
        got[name] = (int(ret), dict(zip(FIELDS, (int(v) for v in vals), strict=True)))
    return got


def tiling(m: int, n: int, k: int, **fields: int) -> dict[str, int]:
    """A whole TCubeTiling: the given fields, the shape, and the defaults GetTiling writes."""
    full = dict.fromkeys(FIELDS, 0)
    full.update(M=m, N=n, Ka=k, Kb=k, batchM=1, batchN=1, singleBatchM=1, singleBatchN=1,
                dbL0A=2, dbL0B=2, dbL0C=1)
    full.update(fields)
    return full


def test_the_samples_get_the_split_their_kernels_hard_code(tmp_path: Path) -> None:
    """asc-devkit's matmul_advanced_api.asc and matmul_leakyrelu_advanced_api.asc and the
    AlexWeiWGL samples' MatmulInvocationNeo. The three call SetShape, so the split is
    GetDims' (matmul_tiling_algorithm.cpp): over the splits of at most SetDim cores, in
    fractals of 16 rows (M, N) and 32 bytes (K), the first ones whose share keeps 16 fractals of
    N a core ("big package") are taken outright, then fewer L0 steps, more cores and a smaller
    GM load decide.

    advanced (M=N=512, K=128, 2 cores): splitting M leaves each core 16 x 32 fractals, N still
    32 >= 16, so it is taken; splitting N instead loads as much with the same cores and steps and
    is not: singleCoreM 256. The N-major base search fills L0C with 8 x 16 fractals (128 x 256)
    and takes K 4 fractals (64) in L0A/L0B's half: 8 x 4 and 16 x 4 of 64; A's and B's whole K
    (8 fractals, two base blocks) fit L1: depthA1 = depthB1 = 2 K steps x 2 blocks, single
    buffered; both held whole, the GM loads 256 + 512 tie and iterateOrder stays 0.

    leakyrelu (M=512, N=128, K=128, bias, SetFixSplit(128, 64, 128)): N is 8 fractals, under 16,
    so no split is a big package and each one with at most 2 cores is taken in the order walked
    (N outer): the last, N over 2 cores: singleCoreN 64. baseM/baseN are the fixed 128/64; baseK
    is searched (SetFixSplit.md supports only -1 for it) and is K's whole 8 fractals: 128. A
    (512 x 128) and B (128 x 64) fit L1 whole: stepM 4, depthA1 4, depthB1 1. L1 adds the bias
    row: 4 x 128 x 128 x 2 + 64 x 128 x 2 + 64 x 4 = 147712.

    MatmulInvocationNeo (M=512, N=1024, K=512, 2 cores, SetFixSplit(128, 256, -1)): neither A
    (32 x 32 fractals) nor B (64 x 32) fits L1 with the other's K; the load estimate of the
    unsplit and the M split is 288 fractals (A's K whole, B reloaded for 4 row groups), of the N
    split 320. The unsplit plan is a big package (N 64), the M split too (2 cores, N 64) and
    replaces it; the N split ties on cores and L0 steps (64) but loads more: M over 2 cores,
    singleCoreM 256, singleCoreN 1024. baseK: with 8 x 16 fixed, 8k and 16k fractals of L0A/L0B
    (64 each, double-buffered) allow k = 4: 64. L1: A held whole (A's 32 K fractals in 8 steps of
    4, two M blocks: depthA1 16) and B in steps of 8 fractals double-buffered (stepKb 2, depthB1
    4); only A's K is whole, so iterateOrder 1 (along N first)."""
    got = run_cases(tmp_path, [
        case("advanced", 2, 512, 512, 128),
        case("leaky", 2, 512, 128, 128, bias=FLOAT, fix=(128, 64, 128), c_pos=9,
             ub=192 * 1024 - 128 * 64 * 4),
        case("neo", 2, 512, 1024, 512, fix=(128, 256, 0)),
    ])
    assert got["advanced"] == (0, tiling(
        512, 512, 128, usedCoreNum=2, singleCoreM=256, singleCoreN=512, singleCoreK=128, baseM=128,
        baseN=256, baseK=64, depthA1=4, depthB1=4, stepM=2, stepN=2, stepKa=2, stepKb=2,
        shareL1Size=196608, shareL0CSize=131072))
    assert got["leaky"] == (0, tiling(
        512, 128, 128, usedCoreNum=2, singleCoreM=512, singleCoreN=64, singleCoreK=128,
        baseM=128, baseN=64, baseK=128, depthA1=4, depthB1=1, stepM=4, stepN=1, stepKa=1,
        stepKb=1, isBias=1, shareL1Size=147712, shareL0CSize=32768))
    assert got["neo"] == (0, tiling(
        512, 1024, 512, usedCoreNum=2, singleCoreM=256, singleCoreN=1024, singleCoreK=512,
        baseM=128, baseN=256, baseK=64, depthA1=16, depthB1=4, stepM=2, stepN=1, stepKa=8,
        stepKb=2, iterateOrder=1, shareL1Size=393216, shareL0CSize=131072))
    # the leakyrelu kernel's loop: singleCoreM / baseM Iterate calls of a baseN = singleCoreN
    leaky = got["leaky"][1]
    assert leaky["singleCoreM"] // leaky["baseM"] == 4 and leaky["baseN"] == leaky["singleCoreN"]


def test_other_shapes_types_and_layouts(tmp_path: Path) -> None:
    """The values of asc-devkit's algorithm for a tail shape, transposed A and B, int8 with an
    int32 C and bias, bf16 with a float bias, a fixed baseM/baseN, one core and no SetShape.

    tail (M=500, N=300 over 4 cores): M (32 fractals) goes over the 4 cores; a core's share is
    the fractal-rounded shape split evenly, 128 x 304 (the kernel's SetTail clips the last core
    and the 4 columns past N). transposed: the N-major search keeps 12 fractals of N (192, a
    divisor of the core's 48) under 8 of M. int8: K's unit is 32 bytes = 32 elements, baseK 128
    is 4 of them. fixed: SetFixSplit(64, 128) is kept; K 256 is whole in L0 (baseK 128 x 2).
    No SetShape: the A2's split of all 8 cores by compute intensity (MultiCoreBasicBlock's
    128 x 256 x 64 block), 4 x 2 cores."""
    got = run_cases(tmp_path, [
        case("tail", 4, 500, 300, 200),
        case("transposed", 8, 1024, 768, 512, trans=(True, True)),
        case("int8", 4, 256, 512, 1024, types=(INT8, INT8, INT32), bias=INT32),
        case("bf16", 2, 333, 250, 700, types=(BF16, BF16, FLOAT), bias=FLOAT),
        case("fixed", 4, 1024, 1024, 256, fix=(64, 128, 0)),
        case("onecore", 0, 128, 256, 512),
        case("noshape", 8, 1024, 2048, 512, set_shape=False),
        case("float", 2, 256, 256, 100, types=(FLOAT, FLOAT, FLOAT)),
    ])
    want = {
        "tail": tiling(500, 300, 200, usedCoreNum=4, singleCoreM=128, singleCoreN=304,
                       singleCoreK=200, baseM=128, baseN=256, baseK=64, depthA1=4, depthB1=8,
                       stepM=1, stepN=2, stepKa=4, stepKb=4, shareL1Size=327680,
                       shareL0CSize=131072),
        "transposed": tiling(1024, 768, 512, usedCoreNum=8, singleCoreM=512, singleCoreN=192,
                             singleCoreK=512, baseM=128, baseN=192, baseK=64, depthA1=4,
                             depthB1=8, stepM=1, stepN=1, stepKa=2, stepKb=8,
                             shareL1Size=262144, shareL0CSize=98304),
        "int8": tiling(256, 512, 1024, usedCoreNum=4, singleCoreM=128, singleCoreN=256,
                       singleCoreK=1024, baseM=128, baseN=256, baseK=128, depthA1=8, depthB1=4,
                       stepM=1, stepN=1, stepKa=8, stepKb=2, isBias=1, iterateOrder=1,
                       shareL1Size=263168, shareL0CSize=131072),
        "bf16": tiling(333, 250, 700, usedCoreNum=2, singleCoreM=168, singleCoreN=256,
                       singleCoreK=700, baseM=128, baseN=256, baseK=64, depthA1=2, depthB1=11,
                       stepM=1, stepN=1, stepKa=1, stepKb=11, isBias=1, shareL1Size=394240,
                       shareL0CSize=131072),
        "fixed": tiling(1024, 1024, 256, usedCoreNum=4, singleCoreM=512, singleCoreN=512,
                        singleCoreK=256, baseM=64, baseN=128, baseK=128, depthA1=16, depthB1=8,
                        stepM=8, stepN=4, stepKa=2, stepKb=2, shareL1Size=524288,
                        shareL0CSize=32768),
        "onecore": tiling(128, 256, 512, usedCoreNum=1, singleCoreM=128, singleCoreN=256,
                          singleCoreK=512, baseM=128, baseN=256, baseK=64, depthA1=8, depthB1=8,
                          stepM=1, stepN=1, stepKa=8, stepKb=8, shareL1Size=393216,
                          shareL0CSize=131072),
        "noshape": tiling(1024, 2048, 512, usedCoreNum=8, singleCoreM=256, singleCoreN=1024,
                          singleCoreK=512, baseM=128, baseN=256, baseK=64, depthA1=16, depthB1=8,
                          stepM=1, stepN=1, stepKa=8, stepKb=4, iterateOrder=1,
                          shareL1Size=524288, shareL0CSize=131072),
        "float": tiling(256, 256, 100, usedCoreNum=2, singleCoreM=128, singleCoreN=256,
                        singleCoreK=100, baseM=128, baseN=256, baseK=32, depthA1=4, depthB1=4,
                        stepM=1, stepN=1, stepKa=4, stepKb=4, shareL1Size=196608,
                        shareL0CSize=131072),
    }
    ab = {"int8": (INT8, INT8), "bf16": (BF16, BF16), "float": (FLOAT, FLOAT)}
    for name, fields in want.items():
        assert got[name] == (0, fields), name
        assert_table2(fields, ab.get(name, (HALF, HALF)), bias=name in ("int8", "bf16"))


def assert_table2(t: dict[str, int], ab: tuple[int, int], bias: bool,
                  bias_bits: int = 32) -> None:
    """TCubeTiling结构体's table 2 for the simulated A2 (its "<" taken as "<=": the page's own
    recommended 128 x 256 x 64 block fills L0C exactly), and the cores covering C."""
    a_bits, b_bits = BITS[ab[0]], BITS[ab[1]]
    c0 = 256 // a_bits  # A's elements in 32 bytes
    bm, bn, bk = t["baseM"], t["baseN"], t["baseK"]
    assert bm % 16 == 0 and bn % 16 == 0 and bk % c0 == 0, t
    assert bm * bk * a_bits // 8 * t["dbL0A"] <= L0A, t
    assert bn * bk * b_bits // 8 * t["dbL0B"] <= L0B, t
    assert bm * bn * 4 * t["dbL0C"] <= L0C, t
    if bias:
        assert bn * bias_bits // 8 <= BIAS_TABLE, t
    for depth, steps in ((t["depthA1"], t["stepM"] * t["stepKa"]),
                         (t["depthB1"], t["stepN"] * t["stepKb"])):
        assert steps > 0 and depth in (steps, 2 * steps), t
    l1 = (t["depthA1"] * bm * bk * a_bits // 8 + t["depthB1"] * bn * bk * b_bits // 8
          + (bn * bias_bits // 8 if bias else 0))
    assert t["shareL1Size"] == l1 <= L1, t
    assert t["dbL0A"] in (1, 2) and t["dbL0B"] in (1, 2) and t["dbL0C"] in (1, 2), t
    assert t["iterateOrder"] in (0, 1) and t["isBias"] == int(bias), t
    cores_m = -(-t["M"] // t["singleCoreM"])
    cores_n = -(-t["N"] // t["singleCoreN"])
    assert cores_m * cores_n <= t["usedCoreNum"] and t["singleCoreK"] == t["Ka"], t


def test_every_plan_keeps_the_reference_constraints(tmp_path: Path) -> None:
    """Several hundred shapes, types, layouts and core counts: each plan GetTiling returns keeps
    table 2 of TCubeTiling结构体 and covers C. Only a SetFixSplit is refused: a fixed base the
    search cannot place (CANN's algorithm fails there too), or one CANN's algorithm would plan
    beyond the table (a baseM over 128 rows with the A2's 256-column block of the split without
    SetShape, which overflows L0C)."""
    rng = random.Random(7)
    type_sets = [(HALF, HALF, FLOAT), (BF16, BF16, FLOAT), (INT8, INT8, INT32),
                 (FLOAT, FLOAT, FLOAT), (HALF, HALF, HALF)]
    cases: list[str] = []
    meta: dict[str, tuple[tuple[int, int, int], bool, int, bool]] = {}
    for i in range(400):
        types = rng.choice(type_sets)
        dim = rng.choice([0, 1, 2, 4, 8, 20, 24, 48])
        m, n, k = (rng.choice([rng.randint(1, 600), rng.randint(1, 5000),
                               rng.choice([16, 128, 256, 1024])]) for _ in range(3))
        bias = rng.random() < 0.5
        fix = (16 * rng.randint(1, 16) if rng.random() < 0.3 else 0,
               16 * rng.randint(1, 16) if rng.random() < 0.3 else 0, 0)
        name = f"c{i}"
        bias_type = INT32 if types[2] == INT32 else FLOAT
        cases.append(case(name, dim, m, n, k, set_shape=rng.random() < 0.8, types=types,
                          bias=bias_type if bias else None,
                          trans=(rng.random() < 0.3, rng.random() < 0.3), fix=fix))
        meta[name] = (types, bias, dim, fix != (0, 0, 0))
    got = run_cases(tmp_path, cases)
    planned = 0
    for name, (ret, fields) in got.items():
        types, bias, dim, fixed = meta[name]
        if ret == -1:
            assert fixed, name
            continue
        planned += 1
        assert ret == 0
        assert_table2(fields, (types[0], types[1]), bias)
        assert fields["usedCoreNum"] <= max(dim, 1)
    assert planned > 300


ERRORS_CPP = r"""
int main() {
    auto* platform = platform_ascendc::PlatformAscendCManager::GetInstance();
    AscendC::tiling::TCubeTiling t;
    t.usedCoreNum = 77;
    {   // baseM * baseK of half: 256 x 256 x 2 bytes, twice L0A
        MultiCoreMatmulTiling api(*platform);
        api.SetDim(2);
        api.SetAType(TPosition::GM, CubeFormat::ND, DataType::DT_FLOAT16);
        api.SetBType(TPosition::GM, CubeFormat::ND, DataType::DT_FLOAT16);
        api.SetCType(TPosition::GM, CubeFormat::ND, DataType::DT_FLOAT);
        api.SetShape(1024, 1024, 1024);
        std::printf("fix %d\n", api.SetFixSplit(256, 128, 256));
        std::printf("l0a %ld %d\n", api.GetTiling(t), t.usedCoreNum);
    }
    {   // a fixed baseM past one core's M (SetFixSplit.md: at most 16 here)
        MatmulApiTiling api(*platform);
        api.SetAType(TPosition::GM, CubeFormat::ND, DataType::DT_FLOAT16);
        api.SetBType(TPosition::GM, CubeFormat::ND, DataType::DT_FLOAT16);
        api.SetCType(TPosition::GM, CubeFormat::ND, DataType::DT_FLOAT);
        api.SetShape(12, 256, 256);
        api.SetFixSplit(128, -1, -1);
        std::printf("past %ld\n", api.GetTiling(t));
    }
    {   // bad settings: a base not a multiple of 16, a buffer past the core's, MX mode
        MultiCoreMatmulTiling api(*platform);
        std::printf("set %d %d\n", api.SetFixSplit(100, -1, -1),
                    api.SetBufferSpace(1024 * 1024, -1, -1));
        api.SetDim(1);
        api.SetShape(64, 64, 64);
        api.SetMadType(MatrixMadType::MXMODE);
        std::printf("mx %ld\n", api.GetTiling(t));
    }
    {   // nothing to plan
        MultiCoreMatmulTiling api(*platform);
        api.SetDim(4);
        std::printf("empty %ld\n", api.GetTiling(t));
    }
}
"""


def test_requests_that_cannot_be_met_return_minus_one_and_say_why(tmp_path: Path) -> None:
    """CheckSetParam's L0A check of a fixed baseM * baseK (SetFixSplit keeps a valid baseK for
    it), a fixed baseM no base-block search can place, out-of-range settings, a mode the
    simulator does not model, an unset shape: -1, the output untouched, and an error naming
    the call and the reason."""
    out = run_host_program(tmp_path, PRELUDE + ERRORS_CPP)
    lines = out.stdout.splitlines()
    assert lines[0] == "fix 0"
    assert lines[1] == "l0a -1 77"
    assert lines[2] == "past -1"
    assert lines[3] == "set -1 -1"
    assert lines[4] == "mx -1"
    assert lines[5] == "empty -1"
    err = out.stderr
    assert ("[ERROR][opgen][tiling] MultiCoreMatmulTiling::GetTiling: baseM 256 * baseK 256 of A "
            "(131072 bytes) is larger than L0A (65536 bytes); cannot deduce a tiling") in err
    assert ("MatmulApiTiling::GetTiling: no base block fits L0A/L0B/L0C for one core's 16 x 256 "
            "of C with SetFixSplit(128, -1): a base block stays within one core's M and N "
            "(rounded up to 16) and L0C") in err
    assert "SetFixSplit: baseM 100 is not a multiple of 16" in err
    assert "SetBufferSpace: l1Size 1048576 is out of range: -1 (keep) or 0 to 524288 bytes" in err
    assert "MatrixMadType::MXMODE (MxMatmul) is not modelled by the simulator" in err
    assert "the shape is not set or is empty (M -1, N -1, K -1)" in err


SAVE_CPP = r"""
// The KernelLaunch samples' host code: the tiling serialised with GetDataSize/SaveToBuffer and
// read back as the kernel's struct word by word.
uint8_t* GetTilingBuf(optiling::TCubeTiling* tilingData) {
    uint32_t tilingSize = tilingData->GetDataSize();
    uint8_t* buf = (uint8_t*)malloc(tilingSize);
    tilingData->SaveToBuffer(buf, tilingSize);
    return buf;
}

int main() {
    auto* platform = platform_ascendc::PlatformAscendCManager::GetInstance("Ascend910B1");
    MultiCoreMatmulTiling api(*platform);
    api.SetDim(2);
    api.SetAType(TPosition::GM, CubeFormat::ND, DataType::DT_FLOAT16, false);
    api.SetBType(TPosition::GM, CubeFormat::ND, DataType::DT_FLOAT16, false);
    api.SetCType(TPosition::GM, CubeFormat::ND, DataType::DT_FLOAT);
    api.SetBiasType(TPosition::GM, CubeFormat::ND, DataType::DT_FLOAT);
    api.SetOrgShape(512, 1024, 512);
    api.SetShape(512, 1024, 512);
    api.SetFixSplit(128, 128, -1);
    api.SetBias(true);
    api.SetBufferSpace(-1, -1, -1);
    optiling::TCubeTiling host;
    AscendC::tiling::TCubeTiling direct;
    const long r1 = api.GetTiling(host);
    const long r2 = api.GetTiling(direct);
    uint8_t* buf = GetTilingBuf(&host);
    TCubeTiling kernel;
    std::memcpy(&kernel, buf, sizeof(kernel));
    int same = 1;
#define OPGEN_SAME(f) same &= kernel.f == host.get_##f() && kernel.f == direct.f;
    OPGEN_TCUBE_TILING_FIELDS(OPGEN_SAME)
    std::printf("%ld %ld %zu %zu %d %d\n", r1, r2, host.GetDataSize(), sizeof(TCubeTiling), same,
                std::memcmp(&kernel, &direct, sizeof(kernel)) == 0);
    int32_t dim = 0, mDim = 0, nDim = 0, sm = 0, sn = 0, sk = 0;
    api.GetCoreNum(dim, mDim, nDim);
    api.GetSingleShape(sm, sn, sk);
    std::printf("%d %d %d %d %d %d %d %d %d\n", dim, mDim, nDim, sm, sn, sk, api.GetBaseM(),
                api.GetBaseN(), api.GetBaseK());
    free(buf);
}
"""


def test_savetobuffer_writes_the_kernel_struct(tmp_path: Path) -> None:
    """optiling::TCubeTiling's 50 int32_t fields serialise to AscendC::tiling::TCubeTiling's
    bytes (GetDataSize 200, its size), equal to the kernel-struct form of GetTiling; GetCoreNum,
    GetSingleShape and GetBaseM/N/K report the plan (a MatmulCustom FrameworkLaunch shape)."""
    assert len(FIELDS) == 50
    out = run_host_program(tmp_path, PRELUDE + SAVE_CPP)
    lines = out.stdout.splitlines()
    assert lines[0] == "0 0 200 200 1 1"
    assert lines[1] == "2 2 1 256 1024 512 128 128 128"


OP_HOST_CPP = r"""
#include <cstdio>
#include <cstring>
#include "register/tilingdata_base.h"
#include "tiling/tiling_api.h"
#include "tiling/platform/platform_ascendc.h"
using namespace matmul_tiling;

// The FrameworkLaunch samples' tiling header: the TCubeTiling nested in the op's class.
namespace optiling {
BEGIN_TILING_DATA_DEF(MatmulCustomTilingData)
TILING_DATA_FIELD_DEF_STRUCT(TCubeTiling, cubeTilingData);
TILING_DATA_FIELD_DEF(uint32_t, tail);
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(MatmulCustom, MatmulCustomTilingData)
}  // namespace optiling

int main() {
    auto ascendcPlatform = platform_ascendc::PlatformAscendC(nullptr);
    MultiCoreMatmulTiling cubeTiling(ascendcPlatform);
    cubeTiling.SetDim(2);
    cubeTiling.SetAType(TPosition::GM, CubeFormat::ND, matmul_tiling::DataType::DT_FLOAT16);
    cubeTiling.SetBType(TPosition::GM, CubeFormat::ND, matmul_tiling::DataType::DT_FLOAT16);
    cubeTiling.SetCType(TPosition::GM, CubeFormat::ND, matmul_tiling::DataType::DT_FLOAT);
    cubeTiling.SetBiasType(TPosition::GM, CubeFormat::ND, matmul_tiling::DataType::DT_FLOAT);
    cubeTiling.SetShape(512, 1024, 512);
    cubeTiling.SetOrgShape(512, 1024, 512);
    cubeTiling.SetFixSplit(128, 128, -1);
    cubeTiling.SetBias(true);
    cubeTiling.SetBufferSpace(-1, -1, -1);
    optiling::MatmulCustomTilingData tiling;
    tiling.set_tail(7);
    const long ret = cubeTiling.GetTiling(tiling.cubeTilingData);
    uint8_t buf[512] = {0};
    tiling.SaveToBuffer(buf, sizeof(buf));
    AscendC::tiling::TCubeTiling kernel;
    std::memcpy(&kernel, buf, sizeof(kernel));
    uint32_t tail = 0;
    std::memcpy(&tail, buf + sizeof(kernel), sizeof(tail));
    std::printf("%ld %zu %d %d %d %d %u\n", ret, tiling.GetDataSize(), kernel.singleCoreM,
                kernel.singleCoreN, kernel.baseN, kernel.isBias, tail);
}
"""


def test_an_op_host_nests_the_tiling_in_its_class(tmp_path: Path) -> None:
    """An op_host translation unit (OPGEN_OP_HOST, register/tilingdata_base.h), as the
    FrameworkLaunch MatmulCustom sample writes it: GetTiling fills the nested TCubeTiling in
    place, which serialises at the start of the op's tiling, the next field after its 200
    bytes."""
    src = tmp_path / "op_host.cpp"
    src.write_text(OP_HOST_CPP)
    exe = tmp_path / "op_host"
    subprocess.run(["g++", "-std=c++17", "-Wall", "-Werror", "-O2", "-DOPGEN_OP_HOST=1",
                    f"-I{rt.include_dir()}", str(src), "-o", str(exe)], check=True)
    out = subprocess.run([str(exe)], check=True, capture_output=True, text=True)
    assert out.stdout.split() == ["0", "208", "256", "1024", "128", "1", "7"]


ASC = r"""
#include <cstdio>
#include "kernel_tiling/kernel_tiling.h"
#include "tiling/platform/platform_ascendc.h"
#include "tiling/tiling_api.h"
#include "acl/acl.h"
#include "kernel_operator.h"

__global__ __vector__ void read_tiling(GM_ADDR out, AscendC::tiling::TCubeTiling tiling)
{
    AscendC::GlobalTensor<int32_t> g;
    g.SetGlobalBuffer(reinterpret_cast<__gm__ int32_t*>(out), 8);
    g.SetValue(AscendC::GetBlockIdx(), AscendC::GetBlockIdx() * tiling.singleCoreN);
}

AscendC::tiling::TCubeTiling GenerateTiling(platform_ascendc::PlatformAscendC* ascendcPlatform)
{
    matmul_tiling::MultiCoreMatmulTiling tilingApi(*ascendcPlatform);
    tilingApi.SetDim(2);
    tilingApi.SetAType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND,
                       matmul_tiling::DataType::DT_FLOAT16, false);
    tilingApi.SetBType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND,
                       matmul_tiling::DataType::DT_FLOAT16, false);
    tilingApi.SetCType(matmul_tiling::TPosition::VECIN, matmul_tiling::CubeFormat::ND,
                       matmul_tiling::DataType::DT_FLOAT);
    tilingApi.SetBiasType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND,
                          matmul_tiling::DataType::DT_FLOAT);
    tilingApi.SetOrgShape(512, 128, 128);
    tilingApi.SetShape(512, 128, 128);
    tilingApi.EnableBias(true);
    tilingApi.SetFixSplit(128, 64, 128);
    uint64_t ubSize = 0;
    ascendcPlatform->GetCoreMemSize(platform_ascendc::CoreMemType::UB, ubSize);
    tilingApi.SetBufferSpace(-1, -1, ubSize - 128 * 64 * sizeof(float));
    AscendC::tiling::TCubeTiling tilingData;
    if (tilingApi.GetTiling(tilingData) == -1) std::printf("gen tiling failed\n");
    optiling::TCubeTiling host;
    tilingApi.GetTiling(host);
    AscendC::tiling::TCubeTiling saved;
    host.SaveToBuffer(&saved, sizeof(saved));
    std::printf("saved %d %zu\n", std::memcmp(&saved, &tilingData, sizeof(saved)) == 0,
                host.GetDataSize());
    return tilingData;
}

int main()
{
    auto ascendcPlatform = platform_ascendc::PlatformAscendCManager::GetInstance();
    auto tiling = GenerateTiling(ascendcPlatform);
    std::printf("tiling %d %d %d %d %d\n", tiling.usedCoreNum, tiling.singleCoreM,
                tiling.singleCoreN, tiling.baseM, tiling.baseN);
    aclInit(nullptr);
    aclrtSetDevice(0);
    void* out = nullptr;
    aclrtMalloc(&out, 32, ACL_MEM_MALLOC_HUGE_FIRST);
    read_tiling<<<tiling.usedCoreNum, nullptr, nullptr>>>(reinterpret_cast<GM_ADDR>(out), tiling);
    int32_t offsets[8] = {0};
    aclrtMemcpy(offsets, sizeof(offsets), out, 32, ACL_MEMCPY_DEVICE_TO_HOST);
    std::printf("offsets %d %d\n", offsets[0], offsets[1]);
    aclrtFree(out);
    aclFinalize();
}
"""


def test_a_single_source_program_plans_and_passes_the_tiling(tmp_path: Path) -> None:
    """A single-source .asc program (OPGEN_ASC_SOURCE: the tiling classes are the kernel's
    structs), as asc-devkit's matmul_leakyrelu_advanced_api.asc generates its tiling: the kernel
    gets it by value and each core computes its N offset from singleCoreN."""
    src = tmp_path / "tiling.asc"
    src.write_text(ASC)
    run = subprocess.run([sys.executable, "-m", "opgen", "run", str(src)], cwd=tmp_path,
                         capture_output=True, text=True, check=False, timeout=600)
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines() == ["saved 1 200", "tiling 2 512 64 128 64", "offsets 0 64"]


def test_the_default_constructor_takes_the_a2_figures(tmp_path: Path) -> None:
    """Without a platform the tiling plans for CANN's A2 defaults (L1 and UB less 256 reserved
    bytes): a 512 KiB L1 budget is past that L1 and is refused."""
    out = run_host_program(tmp_path, PRELUDE + r"""
int main() {
    MultiCoreMatmulTiling a;
    MatmulApiTiling b;
    std::printf("%d %d\n", a.SetBufferSpace(512 * 1024, -1, -1),
                b.SetBufferSpace(512 * 1024 - 256, -1, 192 * 1024 - 256));
}
""")
    assert out.stdout.split() == ["-1", "0"]


BATCH_CPP = r"""
int main() {
    auto* platform = platform_ascendc::PlatformAscendCManager::GetInstance();
    // BatchMatmulTiling: one core, CANN's single-core plan, the layouts and batch count kept
    BatchMatmulTiling bmm(*platform);
    bmm.SetAType(TPosition::GM, CubeFormat::ND, DataType::DT_FLOAT16);
    bmm.SetBType(TPosition::GM, CubeFormat::ND, DataType::DT_FLOAT16);
    bmm.SetCType(TPosition::GM, CubeFormat::ND, DataType::DT_FLOAT);
    bmm.SetBiasType(TPosition::GM, CubeFormat::ND, DataType::DT_FLOAT);
    bmm.SetOrgShape(64, 128, 96);
    bmm.SetShape(64, 128, 96);
    bmm.SetBufferSpace(-1, -1, -1);
    bmm.SetBatchInfoForNormal(2, 4, 64, 128, 96);
    bmm.SetBatchNum(4);
    AscendC::tiling::TCubeTiling t;
    long ret = bmm.GetTiling(t);
    int dim = 0, mDim = 0, nDim = 0, bm = 0, bn = 0;
    bmm.GetCoreNum(dim, mDim, nDim, bm, bn);
    std::printf("bmm %ld %d %d %d %d %d %d %d | %d %d %d %d %d | %d %d %d %d %d | "
                "%d %d %d %d %d | %d\n", ret, t.usedCoreNum, t.singleCoreM, t.singleCoreN,
                t.singleCoreK, dim, mDim, nDim,
                t.ALayoutInfoB, t.ALayoutInfoS, t.ALayoutInfoN, t.ALayoutInfoG, t.ALayoutInfoD,
                t.BLayoutInfoB, t.BLayoutInfoS, t.BLayoutInfoN, t.BLayoutInfoG, t.BLayoutInfoD,
                t.CLayoutInfoB, t.CLayoutInfoS1, t.CLayoutInfoN, t.CLayoutInfoG, t.CLayoutInfoS2,
                t.BatchNum);
    // the same request through MatmulApiTiling plans the same blocks
    MatmulApiTiling one(*platform);
    one.SetAType(TPosition::GM, CubeFormat::ND, DataType::DT_FLOAT16);
    one.SetBType(TPosition::GM, CubeFormat::ND, DataType::DT_FLOAT16);
    one.SetCType(TPosition::GM, CubeFormat::ND, DataType::DT_FLOAT);
    one.SetBiasType(TPosition::GM, CubeFormat::ND, DataType::DT_FLOAT);
    one.SetOrgShape(64, 128, 96);
    one.SetShape(64, 128, 96);
    one.SetBufferSpace(-1, -1, -1);
    one.SetBatchInfoForNormal(2, 4, 64, 128, 96);
    one.SetBatchNum(4);
    AscendC::tiling::TCubeTiling u;
    one.GetTiling(u);
    std::printf("same %d\n", std::memcmp(&t, &u, sizeof(t)) == 0 ? 1 : 0);
    // no shape: -1
    BatchMatmulTiling bad(*platform);
    std::printf("bad %ld\n", bad.GetTiling(u));
    return 0;
}
"""


def test_batch_matmul_tiling_plans_one_core_and_keeps_the_layouts(tmp_path: Path) -> None:
    out = run_host_program(tmp_path, PRELUDE + BATCH_CPP).stdout.splitlines()
    head, a, b, c, batch = out[0].split(" | ")
    ret, used, sm, sn, sk, dim, m_dim, n_dim = (int(x) for x in head.split()[1:])
    assert (ret, used, sm, sn, sk, dim, m_dim, n_dim) == (0, 1, 64, 128, 96, 1, 1, 1)
    # SetBatchInfoForNormal: A [batchA, M, 1, 1, K], B [batchB, N, 1, 1, K], C [max, M, 1, 1, N]
    assert [int(x) for x in a.split()] == [2, 64, 1, 1, 96]
    assert [int(x) for x in b.split()] == [4, 128, 1, 1, 96]
    assert [int(x) for x in c.split()] == [4, 64, 1, 1, 128]
    assert int(batch) == 4
    assert out[1] == "same 1"
    assert out[2] == "bad -1"
