"""Throughput of the simulator's Mmad against a plain C++ loop doing the same sums.

One block runs `Mmad` (half inputs, float accumulation, the A2/A3's fractal layouts in L0A, L0B
and L0C) REPEATS times on UB-free cube tensors; the loop computes the same m x n x k cells over
the same fractal layouts in the simulator's order (each cell's k products summed sixteen at a
time, each block's sum added to the cell), one cell after another, compiled with the simulator's
flags and loaded with ctypes in the same run. The two are timed in alternation; the ratio is the
median of the back-to-back pairs' ratios. The outputs are compared bit for bit.

Usage: python benchmarks/bench_cube.py
"""

from __future__ import annotations

import ctypes
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from results import machine, table, write_section

import opgen_runtime as rt
from opgen_runtime.build import BASE_FLAGS, _compiler

REPEATS = 40
SHAPES = [(128, 256, 64), (64, 64, 256), (37, 250, 61)]
PAIRS = 9

KERNEL = r"""
#include "kernel_operator.h"
using namespace AscendC;
struct CubeBenchTiling { uint32_t m, n, k, repeats; };
REGISTER_TILING_DEFAULT(CubeBenchTiling);
extern "C" __global__ __aicore__ void cube_bench(GM_ADDR a, GM_ADDR b, GM_ADDR c, GM_ADDR ws,
                                                 GM_ADDR tiling) {
    GET_TILING_DATA(t, tiling);
    const uint32_t m16 = (t.m + 15) / 16 * 16, n16 = (t.n + 15) / 16 * 16;
    const uint32_t k16 = (t.k + 15) / 16 * 16;
    LocalTensor<half> fa(TPosition::A2, 0, m16 * k16);
    LocalTensor<half> fb(TPosition::B2, 0, k16 * n16);
    LocalTensor<float> fc(TPosition::CO1, 0, m16 * n16);
    GlobalTensor<half> ga, gb;
    ga.SetGlobalBuffer((__gm__ half*)a, m16 * k16);
    gb.SetGlobalBuffer((__gm__ half*)b, k16 * n16);
    for (uint32_t i = 0; i < m16 * k16; ++i) fa.SetValue(i, ga.GetValue(i));
    for (uint32_t i = 0; i < k16 * n16; ++i) fb.SetValue(i, gb.GetValue(i));
    for (uint32_t r = 0; r < t.repeats; ++r) {
        Mmad(fc, fa, fb, MmadParams{(uint16_t)t.m, (uint16_t)t.n, (uint16_t)t.k, 0, false, r == 0});
    }
    GlobalTensor<float> gc;
    gc.SetGlobalBuffer((__gm__ float*)c, m16 * n16);
    for (uint32_t i = 0; i < m16 * n16; ++i) gc.SetValue(i, fc.GetValue(i));
}
"""

LOOP = r"""
#include <cstdint>
#include <vector>
// A: Zz fractals (i/16, kk/16) of 16 x 16 halves; B: (kk/16, j/16), 16 rows of j with 16 of k;
// C: (j/16, i/16) of 16 x 16 floats. The halves widened once a call, then each cell: its k
// products sixteen at a time, in order, each block's sum added to the cell.
extern "C" __attribute__((visibility("default"))) void plain_mmad(
        const _Float16* a, const _Float16* b, float* c, int m, int n, int k, int repeats) {
    const int m1 = (m + 15) / 16, n1 = (n + 15) / 16, k1 = (k + 15) / 16;
    std::vector<float> af(m1 * k1 * 256), bf(k1 * n1 * 256);
    for (int r = 0; r < repeats; ++r) {
        for (std::size_t e = 0; e < af.size(); ++e) af[e] = (float)a[e];
        for (std::size_t e = 0; e < bf.size(); ++e) bf[e] = (float)b[e];
        for (int i = 0; i < m; ++i) {
            for (int j = 0; j < n; ++j) {
                float* cell = c + ((j / 16) * m1 + i / 16) * 256 + (i % 16) * 16 + j % 16;
                float acc = r == 0 ? 0.0f : *cell;
                for (int kb = 0; kb < k1; ++kb) {
                    const float* ar = af.data() + ((i / 16) * k1 + kb) * 256 + (i % 16) * 16;
                    const float* bc = bf.data() + (kb * n1 + j / 16) * 256 + (j % 16) * 16;
                    const int len = k - kb * 16 < 16 ? k - kb * 16 : 16;
                    float s = 0.0f;
                    for (int q = 0; q < len; ++q) s += ar[q] * bc[q];
                    acc += s;
                }
                *cell = acc;
            }
        }
    }
}
"""


