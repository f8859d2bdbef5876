"""A spec's `kernel.tiling_hook` replaces the default host tiling in the runtime."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from opgen import gen
from opgen.diagnostics import DiagnosticSink
from opgen.project import load_config
from opgen_runtime import registry
from opgen_runtime.errors import TilingError
from opgen_runtime.metadef import load
from opgen_runtime.oplib import build_operator_library

KERNEL = """\
#include "kernel_operator.h"

struct ScaleByTilingData {
    uint32_t totalLength;
    float factor;  // no attr, no policy field: only the hook knows it
};
REGISTER_TILING_DEFAULT(ScaleByTilingData);

extern "C" __global__ __aicore__ void scale_by(GM_ADDR x, GM_ADDR y, GM_ADDR workspace,
                                               GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    if (AscendC::GetBlockIdx() != 0) {
        return;
    }
    AscendC::GlobalTensor<float> xg;
    AscendC::GlobalTensor<float> yg;
    xg.SetGlobalBuffer((__gm__ float *)x, t.totalLength);
    yg.SetGlobalBuffer((__gm__ float *)y, t.totalLength);
    for (uint32_t i = 0; i < t.totalLength; ++i) {
        yg.SetValue(i, xg.GetValue(i) * t.factor);
    }
}
"""

SPEC = """\
op_name: scale_by
input_desc:
  - {name: x, dtype: [float32], shape: [-1]}
output_desc:
  - {name: y, dtype: [float32], shape: [-1]}
kernel:
  tiling_hook: scale_by_tiling:tiling
reference: x * 3
backward:
  x: grad_y * 3
"""

HOOK = """\
from opgen_runtime import default_tiling


def tiling(layout, inputs, outputs, attrs, soc):
    n = int(outputs["y"].shape[0])
    return 1, {"totalLength": n, "factor": 3.0}
"""


def _project(tmp_path: Path, hook: str) -> Path:
    (tmp_path / "pyproject.toml").write_text('[tool.opgen]\nspec_dir = "specs"\n')
    specs = tmp_path / "specs"
    specs.mkdir()
    (specs / "scale_by.yaml").write_text(SPEC)
    (specs / "scale_by.cpp").write_text(KERNEL)
    (specs / "scale_by_tiling.py").write_text(hook)
    sink = DiagnosticSink()
    assert gen.run(load_config(tmp_path), [], sink) is not None, [str(d) for d in sink]
    return tmp_path / "generated" / "metadef" / "scale_by.json"


def _register(metadef: Path) -> registry.Registry:
    reg = registry.Registry()
    reg.load_operator_library(build_operator_library(load(metadef)))
    reg.register_operator("scale_by")
    reg.register_operator_model("scale_by", metadef, "scale_by")
    return reg


def test_the_hook_fills_the_tiling(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPGEN_OPP_PATH", str(tmp_path / "opp"))
    reg = _register(_project(tmp_path, HOOK))
    x = np.arange(40, dtype=np.float32)
    np.testing.assert_array_equal(reg.call("scale_by", x), 3 * x)


def test_a_broken_hook_is_a_clear_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPGEN_OPP_PATH", str(tmp_path / "opp"))
    reg = _register(_project(tmp_path, "def other():\n    pass\n"))
    with pytest.raises(TilingError, match=r"tiling_hook 'scale_by_tiling:tiling': "
                                          r"scale_by_tiling has no function 'tiling'"):
        reg.call("scale_by", np.ones(8, np.float32))


KEYED_KERNEL = KERNEL.replace(
    "    if (AscendC::GetBlockIdx() != 0) {",
    "    if (TILING_KEY_IS(7)) {\n        t.factor = -t.factor;  // key 7: negate\n    }\n"
    "    if (AscendC::GetBlockIdx() != 0) {")

KEYED_HOOK = """\
def tiling(layout, inputs, outputs, attrs, soc):
    n = int(outputs["y"].shape[0])
    return 1, {"totalLength": n, "factor": 3.0}, (7 if n > 16 else 0)
"""


def test_a_hook_may_return_a_tiling_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPGEN_OPP_PATH", str(tmp_path / "opp"))
    metadef = _project(tmp_path, KEYED_HOOK)
    (tmp_path / "specs" / "scale_by.cpp").write_text(KEYED_KERNEL)
    sink = DiagnosticSink()
    assert gen.run(load_config(tmp_path), [], sink) is not None, [str(d) for d in sink]
    reg = _register(metadef)
    small, large = np.arange(8, dtype=np.float32), np.arange(40, dtype=np.float32)
    np.testing.assert_array_equal(reg.call("scale_by", small), 3 * small)  # key 0
    np.testing.assert_array_equal(reg.call("scale_by", large), -3 * large)  # key 7
