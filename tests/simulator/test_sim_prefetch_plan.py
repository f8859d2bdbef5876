"""The prefetch plan of streaming copies (copy_bytes.h, "The next lines"; core.h, PlanPrefetch and
DripPrefetch): a copy between GM and UB in a launch whose GM arguments reach 4 MiB, with at least
two vector instructions since the previous copy of its direction, leaves the n bytes after its GM
end to the vector instructions that follow, each prefetching an even share (at least 512 bytes);
a copy after fewer prefetches them itself and plans nothing. A multi-block copy plans after its
last block. Prefetches change no result: the rows copied out are checked too."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import opgen_runtime as rt

COLS = 1024  # one row: 4 KiB of float32
ROWS = 1024  # x: 4 MiB, so the launch's copies stream (kStreamFootprint); y has 8 rows, so the
# launch stays below any last-level cache and its copies to GM store through it (a
# non-temporal store, CopyStream, plans nothing)

KERNEL = r"""
#include "kernel_operator.h"
using namespace AscendC;

// one record: the read plan then the write plan, each (bytes left, step, next - x or y in bytes)
__aicore__ inline void Note(GlobalTensor<int64_t>& out, int32_t& at, GM_ADDR x, GM_ADDR y)
{
    const opgen_sim::Core& c = opgen_sim::CurrentCore();
    const uint8_t* xb = reinterpret_cast<const uint8_t*>(x);
    const uint8_t* yb = reinterpret_cast<const uint8_t*>(y);
    out.SetValue(at++, static_cast<int64_t>(c.pf_read.left));
    out.SetValue(at++, c.pf_read.left ? static_cast<int64_t>(c.pf_read.step) : 0);
    out.SetValue(at++, c.pf_read.left ? static_cast<int64_t>(c.pf_read.next - xb) : 0);
    out.SetValue(at++, static_cast<int64_t>(c.pf_write.left));
    out.SetValue(at++, c.pf_write.left ? static_cast<int64_t>(c.pf_write.step) : 0);
    out.SetValue(at++, c.pf_write.left ? static_cast<int64_t>(c.pf_write.next - yb) : 0);
}

extern "C" __global__ __aicore__ void plan(GM_ADDR x, GM_ADDR y, GM_ADDR notes, GM_ADDR ws,
                                           GM_ADDR tiling)
{
    constexpr uint32_t n = COLS;
    GlobalTensor<float> xg, yg;
    GlobalTensor<int64_t> out;
    xg.SetGlobalBuffer((__gm__ float*)x, ROWS * n);
    yg.SetGlobalBuffer((__gm__ float*)y, YROWS * n);
    out.SetGlobalBuffer((__gm__ int64_t*)notes, 64);
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 4 * n * sizeof(float));
    LocalTensor<float> a = buf.Get<float>(), b = a[n], w = a[2 * n];
    DataCopyExtParams row{1, n * sizeof(float), 0, 0, 0};
    DataCopyExtParams rows2{2, n * sizeof(float), 0, 0, 0};
    DataCopyPadExtParams<float> pad{false, 0, 0, 0};
    int32_t at = 0;
    DataCopyPad(a, xg, row, pad);  // the block's first copy: no plan
    Note(out, at, x, y);
    for (int k = 0; k < 6; ++k) Muls(b, a, 2.0f, n);
    DataCopyPad(a, xg[n], row, pad);  // six instructions since: row 2 planned, 4096 / 6 a step
    Note(out, at, x, y);
    Muls(b, a, 2.0f, n);
    Muls(b, b, 0.5f, n);  // two shares taken
    Note(out, at, x, y);
    DataCopyPad(yg[n], b, row);  // eight since the block began: y's row 2, 512 a step
    Note(out, at, x, y);
    DataCopyPad(a, xg[2 * n], row, pad);  // two since the last copy in: the next row, 2048 a step
    Note(out, at, x, y);
    DataCopyPad(a, xg[3 * n], row, pad);  // right after a copy: prefetched by the copy, no plan
    Note(out, at, x, y);
    Adds(w, a, 1.0f, n);
    Adds(w, w, 1.0f, n);
    Adds(w, w, 1.0f, n);
    DataCopyPad(w, xg[4 * n], rows2, pad);  // rows 4 and 5: planned after the last, 4096 / 3
    Note(out, at, x, y);
    DataCopyPad(yg[3 * n], w, rows2);  // rows 3 and 4 of y, three instructions since y's last
    Note(out, at, x, y);
}
""".replace("YROWS", str(8)).replace("COLS", str(COLS)).replace("ROWS", str(ROWS))

ROW = COLS * 4
# (read left, step, next offset; write left, step, next offset) after each step of the kernel
EXPECTED = [
    (0, 0, 0, 0, 0, 0),
    (ROW, 704, 2 * ROW, 0, 0, 0),
    (ROW - 2 * 704, 704, 2 * ROW + 2 * 704, 0, 0, 0),
    (ROW - 2 * 704, 704, 2 * ROW + 2 * 704, ROW, 512, 2 * ROW),
    (ROW, 2048, 3 * ROW, ROW, 512, 2 * ROW),
    (0, 0, 0, ROW, 512, 2 * ROW),
    # the three Adds took three of y's shares; the read plan: 4096 / 3 rounded up to 1408
    (ROW, 1408, 6 * ROW, ROW - 3 * 512, 512, 2 * ROW + 3 * 512),
    (ROW, 1408, 6 * ROW, ROW, 1408, 5 * ROW),
]


@pytest.fixture(scope="module")
def lib(tmp_path_factory: pytest.TempPathFactory) -> rt.KernelLibrary:
    src = Path(tmp_path_factory.mktemp("plan")) / "plan.cpp"
    src.write_text(KERNEL)
    return rt.build_kernel(src, entry="plan")


def test_copies_plan_the_next_lines_over_the_vector_instructions(lib: rt.KernelLibrary) -> None:
    x = rt.gm_empty(ROWS * COLS, np.float32)
    x[:] = np.arange(ROWS * COLS, dtype=np.float32) % 997
    y = rt.gm_empty(8 * COLS, np.float32)
    y[:] = -1
    notes = rt.gm_empty(64, np.int64)
    notes[:] = -7
    rt.launch(lib, "plan", {"x": x, "y": y, "notes": notes}, block_dim=1, tiling=b"\0" * 8)
    got = [tuple(int(v) for v in notes[6 * i: 6 * i + 6]) for i in range(len(EXPECTED))]
    assert got == EXPECTED
    rows = np.asarray(x).reshape(ROWS, COLS)
    out = np.asarray(y).reshape(8, COLS)
    np.testing.assert_array_equal(out[1], rows[1] * 2.0 * 0.5)  # the planned copies moved the rows
    np.testing.assert_array_equal(out[3:5], rows[4:6])
    assert (out[0] == -1).all() and (out[2] == -1).all() and (out[5:] == -1).all()
