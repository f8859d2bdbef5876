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


ORDER_KERNEL = """
#include "kernel_operator.h"
#include <pthread.h>
#include <atomic>
#include <chrono>
#include <thread>
static std::atomic<uint64_t> g_seq{0};
// each block writes the host thread it ran on and when it started (a launch-wide count) into
// out[2 * block], out[2 * block + 1], then works a little, so that both threads are busy
extern "C" __global__ __aicore__ void order(GM_ADDR out, GM_ADDR pad, GM_ADDR workspace,
                                            GM_ADDR tiling) {
    AscendC::GlobalTensor<uint64_t> g;
    g.SetGlobalBuffer((__gm__ uint64_t*)out, 256);
    const uint64_t seq = g_seq.fetch_add(1);
    g.SetValue(2 * AscendC::GetBlockIdx(), static_cast<uint64_t>(pthread_self()));
    g.SetValue(2 * AscendC::GetBlockIdx() + 1, seq);
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
}
"""


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_each_thread_runs_a_contiguous_range_of_blocks_first_to_last(tmp_path: Path,
                                                                    threads: int) -> None:
    """Blocks are shared among a launch's threads as contiguous ranges (launch.h, BlockRanges):
    one thread takes each range's blocks from its first on, rising; the others take only from
    its end, falling (a thread that has run its own range helps with the rest). However the
    host schedules the threads, every block runs once, the blocks taken of a range are always
    some first ones and some last ones, and the first ones are all one thread's. With one thread
    the order is 0 to blockDim - 1."""
    src = tmp_path / "order.cpp"
    src.write_text(ORDER_KERNEL)
    lib = rt.build_kernel(str(src), entry="order")
    block_dim = 24
    ranges = [(block_dim * k // threads, block_dim * (k + 1) // threads) for k in range(threads)]
    for _ in range(5):
        out = rt.gm_empty(256, np.uint64)
        out[:] = 0
        pad = rt.gm_empty(1 << 18, np.float32)  # past the inline launch's footprint
        rt.launch(lib, "order", {"out": out, "pad": pad}, block_dim=block_dim,
                  tiling=b"\0" * 8, max_threads=threads)
        thread_of, seq = out[0:2 * block_dim:2], out[1:2 * block_dim:2]
        assert sorted(seq.tolist()) == list(range(int(seq.min()), int(seq.min()) + block_dim))
        order = np.argsort(seq).tolist()
        if threads == 1:
            assert order == list(range(block_dim))
            continue
        for first, end in ranges:
            lo, hi = first, end
            front_threads = set()
            for b in (b for b in order if first <= b < end):
                if b == lo and b != hi - 1:
                    front_threads.add(int(thread_of[b]))
                    lo += 1
                elif b == hi - 1:
                    hi -= 1
                else:
                    raise AssertionError(f"block {b} of range [{first}, {end}) ran when "
                                         f"[{lo}, {hi}) were left: order {order}")
            assert len(front_threads) <= 1, (first, end, order, thread_of.tolist())
        assert len(set(thread_of.tolist())) <= threads
