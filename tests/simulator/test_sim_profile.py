"""Launch counters: bytes moved, vector instructions and repeats, lanes, peak UB, block times."""

from __future__ import annotations

import numpy as np


def test_element_add_counters(run_op) -> None:
    n = 8192 * 3 + 100  # 3 full tiles and a tail in one block
    x = np.ones(n, np.float32)
    z = np.zeros(n, np.float32)
    prof = run_op("element_add", {"x": x, "y": x}, {"z": z}, block_dim=1)
    assert prof.gm_to_ub_bytes == 2 * n * 4
    assert prof.ub_to_gm_bytes == n * 4
    assert prof.vector_instructions == 4
    assert prof.vector_repeats == 3 * 128 + 2  # 104 floats (padded tail) = 2 repeats of 64
    assert prof.lane_utilisation == (3 * 8192 + 104) / ((3 * 128 + 2) * 64)
    assert prof.peak_ub_bytes == 2 * 3 * 8192 * 4
    assert len(prof.block_times_ns) == 1 and prof.block_times_ns[0] > 0
    table = prof.table()
    assert "GM->UB B" in table and "lanes %" in table
    assert table.splitlines()[-1].split()[:3] == ["total", str(2 * n * 4), str(n * 4)]


def test_counters_are_per_block(run_op) -> None:
    n = 64 * 1024
    x = np.ones(n, np.float32)
    prof = run_op("element_add", {"x": x, "y": x}, {"z": np.zeros_like(x)}, block_dim=4)
    assert [b.gm_to_ub_bytes for b in prof.blocks] == [2 * n] * 4
    assert prof.as_dict()["block_dim"] == 4
