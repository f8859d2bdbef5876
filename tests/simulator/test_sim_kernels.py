"""The example kernels in specs/ against numpy references: tails, blockDim 1..8, both dtypes."""

from __future__ import annotations

import numpy as np
import pytest

import opgen_runtime as rt

RNG = np.random.default_rng(7)
BLOCK_DIMS = [1, 2, 3, 8]
# Sizes around the tile (8192 float32 / 12288 float16 elements) and the 32-byte granule.
SIZES = [1, 7, 16, 100, 8192, 8193, 40_000, 100_003]


def rand(shape: tuple[int, ...] | int, dtype: str, lo: float = -4.0, hi: float = 4.0) -> np.ndarray:
    return RNG.uniform(lo, hi, size=shape).astype(dtype)


def tol(dtype: str) -> dict[str, float]:
    return {"rtol": 2e-3, "atol": 2e-3} if dtype == "float16" else {"rtol": 1e-5, "atol": 1e-6}


@pytest.mark.parametrize("block_dim", BLOCK_DIMS)
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_element_add(run_op, dtype: str, n: int, block_dim: int) -> None:
    x, y = rand(n, dtype), rand(n, dtype)
    z = np.full(n, 99, dtype=dtype)
    prof = run_op("element_add", {"x": x, "y": y}, {"z": z}, block_dim=block_dim)
    np.testing.assert_array_equal(z, x + y)  # one rounding per element: exact
    assert prof.block_dim <= block_dim


def test_element_add_default_block_dim_uses_many_cores(run_op) -> None:
    x, y = rand(1 << 20, "float32"), rand(1 << 20, "float32")
    z = np.empty_like(x)
    prof = run_op("element_add", {"x": x, "y": y}, {"z": z})
    assert prof.block_dim == 48  # ascend910b vector cores
    np.testing.assert_array_equal(z, x + y)


@pytest.mark.parametrize("block_dim", [1, 3, 8])
@pytest.mark.parametrize("n", [5, 16, 12_289, 50_000])
@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_leaky_relu(run_op, dtype: str, n: int, block_dim: int) -> None:
    x = rand(n, dtype)
    y = np.zeros_like(x)
    slope = 0.2
    run_op("leaky_relu", {"x": x}, {"y": y}, {"negative_slope": slope}, block_dim=block_dim)
    ref = np.where(x > 0, x, x * np.asarray(slope, dtype=dtype))
    np.testing.assert_allclose(y, ref, **tol(dtype))


CAST_PAIRS = [
    ("float32", "float16"),
    ("float32", "int32"),
    ("float16", "float32"),
    ("float16", "int32"),
    ("int32", "float32"),
    ("int32", "float16"),
]


@pytest.mark.parametrize("block_dim", [1, 4])
@pytest.mark.parametrize("n", [3, 4097, 30_000])
@pytest.mark.parametrize(("src", "dst"), CAST_PAIRS)
def test_cast(run_op, src: str, dst: str, n: int, block_dim: int) -> None:
    if src == "int32":
        x = RNG.integers(-3000, 3000, size=n).astype(np.int32)
    else:
        x = rand(n, src, -1000, 1000)
        x[:4] = np.array([0.5, 1.5, -2.5, 2.5], dtype=src)[: min(4, n)][: len(x[:4])]
    y = np.zeros(n, dtype=dst)
    run_op("cast", {"x": x}, {"y": y}, {"dst_type": dst}, block_dim=block_dim)
    # float -> int truncates toward zero and float narrowing rounds to nearest even: astype
    np.testing.assert_array_equal(y, x.astype(dst))


BROADCAST_SHAPES = [
    ((3, 1, 5), (4, 5)),
    ((7,), (2, 7)),
    ((2, 3, 33), (1,)),
    ((), (5,)),
    ((6, 1), (1, 9)),
    ((2, 1, 3, 20), (5, 1, 20)),
    ((4, 10_000), (10_000,)),
    # rows of whole 32-byte blocks, several to a tile: grouped rows, the row operand kept, in
    # order, or scattered (a middle dim broadcast); one side kept; both in order
    ((37, 64), (64,)),
    ((64,), (9, 5, 64)),
    ((6, 4, 32), (4, 32)),
    ((5, 1, 48), (5, 3, 48)),
    ((3, 16), (3, 16)),
]


@pytest.mark.parametrize("block_dim", [1, 2, 8])
@pytest.mark.parametrize(("xs", "ys"), BROADCAST_SHAPES)
@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_broadcast_add(
    run_op, dtype: str, xs: tuple[int, ...], ys: tuple[int, ...], block_dim: int
) -> None:
    x, y = rand(xs, dtype), rand(ys, dtype)
    ref = x + y
    z = np.zeros(ref.shape, dtype=dtype)
    run_op("broadcast_add", {"x": x, "y": y}, {"z": z}, block_dim=block_dim)
    np.testing.assert_array_equal(z, ref)


def softmax_ref(x: np.ndarray) -> np.ndarray:
    xf = x.astype(np.float32)
    e = np.exp(xf - xf.max(axis=-1, keepdims=True))
    return (e / e.sum(axis=-1, keepdims=True)).astype(x.dtype)


