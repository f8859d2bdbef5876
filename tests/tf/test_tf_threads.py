"""A TF op's launch runs its simulated cores on TensorFlow's intra-op threads: a launch large
enough to share its blocks between threads starts no thread of the kernel library's own pool
(two pools spinning for the same two cores slowed element_add on 1M floats by some 100 us); with
an intra-op parallelism of 1, all on the calling thread."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

GENERATED_PYTHON = Path(__file__).resolve().parents[2] / "generated" / "python"

SCRIPT = textwrap.dedent(
    """
    import os, sys
    sys.path.insert(0, sys.argv[1])
    import numpy as np
    import tensorflow as tf

    tf.config.threading.set_intra_op_parallelism_threads(int(sys.argv[2]))
    import opgen_ops.tf as ops

    n = 1 << 20  # 4 MiB a tensor: well over the size a launch keeps on the calling thread
    x = tf.constant(np.random.default_rng(0).random(n, np.float32))
    y = tf.constant(np.random.default_rng(1).random(n, np.float32))
    for _ in range(3):  # TensorFlow's own threads exist after its first ops
        tf.add(x, y)
        tf.reduce_sum(x)
    ops.element_add(x[:16], y[:16])  # the simulator's first launch (its watchdog)
    before = len(os.listdir("/proc/self/task"))
    z = ops.element_add(x, y)
    z = ops.element_add(x, y)
    after = len(os.listdir("/proc/self/task"))
    np.testing.assert_array_equal(z.numpy(), x.numpy() + y.numpy())
    print(before, after)
    """
)


@pytest.mark.skipif((os.cpu_count() or 1) < 2 or not os.path.isdir("/proc/self/task"),
                    reason="needs two cores and /proc")
@pytest.mark.parametrize("intra_op", [1, 2])
def test_launch_uses_tensorflows_intra_op_threads(tf_ops: object, intra_op: int) -> None:
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3")
    env.pop("OPGEN_SIM_THREADS", None)
    argv = [sys.executable, "-c", SCRIPT, str(GENERATED_PYTHON), str(intra_op)]
    done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    before, after = map(int, done.stdout.split()[-2:])
    assert after == before, f"the launch started {after - before} thread(s) of its own"
