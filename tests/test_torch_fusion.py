"""Fusion under torch.compile (opgen_runtime.torch_fusion): a chain of opgen element-wise ops
in a compiled model becomes one fused op, generated and built on first use and cached by
content; outputs and gradients equal eager; graphs without a chain are left alone."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

torch = pytest.importorskip("torch")

sys.path.insert(0, str(Path(__file__).resolve().parent / "torch"))
import torch_env  # noqa: E402,F401 - generated/python on sys.path, a private OPGEN_OPP_PATH
from opgen_ops.torch.element_add import element_add  # noqa: E402
from opgen_ops.torch.leaky_relu import leaky_relu  # noqa: E402

from opgen_runtime import torch_fusion  # noqa: E402


@pytest.fixture(scope="module", autouse=True)
def cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """A private fused-op cache (the C++ library cache stays the shared one)."""
    torch_fusion.cache_dir = tmp_path_factory.mktemp("fused")
    yield torch_fusion.cache_dir
    torch_fusion.cache_dir = None


class Chain(torch.nn.Module):
    """leaky_relu(a + b) + c, then leaky_relu again: a 3-op chain and a 4th fusable call."""

    def forward(self, a: Any, b: Any, c: Any) -> Any:
        t = element_add(a, b)
        t = leaky_relu(t, negative_slope=0.2)
        return element_add(t, c)


class NoChain(torch.nn.Module):
    """An opgen op whose result is used twice, and one fed by a torch op: nothing to fuse."""

    def forward(self, a: Any, b: Any) -> Any:
        t = element_add(a, b)
        return leaky_relu(t * 2.0, negative_slope=0.1) + t


def _inputs(grad: bool) -> list[Any]:
    gen = torch.Generator().manual_seed(0)
    return [torch.randn(1200, generator=gen).requires_grad_(grad) for _ in range(3)]


def _graphs(model: Any, *inputs: Any) -> list[Any]:
    """The FX graphs the fusing backend hands to its inner backend."""
    seen: list[Any] = []

    def inner(gm: Any, example_inputs: Any) -> Any:
        seen.append(gm.graph)
        return gm.forward

    torch._dynamo.reset()
    torch.compile(model, backend=torch_fusion.make_backend(inner))(*inputs)
    return seen


def _targets(graph: Any) -> list[str]:
    return [str(n.target) for n in graph.nodes if n.op == "call_function"]


def test_chain_is_replaced_by_one_fused_op_built_once() -> None:
    torch_fusion.stats.reset()
    (graph,) = _graphs(Chain(), *_inputs(False))
    targets = _targets(graph)
    assert len(targets) == 1 and targets[0].startswith("opgen_fused_"), targets
    assert torch_fusion.stats.chains == 1 and torch_fusion.stats.builds == 1
    # a second compile (after dynamo forgets the first) reuses the loaded op
    (graph,) = _graphs(Chain(), *_inputs(False))
    assert _targets(graph) == targets
    assert torch_fusion.stats.builds == 1 and torch_fusion.stats.memory_hits == 1


def test_outputs_and_gradients_equal_eager() -> None:
    model = Chain()
    eager_in, compiled_in = _inputs(True), _inputs(True)
    expected = model(*eager_in)
    expected.backward(torch.ones_like(expected) * 0.5)
    torch._dynamo.reset()
    compiled = torch.compile(model, backend=torch_fusion.make_backend("aot_eager"))
    builds = torch_fusion.stats.builds
    out = compiled(*compiled_in)
    out.backward(torch.ones_like(out) * 0.5)
    assert torch_fusion.stats.builds == builds  # the op of the first test, from the cache
    torch.testing.assert_close(out, expected, rtol=1e-5, atol=1e-6)
    for got, want in zip(compiled_in, eager_in, strict=True):
        torch.testing.assert_close(got.grad, want.grad, rtol=1e-5, atol=1e-6)


def test_fused_op_launches_once() -> None:
    torch._dynamo.reset()
    compiled = torch.compile(Chain(), backend=torch_fusion.make_backend("aot_eager"))
    inputs = _inputs(False)
    compiled(*inputs)
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]) as prof:
        compiled(*inputs)
    keys = [e.key for e in prof.key_averages()]
    assert not [k for k in keys if k.startswith("opgen_ops")], keys
    assert [k for k in keys if k.startswith("opgen_fused_")], keys


def test_graph_without_a_chain_is_left_alone() -> None:
    torch_fusion.stats.reset()
    inputs = _inputs(False)[:2]
    (graph,) = _graphs(NoChain(), *inputs)
    assert torch_fusion.stats.chains == 0
    assert not [t for t in _targets(graph) if t.startswith("opgen_fused_")]
    assert sum(t.startswith("opgen_ops.") for t in _targets(graph)) == 2
    torch._dynamo.reset()
    compiled = torch.compile(NoChain(), backend=torch_fusion.make_backend("aot_eager"))
    torch.testing.assert_close(compiled(*inputs), NoChain()(*inputs))


def test_another_process_reuses_the_generated_package(cache_dir: Path) -> None:
    """A fresh process compiling the same chain finds the fused package on disk."""
    import subprocess

    code = f"""
import sys
sys.path.insert(0, {str(Path(__file__).resolve().parent)!r})
from test_torch_fusion import Chain, _inputs, torch, torch_fusion
from pathlib import Path
torch_fusion.cache_dir = Path({str(cache_dir)!r})
torch.compile(Chain(), backend=torch_fusion.make_backend("eager"))(*_inputs(False))
s = torch_fusion.stats
print("STATS", s.chains, s.builds, s.disk_hits)
"""
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    assert "STATS 1 0 1" in run.stdout, run.stdout + run.stderr[-3000:]