@pytest.mark.parametrize("block_dim", [1, 3, 8])
@pytest.mark.parametrize("shape", [(4, 10), (3, 5, 37), (1, 300), (17, 1), (9, 1024), (2, 2000)])
@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_softmax(run_op, dtype: str, shape: tuple[int, ...], block_dim: int) -> None:
    x = rand(shape, dtype)
    y = np.zeros_like(x)
    run_op("softmax", {"x": x}, {"y": y}, {"axis": -1}, block_dim=block_dim)
    np.testing.assert_allclose(y, softmax_ref(x), **tol(dtype))


def test_softmax_rejects_other_axis(run_op) -> None:
    x = rand((4, 8), "float32")
    with pytest.raises(rt.KernelAssertError, match=r"t\.axis == -1"):
        run_op("softmax", {"x": x}, {"y": np.zeros_like(x)}, {"axis": 0}, block_dim=1)


def layer_norm_ref(x, gamma, beta, eps):
    xf = x.astype(np.float32)
    mean = xf.mean(axis=-1, keepdims=True)
    rstd = 1 / np.sqrt(((xf - mean) ** 2).mean(axis=-1, keepdims=True) + eps)
    y = (xf - mean) * rstd
    if gamma is not None:
        y = y * gamma.astype(np.float32)
    if beta is not None:
        y = y + beta.astype(np.float32)
    return y.astype(x.dtype), mean, rstd


@pytest.mark.parametrize("block_dim", [1, 2, 8])
@pytest.mark.parametrize("affine", ["both", "gamma", "none"])
@pytest.mark.parametrize("shape", [(5, 16), (3, 4, 37), (1, 1000), (20, 3), (600, 8)])
@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_layer_norm(
    run_op, dtype: str, shape: tuple[int, ...], affine: str, block_dim: int
) -> None:
    x = rand(shape, dtype)
    cols = shape[-1]
    gamma = rand(cols, dtype, 0.5, 1.5) if affine in ("both", "gamma") else None
    beta = rand(cols, dtype) if affine == "both" else None
    y = np.zeros_like(x)
    mean = np.zeros((*shape[:-1], 1), np.float32)
    rstd = np.zeros((*shape[:-1], 1), np.float32)
    eps = 1e-5
    run_op(
        "layer_norm",
        {"x": x, "gamma": gamma, "beta": beta},
        {"y": y, "mean": mean, "rstd": rstd},
        {"epsilon": eps},
        block_dim=block_dim,
    )
    ry, rmean, rrstd = layer_norm_ref(x, gamma, beta, eps)
    np.testing.assert_allclose(mean, rmean, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(rstd, rrstd, rtol=1e-4)
    t = {"rtol": 4e-3, "atol": 4e-3} if dtype == "float16" else {"rtol": 1e-4, "atol": 1e-5}
    np.testing.assert_allclose(y, ry, **t)


def test_misaligned_and_strided_arrays_are_copied(run_op) -> None:
    base = rand(1001, "float32")
    x = base[1:]  # 4 bytes past an aligned address
    y = rand(2000, "float32")[::2]  # not contiguous
    z_base = np.zeros(1001, np.float32)
    z = z_base[1:]
    run_op("element_add", {"x": x, "y": y}, {"z": z}, block_dim=2)
    np.testing.assert_array_equal(z, x + y)


@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_broadcast_add_groups_rows_of_whole_blocks(run_op, dtype: str) -> None:
    # 12 rows of 64: a group per tile and one Add over the group, both sides in order or one a
    # kept row (copied into each row of its tile once per block); the per-row path (rows not of
    # whole blocks) has one per row
    x, y = rand((12, 64), dtype), rand((12, 64), dtype)
    z = np.zeros((12, 64), dtype=dtype)
    prof = run_op("broadcast_add", {"x": x, "y": y}, {"z": z}, block_dim=1)
    np.testing.assert_array_equal(z, x + y)
    assert prof.vector_instructions == 1
    row = rand((64,), dtype)
    prof = run_op("broadcast_add", {"x": x, "y": row}, {"z": z}, block_dim=1)
    np.testing.assert_array_equal(z, x + row)
    assert prof.vector_instructions == 1 and prof.gm_to_ub_bytes == 24 * 64 * z.itemsize
    x5, y5 = rand((12, 60), dtype), rand((12, 60), dtype)
    z5 = np.zeros((12, 60), dtype=dtype)
    prof = run_op("broadcast_add", {"x": x5, "y": y5}, {"z": z5}, block_dim=1)
    np.testing.assert_array_equal(z5, x5 + y5)
    assert prof.vector_instructions == 12


@pytest.mark.parametrize("dtype", ["float32", "float16"])
@pytest.mark.parametrize(("xs", "ys"), [((37, 64), (64,)), ((64,), (37, 64)),
                                        ((3, 13, 64), (13, 64)), ((5, 1, 64), (1, 7, 64)),
                                        ((1, 64), (1, 64)), ((300, 32), (32,))])
def test_broadcast_add_kept_rows_over_blocks(run_op, dtype: str, xs: tuple[int, ...],
                                             ys: tuple[int, ...]) -> None:
    # a kept row is copied into every row of its tile once per block: blocks of fewer rows than
    # a tile, tails shorter than the tile, the kept side on the left or the right
    x, y = rand(xs, dtype), rand(ys, dtype)
    z = np.zeros(np.broadcast_shapes(xs, ys), dtype=dtype)
    run_op("broadcast_add", {"x": x, "y": y}, {"z": z}, block_dim=3)
    np.testing.assert_array_equal(z, x + y)
