"""The C API of Ascend C (c_api/asc_simd.h, npu_arch 2201) on the simulator: `__ubuf__` arrays
placed in the running core's Unified Buffer, each covered instruction in its count, _sync and
mask/repeat forms bit for bit against numpy, the mask register, the conversions' rounding modes,
the data moves, and the errors of operands outside the UB or GM."""

from __future__ import annotations

import ctypes
import ctypes.util
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from opgen.asc_rewrite import UB_PRELUDE, rewrite, ub_arrays
from opgen.diagnostics import DiagnosticError
from tests.simulator.exp_ref import expf

from .conftest import PROGRAMS, opgen

RNG = np.random.default_rng(23)
TILE, BLOCKS = 512, 4
N = TILE * BLOCKS
TYPES = {"float": np.float32, "half": np.float16, "int16": np.int16, "int32": np.int32,
         "uint16": np.uint16}
SCALAR = {"float": 1.75, "half": 1.75, "int16": -3, "int32": 7, "uint16": 5}
FORMS = ("count + asc_sync", "_sync", "mask/repeat")
Inputs = dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]]
OpsRun = tuple[Path, str, Inputs]

_LIBM = ctypes.CDLL(ctypes.util.find_library("m"))
_LIBM.logf.restype = ctypes.c_float
_LIBM.logf.argtypes = [ctypes.c_float]


def _libm(fn: Callable[[float], float], v: np.ndarray) -> np.ndarray:
    """fn (libm's logf, as the simulator's lanes) of each element, in float32."""
    return np.array([fn(float(e)) for e in v.astype(np.float32)], np.float32)


def _inputs(workdir: Path) -> Inputs:
    (workdir / "input").mkdir()
    (workdir / "output").mkdir()
    data: Inputs = {}
    for name, dt in TYPES.items():
        if name in ("float", "half"):
            x = RNG.uniform(-8, 8, N).astype(dt)
            x[:4] = [0.0, -0.0, 1.0, -1.0]
            y = (RNG.uniform(0.5, 4, N) * RNG.choice([-1, 1], N)).astype(dt)
            a = RNG.uniform(0.01, 100, N).astype(dt)
        else:
            info = np.iinfo(dt)
            x = RNG.integers(info.min, info.max, N, endpoint=True).astype(dt)
            y = RNG.integers(info.min, info.max, N, endpoint=True).astype(dt)
            x[:2] = [info.min, info.max]
            a = x.copy()
        for tag, v in (("x", x), ("y", y), ("a", a)):
            v.tofile(workdir / "input" / f"{name}_{tag}.bin")
        data[name] = (x, y, a)
    return data


def _golden(name: str, op: str, x: np.ndarray, y: np.ndarray, a: np.ndarray) -> np.ndarray:
    """What each instruction computes: integers wrap, half lanes compute in float and round once
    to half (as numpy's float16 arithmetic does), exp is the simulator's Exp (exp_ref.expf), log
    libm's logf."""
    dt = TYPES[name]
    s = dt(SCALAR[name])
    floating = name in ("float", "half")
    f32 = (lambda v: v.astype(np.float32)) if floating else (lambda v: v)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        table: dict[str, Callable[[], np.ndarray]] = {
            "add": lambda: x + y, "sub": lambda: x - y, "mul": lambda: x * y, "div": lambda: x / y,
            "max": lambda: np.maximum(x, y), "min": lambda: np.minimum(x, y),
            "add_relu": lambda: np.where(x + y > 0, x + y, dt(0)),
            "sub_relu": lambda: np.where(x - y > 0, x - y, dt(0)),
            "and": lambda: x & y, "or": lambda: x | y, "not": lambda: ~x,
            "add_scalar": lambda: x + s, "sub_scalar": lambda: x + (dt(0) - s),
            "mul_scalar": lambda: x * s,
            "max_scalar": lambda: np.maximum(x, s), "min_scalar": lambda: np.minimum(x, s),
            "leakyrelu": lambda: np.where(x >= 0, x, x * s),
            "abs": lambda: np.abs(x), "relu": lambda: np.where(x > 0, x, dt(0)),
            "exp": lambda: expf(x), "log": lambda: _libm(_LIBM.logf, a),
            "sqrt": lambda: np.sqrt(f32(a)), "rsqrt": lambda: np.float32(1) / np.sqrt(f32(a)),
            "rcp": lambda: np.float32(1) / f32(a), "duplicate": lambda: np.full(N, s, dt),
        }
        return table[op]().astype(dt)


@pytest.fixture(scope="module")
def ops_run(tmp_path_factory: pytest.TempPathFactory) -> OpsRun:
    work = tmp_path_factory.mktemp("c_api_ops")
    data = _inputs(work)
    run = opgen("run", str(PROGRAMS / "c_api_ops.asc"), cwd=work)
    assert run.returncode == 0, run.stderr
    return work, run.stdout, data


