"""Kernel frontend benchmark: libclang parse time per kernel, and no-op `opgen generate`.

Writes the "Kernel frontend" section of benchmarks/RESULTS.md. Targets: <= 10 ms per kernel
parse (200 synthesised kernels in the style of CANN's add_custom sample), and a no-op
`opgen generate` of 1,000 ops with kernels (every parse a cache hit) under 1 s.

    .venv/bin/python benchmarks/bench_frontend.py [--ops 1000] [--kernels 200]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from results import machine, table, write_section

from opgen.diagnostics import DiagnosticSink
from opgen.kernel_frontend import ParseCache, analyze, default_display, parse_kernel
from opgen.project import discover, load_config, load_specs

OPGEN = Path(sys.executable).parent / "opgen"


def kernel_source(i: int, n_in: int, n_attrs: int) -> str:
    ins = [f"x{k}" for k in range(n_in)]
    params = ", ".join(f"GM_ADDR {n}" for n in (*ins, "z", "workspace", "tiling"))
    attrs = "".join(f"    float attr{k};\n" for k in range(n_attrs))
    members = "".join(f"    AscendC::GlobalTensor<T> {n}Gm;\n" for n in ins)
    copies = "".join(f"        AscendC::DataCopy({n}Local, {n}Gm[p * tileLength], tileLength);\n"
                     for n in ins)
    return f"""// op_{i}: synthesised in the style of CANN's add_custom sample.
#include "kernel_operator.h"
constexpr int32_t BUFFER_NUM = 2;

struct Op{i}TilingData {{
    uint32_t totalLength;
    uint32_t tileNum;
    uint32_t tileLength;
    int64_t x0Shape[8];
{attrs}}};

template <typename T>
class KernelOp{i} {{
public:
    __aicore__ inline KernelOp{i}() {{}}
    __aicore__ inline void Init({params}, uint32_t totalLength, uint32_t tileNum)
    {{
        blockLength = totalLength / AscendC::GetBlockNum();
        tileLength = blockLength / tileNum / BUFFER_NUM;
        pipe.InitBuffer(inQueue, BUFFER_NUM, tileLength * sizeof(T));
    }}
    __aicore__ inline void Process()
    {{
        for (int32_t p = 0; p < tileNum * BUFFER_NUM; p++) {{
            AscendC::LocalTensor<T> x0Local = inQueue.template AllocTensor<T>();
{copies}            inQueue.EnQue(x0Local);
        }}
    }}
private:
    AscendC::TPipe pipe;
    AscendC::TQue<AscendC::TPosition::VECIN, BUFFER_NUM> inQueue;
    AscendC::TQue<AscendC::TPosition::VECOUT, BUFFER_NUM> outQueue;
{members}    AscendC::GlobalTensor<T> zGm;
    uint32_t blockLength, tileNum, tileLength;
}};

