"""The PyTorch ops' errors say what is wrong and how to fix it: unsupported dtypes name the
spec's combinations, a missing backward names the spec key, an unregistered kernel says how to
register it."""

from __future__ import annotations

import importlib
import shutil
import sys
from pathlib import Path

import pytest
import torch
import torch_env  # noqa: F401 - generated/python on sys.path, a private OPGEN_OPP_PATH

from opgen import gen
from opgen.diagnostics import DiagnosticSink
from opgen.project import Config
from opgen_runtime import registry
from opgen_runtime.registry import GradientNotRegisteredError, OpCallError, OpNotRegisteredError

SPECS = Path(__file__).resolve().parents[2] / "specs"


def test_unsupported_dtype_names_the_supported_combinations() -> None:
    from opgen_ops.torch import leaky_relu

    x = torch.ones(4, 8, dtype=torch.float64)
    with pytest.raises(OpCallError) as info:
        leaky_relu.leaky_relu(x)
    assert str(info.value) == (
        "leaky_relu(): no supported dtype combination for (x=float64); "
        "specs/leaky_relu.yaml supports: x=float32 -> y=float32; x=float16 -> y=float16")


def test_unsupported_dtype_is_reported_under_torch_compile_too() -> None:
    from opgen_ops.torch import cast

    mode = torch._subclasses.fake_tensor.FakeTensorMode()
    with mode:
        x = torch.ones(4)
    with pytest.raises(OpCallError, match=r"no supported dtype combination for \(x=float32, "
                                          r"dst_type=float64\)"), mode:
        cast.OP(x, dst_type=torch.float64)


def test_wrong_rank_names_the_spec() -> None:
    from opgen_ops.torch import element_add

    with pytest.raises(OpCallError,
                       match=r"element_add\(\): input 'x' must have rank 1 \(spec shape \[-1\]\)"):
        element_add.element_add(torch.ones(2, 8), torch.ones(2, 8))


def test_unregistered_kernel_says_how_to_register(monkeypatch: pytest.MonkeyPatch,
                                                  tmp_path: Path) -> None:
    """The Python CPU kernel (the fallback without the C++ kernel library, whose kernels are
    embedded and need no registration) runs the kernel registered with the runtime."""
    from opgen_ops.torch import softmax

    monkeypatch.setattr(registry, "REGISTRY", registry.Registry())  # a fresh process's
    monkeypatch.setenv("OPGEN_OPP_PATH", str(tmp_path))  # and an empty op package dir
    with pytest.raises(OpNotRegisteredError) as info:
        softmax._cpu(torch.ones(4, 8))
    message = str(info.value)
    assert message.startswith("opgen_ops::softmax: the kernel of 'softmax' is not registered")
    assert "`import opgen_ops.registration.softmax`" in message
    assert "rank 0 only" in message and "OPGEN_OPP_PATH" in message


def test_backward_without_spec_backward_names_the_key(monkeypatch: pytest.MonkeyPatch,
                                                     tmp_path: Path) -> None:
    """An op generated from a spec without `backward:` (own package and namespace), on the
    Python CPU kernel (OPGEN_TORCH_KERNELS=python: no second C++ library to compile)."""
    monkeypatch.setenv("OPGEN_TORCH_KERNELS", "python")
    specs = tmp_path / "specs"
    specs.mkdir()
    shutil.copy(SPECS / "leaky_relu.cpp", specs / "leaky_relu.cpp")
    text = (SPECS / "leaky_relu.yaml").read_text("utf-8")
    text = text.replace("op_name: leaky_relu", "op_name: leaky_relu_infer")
    text = text.replace("op_type: LeakyRelu", "op_type: LeakyReluInfer")
    # no backward and no reference (from which a backward would be derived)
    (specs / "leaky_relu_infer.yaml").write_text(text.split("reference:")[0], "utf-8")
    config = Config(root=tmp_path, spec_dir=specs, output_dir=tmp_path / "generated",
                    package="infer_ops", namespace="opgen_infer")
    sink = DiagnosticSink()
    assert gen.run(config, [], sink, incremental=False) is not None, [str(d) for d in sink]
    sys.path.insert(0, str(tmp_path / "generated" / "python"))
    try:
        importlib.import_module("infer_ops.registration.leaky_relu_infer")
        module = importlib.import_module("infer_ops.torch.leaky_relu_infer")
    finally:
        sys.path.remove(str(tmp_path / "generated" / "python"))
    x = torch.ones(4, 8, requires_grad=True)
    y = torch.ops.opgen_infer.leaky_relu_infer(x)  # inference works
    torch.testing.assert_close(y, torch.ones(4, 8))
    with pytest.raises(GradientNotRegisteredError) as info:
        y.sum().backward()
    assert str(info.value).startswith(
        "opgen_infer::leaky_relu_infer has no backward, so it cannot be trained through. Add a "
        "`backward:` key to specs/leaky_relu_infer.yaml")
    assert module.SIGNATURE.package == "infer_ops"