@pytest.mark.parametrize("name", list(TYPES))
def test_each_instruction_in_each_form_is_bit_exact(ops_run: OpsRun, name: str) -> None:
    work, stdout, data = ops_run
    line = next(ln for ln in stdout.splitlines() if ln.startswith(f"ops {name}:"))
    names = line.split(":")[1].split()
    dt = TYPES[name]
    got = np.fromfile(work / "output" / f"{name}.bin", dt).reshape(len(names), 3, N)
    x, y, a = data[name]
    for k, op in enumerate(names):
        want = _golden(name, op, x, y, a)
        for form in range(3):
            np.testing.assert_array_equal(got[k, form].view(f"u{dt().itemsize}"),
                                          want.view(f"u{dt().itemsize}"),
                                          err_msg=f"asc_{op} on {name}, {FORMS[form]} form")


def test_the_mask_register_selects_the_lanes_of_mask_repeat_forms(ops_run: OpsRun) -> None:
    work, _, data = ops_run
    x, y, _ = data["float"]
    got = np.fromfile(work / "output" / "masks.bin", np.float32).reshape(4, TILE)
    untouched = np.float32(-7)
    # src0 block stride 2, repeat stride 16: every other 8-float block of x
    strided = x[:256].reshape(-1, 8)[::2].reshape(-1)[:128] + y[:128]
    np.testing.assert_array_equal(got[0][:128], strided)
    assert (got[0][128:] == untouched).all()
    # asc_set_vector_mask(0, 0x5555...): the even lanes of each of the two repeats
    lanes = np.arange(TILE)
    want = np.where((lanes < 128) & (lanes % 2 == 0), x[:TILE] * y[:TILE], untouched)
    np.testing.assert_array_equal(got[1], want)
    # the count form leaves 10 (0b1010) in the mask: the later mask/repeat sub takes lanes 1 and 3
    want = np.full(TILE, untouched)
    want[:10] = x[:10] + y[:10]
    want[[65, 67]] = x[[65, 67]] - y[[65, 67]]
    np.testing.assert_array_equal(got[2], want)
    # counter mode by hand: the first 70 elements
    want = np.where(lanes < 70, np.maximum(x[:TILE], y[:TILE]), untouched)
    np.testing.assert_array_equal(got[3], want)


def _tree_sum(v: np.ndarray, width: int) -> np.ndarray:
    """The sums of each `width` consecutive floats as the vector unit adds them: pairwise, level
    by level, each sum rounded to float32."""
    v = v.reshape(-1, width).astype(np.float32)
    while v.shape[1] > 1:
        v = v[:, 0::2] + v[:, 1::2]
    return v[:, 0]


def test_reductions_and_axpy(ops_run: OpsRun) -> None:
    work, _, data = ops_run
    x, y, _ = (v[:TILE] for v in data["float"])
    got = np.fromfile(work / "output" / "reductions.bin", np.float32).reshape(7, TILE)
    rest = np.float32(-7)

    def check(k: int, head: np.ndarray) -> None:
        np.testing.assert_array_equal(got[k][:head.size].view(np.uint32), head.view(np.uint32),
                                      err_msg=f"case {k}")
        assert (got[k][head.size:] == rest).all(), f"case {k} wrote past its results"

    check(0, _tree_sum(x, 64))
    rows = x.reshape(8, 64)
    pairs = np.empty((8, 2), np.float32)
    pairs[:, 0] = rows.max(axis=1)
    pairs[:, 1] = rows.argmax(axis=1).astype(np.uint32).view(np.float32)
    check(1, pairs.reshape(-1))
    only_index = np.full(16, rest)
    only_index[0::2] = rows.argmin(axis=1).astype(np.uint32).view(np.float32)
    check(2, only_index)  # one index per repeat, two elements apart (dst_repeat_stride 1)
    check(3, _tree_sum(x, 8))
    check(4, x[:256].reshape(2, 16, 8)[:, :8].min(axis=2).reshape(-1))
    np.testing.assert_array_equal(got[5], y + x * np.float32(1.75))
    halves = x.astype(np.float16).astype(np.float32)
    np.testing.assert_array_equal(got[6], y + halves * np.float32(0.5))


def test_compare_into_bits_and_the_cmpmask_register_and_select(ops_run: OpsRun) -> None:
    work, _, data = ops_run
    x, y, _ = (v[:TILE] for v in data["float"])
    got = np.fromfile(work / "output" / "compares.bin", np.uint8).reshape(5, 256)
    gt = np.packbits(x > y, bitorder="little")
    np.testing.assert_array_equal(got[0][:64], gt)
    np.testing.assert_array_equal(got[1][:64], np.packbits(x <= 1, bitorder="little"))
    lt = x[:64] < y[:64]
    np.testing.assert_array_equal(got[2][:16], np.concatenate([np.packbits(lt, bitorder="little"),
                                                                np.zeros(8, np.uint8)]))
    x64, y64 = x[:64], y[:64]
    np.testing.assert_array_equal(got[3].view(np.float32), np.where(lt, x64, y64))
    np.testing.assert_array_equal(got[4].view(np.float32), np.where(x64 > y64, x64, y64))