extern "C" __global__ __aicore__ void op_{i}({params})
{{
    REGISTER_TILING_DEFAULT(Op{i}TilingData);
    GET_TILING_DATA(tilingData, tiling);
    KernelOp{i}<float> op;
    op.Process();
}}
"""


def spec_source(i: int, n_in: int, n_attrs: int) -> str:
    ins = "".join(f"  - {{name: x{k}, dtype: [float32], format: [ND], shape: [-1]}}\n"
                  for k in range(n_in))
    attrs = "".join(f"  - {{name: attr{k}, type: float, default: 1.0}}\n" for k in range(n_attrs))
    attr_block = f"attr_desc:\n{attrs}" if n_attrs else ""
    grads = "".join(f"  x{k}: grad_z\n" for k in range(n_in))
    return (f"op_name: op_{i}\nop_type: Op{i}\ninput_desc:\n{ins}output_desc:\n"
            "  - {name: z, dtype: [float32], format: [ND], shape: [-1], infer: same_as(x0)}\n"
            f"{attr_block}reference: {' + '.join(f'x{k}' for k in range(n_in))}\n"
            f"backward:\n{grads}")


def write_project(root: Path, count: int) -> None:
    (root / "specs").mkdir(parents=True)
    (root / "pyproject.toml").write_text("[tool.opgen]\nspec_dir = \"specs\"\n"
                                         "output_dir = \"generated\"\n")
    for i in range(count):
        n_in, n_attrs = 1 + i % 3, i % 4
        (root / "specs" / f"op_{i}.yaml").write_text(spec_source(i, n_in, n_attrs))
        (root / "specs" / f"op_{i}.cpp").write_text(kernel_source(i, n_in, n_attrs))


def bench_parse(tmp: Path, count: int) -> list[float]:
    root = tmp / "parse"
    write_project(root, count)
    show = default_display(root)
    parse_kernel(root / "specs" / "op_0.cpp", show)  # load libclang, probe the toolchain
    times = []
    for i in range(count):
        start = time.perf_counter()
        result = parse_kernel(root / "specs" / f"op_{i}.cpp", show)
        times.append((time.perf_counter() - start) * 1000)
        assert result.info.ok, result.info.diagnostics
    return times


def run_generate(root: Path, env: dict[str, str]) -> float:
    start = time.perf_counter()
    proc = subprocess.run([str(OPGEN), "generate", "-q"], cwd=root, env=env,
                          capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"opgen generate failed:\n{proc.stderr[:2000]}")
    return elapsed


def bench_generate(tmp: Path, count: int) -> dict[str, float]:
    root = tmp / "gen"
    write_project(root, count)
    env = {**os.environ, "OPGEN_CACHE_DIR": str(tmp / "cache")}
    cold = run_generate(root, env)
    noop = min(run_generate(root, env) for _ in range(3))
    # In-process: the frontend's share of a no-op run (all cache hits).
    os.environ["OPGEN_CACHE_DIR"] = str(tmp / "cache")
    config = load_config(root)
    sink = DiagnosticSink()
    specs = load_specs(discover(config.spec_dir), config, sink)
    cache = ParseCache()
    start = time.perf_counter()
    analyze(specs, config.root, sink, cache=cache)
    warm = time.perf_counter() - start
    assert cache.misses == 0 and cache.hits == count and not sink.has_errors
    return {"cold": cold, "noop": noop, "frontend_warm": warm}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--kernels", type=int, default=200)
    ap.add_argument("--ops", type=int, default=1000)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        times = bench_parse(tmp, args.kernels)
        gen = bench_generate(tmp, args.ops)
    q = statistics.quantiles(times, n=20)
    parse_rows = [
        ["median", f"{statistics.median(times):.2f}", "<= 10"],
        ["mean", f"{statistics.mean(times):.2f}", ""],
        ["p95", f"{q[18]:.2f}", ""],
        ["max", f"{max(times):.2f}", ""],
    ]
    gen_rows = [
        [f"cold `opgen generate` ({args.ops} ops, every kernel parsed)", f"{gen['cold']:.2f}", ""],
        [f"no-op `opgen generate` ({args.ops} ops, every parse a cache hit), best of 3",
         f"{gen['noop']:.2f}", "< 1"],
        ["of which the kernel frontend (cache look-ups, cross-checks), in process",
         f"{gen['frontend_warm']:.2f}", ""],
    ]
    body = (f"`benchmarks/bench_frontend.py` on {machine()}, libclang 18.1.1. Parse: "
            f"{args.kernels} synthesised kernels in the style of CANN's add_custom sample "
            "(1-3 inputs, a templated kernel class, a tiling struct), parsed one after the "
            "other in one process, cache bypassed.\n\n"
            + table(["parse time per kernel", "ms", "target (ms)"], parse_rows)
            + "\n" + table(["run", "seconds", "target (s)"], gen_rows))
    write_section("Kernel frontend", body)
    print(body)


if __name__ == "__main__":
    main()