def main() -> int:
    work = Path(tempfile.mkdtemp(prefix="bench_cube."))
    src = work / "cube_bench.cpp"
    src.write_text(KERNEL)
    lib = rt.build_kernel(src, entry="cube_bench")
    loop_src = work / "plain_mmad.cpp"
    loop_src.write_text(LOOP)
    so = work / "plain_mmad.so"
    flags = [f for f in BASE_FLAGS if not f.startswith("-D")]
    subprocess.run([_compiler(), *flags, "-o", str(so), str(loop_src)], check=True)
    plain = ctypes.CDLL(str(so)).plain_mmad
    rows = []
    rng = np.random.default_rng(0)
    for m, n, k in SHAPES:
        m16, n16, k16 = (-(-x // 16) * 16 for x in (m, n, k))
        a = rt.gm_empty(m16 * k16, np.float16)
        b = rt.gm_empty(k16 * n16, np.float16)
        a[...] = rng.uniform(-1, 1, a.size).astype(np.float16)
        b[...] = rng.uniform(-1, 1, b.size).astype(np.float16)
        c = rt.gm_empty(m16 * n16, np.float32)
        c_plain = np.zeros(m16 * n16, np.float32)
        tiling = np.array([m, n, k, REPEATS], np.uint32).tobytes()

        def sim(a=a, b=b, c=c, tiling=tiling) -> None:  # type: ignore[no-untyped-def]
            rt.launch(lib, "cube_bench", [a, b, c], block_dim=1, tiling=tiling)

        def loop(m=m, n=n, k=k, a=a, b=b, out=c_plain) -> None:  # type: ignore[no-untyped-def]
            plain(a.ctypes.data_as(ctypes.c_void_p), b.ctypes.data_as(ctypes.c_void_p),
                  out.ctypes.data_as(ctypes.c_void_p), m, n, k, REPEATS)

        ts: list[float] = []
        tl: list[float] = []
        for _ in range(PAIRS):
            for fn, out in ((sim, ts), (loop, tl)):
                t0 = time.perf_counter()
                fn()
                out.append(time.perf_counter() - t0)
        # the cells the call writes: rows < m, columns < n
        written = np.zeros((n16 // 16, m16 // 16, 16, 16), bool)
        for i in range(m):
            for j in range(n):
                written[j // 16, i // 16, i % 16, j % 16] = True
        mask = written.reshape(-1)
        same = np.array_equal(c[mask].view(np.uint32), c_plain[mask].view(np.uint32))
        macs = m * n * k * REPEATS
        ratio = sorted(x / y for x, y in zip(tl, ts, strict=True))[PAIRS // 2]
        rows.append((f"{m} x {n} x {k}", f"{macs / min(ts) / 1e9:.2f}",
                     f"{macs / min(tl) / 1e9:.2f}", f"{ratio:.1f}x", "yes" if same else "NO"))
        print(rows[-1], flush=True)
    body = (f"`benchmarks/bench_cube.py` on {machine()}: one block's `Mmad` (half x half -> float, "
            f"the A2/A3 fractal layouts), {REPEATS} a launch, against a plain C++ loop doing the "
            "same sums in the same order (compiled with the simulator's flags, in the same run); "
            f"best of {PAIRS} alternating runs, the speed-up the median of the pairs' ratios. The "
            "simulator runs the sixteen columns of a C fractal as vector lanes, four rows at a "
            "time (AVX2 where the CPU has it, no FMA) and widens half with F16C: each lane does "
            "the loop's operations, so the results are the same, bit for bit.\n\n"
            + table(("m x n x k", "simulator GMAC/s", "plain loop GMAC/s",
                     "simulator / loop speed", "bit-identical"), rows))
    write_section("Cube (Mmad)", body)
    return 0 if all(r[-1] == "yes" for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
