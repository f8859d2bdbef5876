"""Kernels written against CANN 8's high-level API layout include each API's own header,
`lib/math/kernel_operator_<api>_intf.h` or `lib/sigmoid/kernel_operator_sigmoid_intf.h`
(ops-nn's foreach_tanh, foreach_erf, foreach_sigmoid). Every such path of the layout's math
headers exists: the kernel frontend parses such a kernel, and the simulator builds and runs it
(the headers bring in kernel_operator.h)."""

from __future__ import annotations

from math import erf
from pathlib import Path

import numpy as np
import pytest

import opgen_runtime as rt
from opgen.kernel_frontend import default_display, parse_kernel
from opgen_runtime.build import include_dir

MATH = ["acos", "acosh", "asin", "asinh", "atan", "atanh", "axpy", "ceil", "clamp", "cos", "cosh",
        "digamma", "erf", "erfc", "exp", "floor", "frac", "lgamma", "log", "power", "round",
        "sign", "sin", "sinh", "tan", "tanh", "trunc", "xor"]
N = 256

KERNEL = "".join(f'#include "lib/math/kernel_operator_{m}_intf.h"\n' for m in MATH) + r"""
#include "lib/sigmoid/kernel_operator_sigmoid_intf.h"
using namespace AscendC;

extern "C" __global__ __aicore__ void lib_math(GM_ADDR x, GM_ADDR z, GM_ADDR workspace,
                                               GM_ADDR tiling)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 4 * N * sizeof(float));
    GlobalTensor<float> xGm, zGm;
    xGm.SetGlobalBuffer((__gm__ float*)x, N);
    zGm.SetGlobalBuffer((__gm__ float*)z, 3 * N);
    LocalTensor<float> all = buf.Get<float>();
    LocalTensor<float> src = all, out = all[N];
    DataCopy(src, xGm, N);
    Tanh(out, src, N);
    Erf(out[N], src, N);
    Sigmoid(out[2 * N], src, N);
    DataCopy(zGm, out, 3 * N);
}
""".replace("N * sizeof", f"{N} * sizeof").replace(", N)", f", {N})").replace(
    "[N]", f"[{N}]").replace("2 * N", f"{2 * N}").replace("3 * N", f"{3 * N}")


@pytest.fixture(scope="module")
def source(tmp_path_factory: pytest.TempPathFactory) -> Path:
    src = Path(tmp_path_factory.mktemp("lib_math")) / "lib_math.cpp"
    src.write_text(KERNEL)
    return src


def test_every_math_header_of_the_layout_exists() -> None:
    for m in MATH:
        assert (include_dir() / "lib" / "math" / f"kernel_operator_{m}_intf.h").is_file()
    assert (include_dir() / "lib" / "sigmoid" / "kernel_operator_sigmoid_intf.h").is_file()


def test_a_kernel_including_them_parses_builds_and_runs(source: Path) -> None:
    result = parse_kernel(source, default_display(source.parent))
    assert result.info.diagnostics == ()
    assert [e.name for e in result.info.entries] == ["lib_math"]
    lib = rt.build_kernel(source, entry="lib_math")
    x = rt.gm_empty(N, np.float32)
    x[:] = np.linspace(-4, 4, N, dtype=np.float32)
    z = rt.gm_empty(3 * N, np.float32)
    rt.launch(lib, "lib_math", {"x": x, "z": z}, block_dim=1, tiling=b"\0" * 8)
    v = np.asarray(x, np.float64)
    want = np.concatenate([np.tanh(v), np.vectorize(erf)(v), 1 / (1 + np.exp(-v))])
    np.testing.assert_allclose(np.asarray(z, np.float64), want, atol=2e-6)
