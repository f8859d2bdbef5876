"""CANN CPU-debug samples (kernel + main.cpp with ICPU_RUN_KF) built against the simulator with
`opgen config` flags, run as programs, and checked against numpy, as verify_result.py would."""

from __future__ import annotations

import numpy as np
import pytest

from .conftest import Runner

RNG = np.random.default_rng(5)


def test_half_difference_rounds_as_float16(run_sample: Runner) -> None:
    a = RNG.uniform(-100, 100, 16384).astype(np.float16)
    b = RNG.uniform(-100, 100, 16384).astype(np.float16)
    run = run_sample("half_diff", {"a.bin": a, "b.bin": b})
    assert run.returncode == 0, run.stderr
    # one IEEE binary16 subtraction, correctly rounded: bit-exact with numpy's float16
    np.testing.assert_array_equal(run.output("out.bin", np.float16), a - b)


def test_tiling_struct_by_value_and_templated_class(run_sample: Runner) -> None:
    x = RNG.uniform(-4, 4, 16384).astype(np.float32)
    y = RNG.uniform(-4, 4, 16384).astype(np.float32)
    run = run_sample("axpy_clamp", {"x.bin": x, "y.bin": y})
    assert run.returncode == 0, run.stderr
    z = run.output("z.bin", np.float32)
    # the tiling main.cpp passes by value: alpha 1.5, clamped to [-2, 3]
    expected = np.minimum(np.maximum(np.float32(1.5) * x + y, np.float32(-2)), np.float32(3))
    np.testing.assert_array_equal(z, expected)
    assert (z == -2).any() and (z == 3).any()  # both bounds were exercised


def test_op_kernel_get_tiling_data_and_tiling_key(run_sample: Runner) -> None:
    x = RNG.standard_normal(16384).astype(np.float32)
    y = RNG.standard_normal(16384).astype(np.float32)
    run = run_sample("blend_pair", {"x.bin": x, "y.bin": y})
    assert run.returncode == 0, run.stderr
    np.testing.assert_array_equal(run.output("z_sum.bin", np.float32), x + y)  # key 1
    np.testing.assert_array_equal(run.output("z_max.bin", np.float32), np.maximum(x, y))  # key 2


def test_unaligned_rows_data_copy_pad_whole_reduce_sum(run_sample: Runner) -> None:
    x = RNG.standard_normal((100, 37)).astype(np.float32)
    run = run_sample("row_mean", {"x.bin": x})
    assert run.returncode == 0, run.stderr
    y = run.output("y.bin", np.float32)
    np.testing.assert_allclose(y, x.mean(axis=1), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("threads", ["2", "16"])
def test_bit_mask_and_concurrent_set_atomic_add(run_sample: Runner, threads: str) -> None:
    # integer-valued floats: every order of the atomic additions gives the same exact sum
    x = RNG.integers(-8, 9, (16 * 32, 256)).astype(np.float32)
    env = {"OPGEN_SIM_THREADS": threads}
    run = run_sample("masked_atomic_sum", {"x.bin": x}, env=env)
    assert run.returncode == 0, run.stderr
    weight = np.where(np.arange(256) % 2 == 0, 2.0, 1.0).astype(np.float32)
    np.testing.assert_array_equal(run.output("z.bin", np.float32), (x * weight).sum(axis=0))


# ---- rule violations in the standalone mode: a CANN-style message and a non-zero exit ----------


def test_repeat_past_the_tensor_is_an_error(run_sample: Runner) -> None:
    x = RNG.standard_normal((100, 37)).astype(np.float32)
    # reading past the LocalTensor inside the Unified Buffer is the NPU's way: strict mode only
    run = run_sample("row_mean_overrun", {"x.bin": x}, env={"OPGEN_SIM_STRICT": "1"})
    assert run.returncode == 1
    assert "[ERROR]" in run.stderr
    expected = "kernel 'row_mean', block 0: WholeReduceSum: src: the mask and 32 repeat(s)"
    assert expected in run.stderr
    assert "[LocalMemoryOutOfBounds]" in run.stderr


def test_bit_mask_repeat_past_the_tensor_is_an_error(run_sample: Runner) -> None:
    x = np.zeros((16 * 32, 256), np.float32)
    run = run_sample("masked_atomic_sum_overrun", {"x.bin": x}, env={"OPGEN_SIM_STRICT": "1"})
    assert run.returncode == 1
    assert (
        "kernel 'masked_atomic_sum', block 0: Muls: dst: the mask and 5 repeat(s) reach element 318"
        in run.stderr
    )
    assert "LocalTensor<float> has 256 elements [LocalMemoryOutOfBounds]" in run.stderr


def test_gm_bounds_are_checked_against_gm_alloc(run_sample: Runner) -> None:
    a = np.zeros(16384, np.float16)
    run = run_sample("half_diff_short_output", {"a.bin": a, "b.bin": a})
    assert run.returncode == 1
    assert "kernel 'half_diff_kernel', block 7: DataCopy(UB->GM): bytes [" in run.stderr
    assert "run past the end of GM buffer 'GmAlloc#2'" in run.stderr
    assert "[GlobalMemoryOutOfBounds]" in run.stderr


def test_ascendc_assert_names_the_condition_and_values(run_sample: Runner) -> None:
    x = np.zeros(16384, np.float32)
    run = run_sample("axpy_clamp_zero_tiles", {"x.bin": x, "y.bin": x})
    assert run.returncode == 1
    assert "ascendc_assert: assertion failed: tiling.tileNum > 0 at " in run.stderr
    assert ": tileNum must be positive, got 0 [KernelAssertError]" in run.stderr


@pytest.mark.parametrize("program", ["matmul_bias", "matmul_bias_aiv_mode"])
def test_matmul_mix_kernel_runs_two_vector_cores_a_block(run_sample: Runner, program: str) -> None:
    m, n, k = 300, 200, 96
    a = RNG.integers(-4, 5, (m, k)).astype(np.float16)
    b = RNG.integers(-4, 5, (k, n)).astype(np.float16)
    bias = RNG.integers(-8, 9, n).astype(np.float32)
    run = run_sample(program, {"a.bin": a, "b.bin": b, "bias.bin": bias})
    assert run.returncode == 0, run.stderr
    tiling = run.output("tiling.bin", np.int32)
    assert tiling[0] == 2  # usedCoreNum: the tiling splits C over 2 cores
    c = run.output("c.bin", np.float32).reshape(m, n)
    want = a.astype(np.float32) @ b.astype(np.float32) + bias  # small integers: exact
    done = np.isclose(c, want).all(axis=None)
    # MIX_MODE (CANN's CPU-debug default): blockDim 1 is one AIC and two AIV cores, each taking
    # its part of C; AIV_MODE runs one core, which leaves the second core's part at 0
    assert done if program == "matmul_bias" else not done
    if program == "matmul_bias":
        np.testing.assert_array_equal(c, want)