def _to_half(x: np.ndarray, mode: str) -> np.ndarray:
    """float32 -> float16 in a rounding mode, from the two float16 neighbours of each value."""
    near = x.astype(np.float16)
    exact = near.astype(np.float64) == x.astype(np.float64)
    lo = np.where(near.astype(np.float64) > x, np.nextafter(near, np.float16(-np.inf)), near)
    hi = np.where(near.astype(np.float64) < x, np.nextafter(near, np.float16(np.inf)), near)
    dlo = x.astype(np.float64) - lo.astype(np.float64)
    dhi = hi.astype(np.float64) - x.astype(np.float64)
    if mode in ("none", "rn"):
        return near
    if mode == "rd":
        return lo
    if mode == "ru":
        return hi
    if mode == "rz":
        return np.where(x > 0, lo, hi)
    if mode == "rna":  # nearest, ties away from zero
        tie_pick = np.where(x > 0, hi, lo)
        return np.where(exact, near, np.where(dlo < dhi, lo, np.where(dhi < dlo, hi, tie_pick)))
    odd = (hi.view(np.uint16) & 1) == 1  # ro: an inexact value goes to its odd neighbour
    return np.where(exact, near, np.where(odd, hi, lo))


def test_conversions_round_in_each_mode(ops_run: OpsRun) -> None:
    work, _, data = ops_run
    x = data["float"][0].copy()
    got = np.fromfile(work / "output" / "casts_half.bin", np.float16).reshape(7, N)
    for k, mode in enumerate(("none", "rn", "rna", "rd", "ru", "rz", "ro")):
        np.testing.assert_array_equal(got[k].view(np.uint16), _to_half(x, mode).view(np.uint16),
                                      err_msg=f"asc_float2half_{mode}")
    back = np.fromfile(work / "output" / "casts_back.bin", np.float32)
    np.testing.assert_array_equal(back, x.astype(np.float16).astype(np.float32))
    ints = np.fromfile(work / "output" / "casts_int32.bin", np.int32).reshape(5, N)
    xd = x.astype(np.float64)
    away = np.sign(xd) * np.floor(np.abs(xd) + 0.5)
    for k, want in enumerate((np.rint(xd), away, np.floor(xd), np.ceil(xd), np.trunc(xd))):
        np.testing.assert_array_equal(ints[k], want.astype(np.int32),
                                      err_msg=f"float2int32 mode {k}")


def test_data_moves_bursts_gaps_padding_and_atomic_add(ops_run: OpsRun) -> None:
    work, _, data = ops_run
    x = data["float"][0]
    got = np.fromfile(work / "output" / "copies.bin", np.float32).reshape(8, 256)
    blocks = x[:256].reshape(-1, 8)  # 32-byte blocks
    # 4 bursts of 2 blocks, a gap of 1 block between them in GM
    np.testing.assert_array_equal(got[0][:64], blocks[[0, 1, 3, 4, 6, 7, 9, 10]].reshape(-1))
    assert (got[0][64:] == 0).all()
    want = np.zeros(256, np.float32).reshape(-1, 8)
    want[[0, 1, 3, 4, 6, 7, 9, 10]] = blocks[:8]
    np.testing.assert_array_equal(got[1], want.reshape(-1))
    np.testing.assert_array_equal(got[2][:48], blocks[[0, 1, 2, 4, 5, 6]].reshape(-1))
    np.testing.assert_array_equal(got[3][:32],
                                  np.concatenate([x[:25], np.full(7, -1, np.float32)]))
    np.testing.assert_array_equal(got[4], np.concatenate([x[:25], np.zeros(231, np.float32)]))
    assert (got[5] == sum(range(1, BLOCKS + 1))).all()


# ---- errors -----------------------------------------------------------------------------------

ERRORS = str(PROGRAMS / "c_api_errors.asc")


