"""The seed's own registration script and its PyTorch autograd.Function, run against the
simulator with only the import line changed (`import acl` -> `from opgen_runtime import acl`).

The seed's placeholder paths (/path/to/...) are filled in with the real library and
metadef; its gradient metadef is the op's own metadef, which carries `backward:`.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import METADEF, ROOT

SEED = ROOT.parent / "shared" / "seed" / "000_1631478323829bbd.txt"


def _block(text: str, start: str, end: str) -> str:
    lines = text.splitlines()
    first = next(i for i, line in enumerate(lines) if line.startswith(start))
    last = next(i for i in range(first, len(lines)) if lines[i].startswith(end))
    return "\n".join(lines[first:last + 1]) + "\n"


def seed_script(library: Path) -> str:
    text = SEED.read_text("utf-8")
    registration = _block(text, "import acl", 'print("算子注册成功")')
    pytorch = _block(text, "import torch", "        return ElementAdd.apply(x, y)")
    gradient = _block(text, "ret = acl.op.register_operator_gradient(", ")")
    script = registration + "\n" + gradient + "\n" + pytorch
    script = script.replace("import acl", "from opgen_runtime import acl")
    script = (script.replace("/path/to/libelement_add.so", str(library))
              .replace("/path/to/element_add_grad.json", str(METADEF / "element_add.json"))
              .replace("/path/to/element_add.json", str(METADEF / "element_add.json")))
    return script + '''
assert ret == 0, acl.get_recent_err_msg()
x = torch.arange(40, dtype=torch.float32, requires_grad=True)
y = torch.ones(40, requires_grad=True)
z = ElementAddModule()(x, y)
assert torch.equal(z, x.detach() + 1), z
z.sum().backward()
assert torch.equal(x.grad, torch.ones(40)) and torch.equal(y.grad, torch.ones(40))
print("seed script ok")
'''


def test_seed_registration_and_autograd_run_unchanged(libs: dict[str, Path], tmp_path: Path,
                                                      opp: Path) -> None:
    pytest.importorskip("torch")
    if not SEED.exists():
        pytest.skip("the seed document is not beside the repository")
    script = tmp_path / "seed.py"
    script.write_text(seed_script(libs["element_add"]), "utf-8")
    result = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                            check=False, cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "算子注册成功" in result.stdout and "seed script ok" in result.stdout


def test_acl_codes_and_messages(libs: dict[str, Path], opp: Path) -> None:
    from opgen_runtime import acl, registry

    registry.REGISTRY.reset()
    assert acl.op.register_operator("element_add") == acl.ACL_ERROR_UNINITIALIZE
    assert acl.init() == 0
    try:
        assert acl.init() == acl.ACL_ERROR_REPEAT_INITIALIZE
        assert acl.rt.set_device(1) == acl.ACL_ERROR_INVALID_PARAM
        assert acl.rt.set_device(0) == 0
        assert acl.op.register_operator("element_add") == acl.ACL_ERROR_INVALID_PARAM
        assert "the order is load_operator_library -> register_operator" in (
            acl.get_recent_err_msg())
        assert acl.ops.load_operator_library("libelement_add.so") == acl.ACL_ERROR_INVALID_FILE
        assert "is relative" in acl.get_recent_err_msg()
        assert acl.op.load_operator_library(str(libs["element_add"])) == 0
        assert acl.op.register_operator("element_add") == 0
        code = acl.op.register_operator_model("element_add", str(METADEF / "element_add.json"),
                                              "elementadd")
        assert code == acl.ACL_ERROR_KERNEL_NOT_FOUND
        assert "did you mean 'element_add'?" in acl.get_recent_err_msg()
        assert acl.op.register_operator_model("element_add", str(METADEF / "element_add.json"),
                                              "element_add") == 0
        import numpy as np

        out = acl.ops.element_add(np.ones(8, np.float32), np.ones(8, np.float32))
        assert isinstance(out, np.ndarray) and out.tolist() == [2.0] * 8
    finally:
        acl.finalize()
        registry.REGISTRY.reset()
