"""The simulator's thread pool under launches that want different numbers of workers in quick
succession (some workers idle in one launch and needed in the next), with and without the
workers spinning between launches: every launch must run every block exactly once."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import opgen_runtime as rt

from .conftest import LAYOUTS, SPECS

ROOT = Path(__file__).resolve().parents[2]


def _stress(kernel: rt.KernelLibrary, rounds: int) -> None:
    layout = LAYOUTS["element_add"]
    rng = np.random.default_rng(0)
    n = 8 * 64
    x = rt.gm_empty(n, np.float32)
    y = rt.gm_empty(n, np.float32)
    x[:] = rng.standard_normal(n)
    y[:] = rng.standard_normal(n)
    want = x + y
    for i in range(rounds):
        block_dim = 1 + i % 8
        threads = 1 + (i * 5) % 6
        z = rt.gm_empty(n, np.float32)
        z[:] = np.nan
        _, values = rt.default_tiling(layout, {"x": x, "y": y}, {"z": z}, {}, "ascend910b",
                                      block_dim=block_dim)
        rt.launch(kernel, "element_add", {"x": x, "y": y, "z": z}, block_dim=block_dim,
                  tiling=layout.pack(values), max_threads=threads)
        np.testing.assert_array_equal(z, want, err_msg=f"round {i}: blockDim {block_dim}, "
                                                       f"{threads} threads")


def test_launches_with_changing_worker_counts(kernels: dict[object, rt.KernelLibrary]) -> None:
    from .conftest import _key

    _stress(kernels[_key("element_add", {"x": "float32", "y": "float32", "z": "float32"})], 300)


@pytest.mark.parametrize("spin_us", ["0", "5000"])
def test_launches_with_sleeping_or_spinning_workers(spin_us: str) -> None:
    """OPGEN_SIM_SPIN_US is read once per process: each setting runs in a fresh one."""
    code = textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {str(ROOT)!r})
        import opgen_runtime as rt
        from tests.simulator.test_sim_pool import _stress
        lib = rt.build_kernel({str(SPECS / "element_add.cpp")!r}, entry="element_add",
                              defines=rt.dtype_defines({{"x": "float32", "y": "float32",
                                                        "z": "float32"}}))
        _stress(lib, 150)
    """)
    env = {**os.environ, "OPGEN_SIM_SPIN_US": spin_us}
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                          timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]


WHO_KERNEL = """
#include "kernel_operator.h"
#include <pthread.h>
// each block writes the host thread it ran on into out[block]
extern "C" __global__ __aicore__ void who(GM_ADDR out, GM_ADDR pad, GM_ADDR workspace,
                                          GM_ADDR tiling) {
    AscendC::GlobalTensor<uint64_t> g;
    g.SetGlobalBuffer((__gm__ uint64_t*)out, 64);
    g.SetValue(AscendC::GetBlockIdx(), static_cast<uint64_t>(pthread_self()));
}
"""


def test_a_small_launch_runs_its_blocks_on_the_calling_thread(tmp_path: Path) -> None:
    """With no thread count given, a launch over less than 64 KiB of GM runs inline: every block
    on the thread that launched; a larger one may use the pool (OPGEN_SIM_THREADS unset)."""
    src = tmp_path / "who.cpp"
    src.write_text(WHO_KERNEL)
    code = textwrap.dedent(f"""
        import sys, threading
        sys.path.insert(0, {str(ROOT)!r})
        import numpy as np
        import opgen_runtime as rt
        lib = rt.build_kernel({str(src)!r}, entry="who")
        for pad_bytes in (32, 1 << 20):
            out = rt.gm_empty(64, np.uint64)
            out[:] = 0
            pad = rt.gm_empty(pad_bytes // 4, np.float32)
            rt.launch(lib, "who", {{"out": out, "pad": pad}}, block_dim=16, tiling=b"\\0" * 8)
            print(pad_bytes, len(set(out[:16].tolist())), int(out[16:].sum()))
    """)
    env = {k: v for k, v in os.environ.items() if k != "OPGEN_SIM_THREADS"}
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                          timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    small, large = (line.split() for line in proc.stdout.split("\n")[:2])
    assert small == ["32", "1", "0"]  # 16 blocks, one thread
    assert large[0] == str(1 << 20) and large[2] == "0"
    assert 1 <= int(large[1]) <= max(os.cpu_count() or 1, 1)