@pytest.mark.parametrize("mode,kind,message", [
    (1, "UnifiedBufferOverflow",
     "__ubuf__ array: `__ubuf__ float more[20000]` needs 80000 bytes of the Unified Buffer from "
     "offset 160000"),
    (2, "LocalMemoryOutOfBounds", "asc_copy_gm2ub: dst (0x"),
    (3, "GlobalMemoryOutOfBounds", "asc_copy_ub2gm: dst (0x"),
    (4, "AlignmentError", "asc_add: src0 is at UB offset 4, which is not 32-byte aligned"),
    (5, "UnifiedBufferOverflow",
     "asc_exp: dst: bytes [196352, 197376) of the Unified Buffer run past its end"),
    (6, "AlignmentError", "asc_copy_gm2ub: size 100 bytes is not a multiple of 32 bytes"),
    (7, "LocalMemoryOutOfBounds", "asc_add: dst (0x"),
    (8, "GlobalMemoryOutOfBounds",
     "asc_copy_gm2ub: bytes [16000, 17024) run past the end of GM buffer 'aclrtMalloc#0'"),
])
def test_operands_outside_the_ub_or_gm_are_clear_errors(tmp_path: Path, mode: int, kind: str,
                                                        message: str) -> None:
    run = opgen("run", ERRORS, "--", str(mode), cwd=tmp_path)
    assert run.returncode == 1, run.stdout + run.stderr
    assert "kernel 'errors', block 0: " + message in run.stderr, run.stderr
    assert f"[{kind}]" in run.stderr
    if mode in (2, 7):
        assert "is not an address in the Unified Buffer of block 0" in run.stderr
    if mode == 3:
        assert ") is not in device memory: a __gm__ operand must point into a buffer the kernel " \
               "was given (aclrtMalloc)" in run.stderr


def test_ub_arrays_are_given_back_when_their_scope_ends(tmp_path: Path) -> None:
    # mode 0: 1000 iterations of a loop each declaring 150 KB of arrays, nested scopes, an early
    # return: only fits if each scope gives its bytes back
    run = opgen("run", ERRORS, "--", "0", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "scopes: pass"


# ---- the rewrite ------------------------------------------------------------------------------


def test_ubuf_arrays_of_function_bodies_become_ub_reservations_on_their_lines() -> None:
    text = ("__ubuf__ float global_arr[8];\n"
            "void f(__ubuf__ float* p, __ubuf__ float q[4]) {\n"
            "    __ubuf__ float a[N], b[2][M * 2];  // two arrays\n"
            "    __ubuf__ half* ptr = a;\n"
            "    // __ubuf__ float in_comment[4];\n"
            "    const char* s = \"__ubuf__ float in_string[4];\";\n"
            "    for (int i = 0; i < 2; ++i) {\n"
            "        __ubuf__ uint8_t\n"
            "            c[32];\n"
            "        __ubuf__ float d[4], *e;\n"
            "    }\n"
            "}\n")
    out = rewrite(text, "/src/p.asc")
    head, body = out.split("\n", 3)[:3], out.split("\n", 3)[3]
    assert head[1] == UB_PRELUDE.rstrip("\n")
    assert body.count("\n") == text.count("\n")
    lines = body.splitlines()
    assert lines[0] == "__ubuf__ float global_arr[8];"
    assert lines[1] == text.splitlines()[1]
    assert lines[2] == (
        '    ::opgen_sim::UbArray<float[N]> opgen_ubuf_a("float a[N]"); '
        "float (&a)[N] = opgen_ubuf_a.ref; "
        '::opgen_sim::UbArray<float[2][M * 2]> opgen_ubuf_b("float b[2][M * 2]"); '
        "float (&b)[2][M * 2] = opgen_ubuf_b.ref;  // two arrays")
    assert lines[3:6] == text.splitlines()[3:6]
    assert lines[7] == ('        ::opgen_sim::UbArray<uint8_t[32]> opgen_ubuf_c("uint8_t c[32]"); '
                        "uint8_t (&c)[32] = opgen_ubuf_c.ref;")
    assert lines[8] == ""
    assert lines[9] == ('        ::opgen_sim::UbArray<float[4]> opgen_ubuf_d("float d[4]"); '
                        "float (&d)[4] = opgen_ubuf_d.ref; __ubuf__ float *e;")


def test_a_program_without_ubuf_arrays_keeps_its_prelude() -> None:
    out = rewrite("void f(__ubuf__ float* p) { __ubuf__ float* q = p; }\n", "/p.asc")
    assert UB_PRELUDE not in out
    assert ub_arrays("struct S { __ubuf__ float member[4]; };\n", "/p.asc") == []


@pytest.mark.parametrize("decl,message", [
    ("static __ubuf__ float a[4];",
     "a static, extern or constexpr __ubuf__ array is not supported"),
    ("__ubuf__ float a[4] = {0};",
     "the simulator does not support an initializer on a __ubuf__ array"),
])
def test_unsupported_ubuf_arrays_are_located_errors(decl: str, message: str) -> None:
    with pytest.raises(DiagnosticError) as err:
        rewrite(f"void f() {{\n    {decl}\n}}\n", "/p.asc")
    assert str(err.value).startswith(f"/p.asc:2:{decl.index('__ubuf__') + 5}: error: {message}")
