"""CANN CPU-debug samples (kernel + main.cpp with ICPU_RUN_KF) built against the simulator with
`opgen config` flags, run as programs, and checked against numpy, as verify_result.py would."""

from __future__ import annotations

import numpy as np
import pytest

from .conftest import Runner

RNG = np.random.default_rng(5)


def test_add_custom_half_rounds_as_float16(run_sample: Runner) -> None:
    x = RNG.uniform(-100, 100, 8 * 2048).astype(np.float16)
    y = RNG.uniform(-100, 100, 8 * 2048).astype(np.float16)
    run = run_sample("add_custom", {"input_x.bin": x, "input_y.bin": y})
    assert run.returncode == 0, run.stderr
    # one IEEE binary16 addition, correctly rounded: bit-exact with numpy's float16 add
    np.testing.assert_array_equal(run.output("output_z.bin", np.float16), x + y)


def test_tiling_struct_by_value_and_templated_class(run_sample: Runner) -> None:
    x = RNG.standard_normal(4 * 4096).astype(np.float32)
    y = RNG.standard_normal(4 * 4096).astype(np.float32)
    run = run_sample("add_tiling_by_value", {"input_x.bin": x, "input_y.bin": y})
    assert run.returncode == 0, run.stderr
    z = run.output("output_z.bin", np.float32)
    np.testing.assert_array_equal(z, x + np.float32(0.5) * y)


def test_op_kernel_get_tiling_data_and_tiling_key(run_sample: Runner) -> None:
    x = RNG.standard_normal(8 * 2048).astype(np.float32)
    y = RNG.standard_normal(8 * 2048).astype(np.float32)
    run = run_sample("add_op_kernel", {"input_x.bin": x, "input_y.bin": y})
    assert run.returncode == 0, run.stderr
    np.testing.assert_array_equal(run.output("output_z_key1.bin", np.float32), x + y)
    np.testing.assert_array_equal(run.output("output_z_key2.bin", np.float32), x - y)


def test_unaligned_rows_data_copy_pad_whole_reduce_sum(run_sample: Runner) -> None:
    x = RNG.standard_normal((100, 37)).astype(np.float32)
    run = run_sample("row_mean", {"input_x.bin": x})
    assert run.returncode == 0, run.stderr
    y = run.output("output_y.bin", np.float32)
    np.testing.assert_allclose(y, x.mean(axis=1), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("threads", ["2", "16"])
def test_bit_mask_and_concurrent_set_atomic_add(run_sample: Runner, threads: str) -> None:
    # integer-valued floats: every order of the atomic additions gives the same exact sum
    x = RNG.integers(-8, 9, (16 * 32, 256)).astype(np.float32)
    env = {"OPGEN_SIM_THREADS": threads}
    run = run_sample("masked_atomic_sum", {"input_x.bin": x}, env=env)
    assert run.returncode == 0, run.stderr
    weight = np.where(np.arange(256) % 2 == 0, 2.0, 1.0).astype(np.float32)
    np.testing.assert_array_equal(run.output("output_z.bin", np.float32), (x * weight).sum(axis=0))


# ---- rule violations in the standalone mode: a CANN-style message and a non-zero exit ----------


def test_repeat_past_the_tensor_is_an_error(run_sample: Runner) -> None:
    x = RNG.standard_normal((100, 37)).astype(np.float32)
    run = run_sample("row_mean_overrun", {"input_x.bin": x})
    assert run.returncode == 1
    assert "[ERROR]" in run.stderr
    expected = "kernel 'row_mean', block 0: WholeReduceSum: src: the mask and 32 repeat(s)"
    assert expected in run.stderr
    assert "[LocalMemoryOutOfBounds]" in run.stderr


def test_bit_mask_repeat_past_the_tensor_is_an_error(run_sample: Runner) -> None:
    x = np.zeros((16 * 32, 256), np.float32)
    run = run_sample("masked_atomic_sum_overrun", {"input_x.bin": x})
    assert run.returncode == 1
    assert (
        "kernel 'masked_atomic_sum', block 0: Muls: dst: the mask and 5 repeat(s) reach element 318"
        in run.stderr
    )
    assert "LocalTensor<float> has 256 elements [LocalMemoryOutOfBounds]" in run.stderr


def test_gm_bounds_are_checked_against_gm_alloc(run_sample: Runner) -> None:
    x = np.zeros(8 * 2048, np.float16)
    run = run_sample("add_custom_short_output", {"input_x.bin": x, "input_y.bin": x})
    assert run.returncode == 1
    assert "kernel 'add_custom', block 7: DataCopy(UB->GM): bytes [" in run.stderr
    assert "run past the end of GM buffer 'GmAlloc#2'" in run.stderr
    assert "[GlobalMemoryOutOfBounds]" in run.stderr


def test_ascendc_assert_names_the_condition_and_values(run_sample: Runner) -> None:
    x = np.zeros(4 * 4096, np.float32)
    run = run_sample("add_tiling_zero_tiles", {"input_x.bin": x, "input_y.bin": x})
    assert run.returncode == 1
    assert "ascendc_assert: assertion failed: tiling.tileNum > 0 at " in run.stderr
    assert ": tileNum must be positive, got 0 [KernelAssertError]" in run.stderr
