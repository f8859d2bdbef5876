"""An op whose OpDef has no output and whose kernel writes its first input in place
(tests/fixtures/msopgen_inplace, AddScaledInplace: x += alpha * y): the import marks the input
`inplace: true`, the registry returns the updated copy and leaves the caller's array as it was,
and the PyTorch and TensorFlow modules refuse the op with a located message."""

from __future__ import annotations

import importlib
import shutil
import sys
from pathlib import Path

import built_ops
import numpy as np
import pytest
import yaml

from conftest import ROOT
from opgen.cli import main
from opgen_runtime.registry import OpCallError

FIXTURE = ROOT / "tests" / "fixtures" / "msopgen_inplace"


@pytest.fixture(scope="module")
def work(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("inplace")
    for part in ("op_host", "op_kernel"):
        shutil.copytree(FIXTURE / part, root / "AddScaledInplace" / part)
    work = root / "work"
    work.mkdir()
    (work / "pyproject.toml").write_text('[tool.opgen]\nspec_dir = "specs"\n'
                                         'package = "inplace_reg"\n')
    mp = pytest.MonkeyPatch()
    mp.chdir(work)
    try:
        assert main(["import-msopgen", str(root / "AddScaledInplace")]) == 0
        assert main(["generate", "-q"]) == 0
    finally:
        mp.undo()
    return work


def test_import_marks_the_first_input_inplace(work: Path) -> None:
    spec = yaml.safe_load((work / "specs" / "add_scaled_inplace.yaml").read_text())
    assert "output_desc" not in spec
    assert [(t["name"], t.get("inplace", False)) for t in spec["input_desc"]] == [
        ("x", True), ("y", False)]
    meta = (work / "generated" / "metadef" / "add_scaled_inplace.json").read_text()
    assert '"inplace": true' in meta


def test_registry_returns_the_updated_copy(work: Path) -> None:
    reg = built_ops.registered(work, "add_scaled_inplace")
    rng = np.random.default_rng(3)
    for dtype, n in ((np.float32, 4096), (np.float16, 256), (np.float32, 64)):
        x = rng.standard_normal(n).astype(dtype)
        y = rng.standard_normal(n).astype(dtype)
        keep = x.copy()
        got = reg.call("add_scaled_inplace", x, y, alpha=0.25)
        np.testing.assert_array_equal(x, keep)  # the caller's array is untouched
        assert got.dtype == dtype and got.shape == x.shape
        np.testing.assert_array_equal(got, x + dtype(0.25) * y)
        # a second call (the cached plan) copies again
        np.testing.assert_array_equal(reg.call("add_scaled_inplace", x, y, alpha=0.25), got)


def test_framework_modules_refuse(work: Path) -> None:
    py = work / "generated" / "python"
    torch_mod = (py / "inplace_reg" / "torch" / "add_scaled_inplace.py").read_text()
    assert "in place" in torch_mod
    sys.path.insert(0, str(py))
    try:
        for module, what in (("inplace_reg.torch.add_scaled_inplace", "PyTorch"),
                             ("inplace_reg.tf.add_scaled_inplace", "TensorFlow")):
            mod = importlib.import_module(module)
            with pytest.raises(OpCallError) as info:
                mod.add_scaled_inplace(np.zeros(4, np.float32), np.zeros(4, np.float32))
            text = str(info.value)
            assert text.startswith("add_scaled_inplace: the op writes its input 'x' in place (")
            assert "add_scaled_inplace.yaml:" in text and f"no {what} op" in text
        # the C++ headers of the framework libraries register nothing for it
        for header in (py / "inplace_reg" / "torch" / "cc" / "add_scaled_inplace.h",
                       py / "inplace_reg" / "torch" / "cc" / "add_scaled_inplace_npu.h"):
            assert "TORCH_LIBRARY" not in header.read_text()
    finally:
        sys.path.remove(str(py))
        for name in [m for m in sys.modules if m.startswith("inplace_reg")]:
            del sys.modules[name]


@pytest.mark.parametrize(("text", "message"), [
    ("input_desc:\n  - {name: x, dtype: [float], inplace: true}\n"
     "output_desc:\n  - {name: y, dtype: [float]}\n",
     "input 'x' is written in place (inplace: true), so the op declares no outputs"),
    ("input_desc:\n  - {name: x, dtype: [float], inplace: true, param_type: optional}\n",
     "input 'x' is optional and cannot be written in place"),
    ("input_desc:\n  - {name: x, dtype: [float]}\noutput_desc:\n"
     "  - {name: y, dtype: [float], inplace: true}\n",
     "'inplace' is only meaningful on inputs (output 'y')"),
    ("input_desc:\n  - {name: x, dtype: [float]}\noutput_desc: []\n",
     "output_desc must not be empty: an op has outputs, or an input the kernel writes in place"),
    ("input_desc:\n  - {name: x, dtype: [float], inplace: true}\nreference: x * 2\n",
     "the op writes 'x' in place; a reference"),
])
def test_spec_rules(tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str,
                    message: str) -> None:
    spec = tmp_path / "op.yaml"
    spec.write_text("op_name: my_inplace\n" + text)
    (tmp_path / "my_inplace.cpp").write_text("")
    assert main(["validate", str(spec)]) != 0
    assert message in capsys.readouterr().err
