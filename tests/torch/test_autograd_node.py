"""The direct entry's autograd node (docs/pytorch.md, "The eager fast path"): a call whose inputs
need gradients gets the node the op's autograd.Function would make, with the same formula, the
same saved tensors (version checks, hooks), the same non-differentiable outputs and the same
errors."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import pytest
import torch
import torch.autograd.forward_ad as fwAD
import torch_env  # noqa: F401 - generated/python on sys.path, a private OPGEN_OPP_PATH
from opgen_ops.torch import _library
from opgen_ops.torch import broadcast_add as broadcast_add_module
from opgen_ops.torch import cast as cast_module
from opgen_ops.torch import element_add as element_add_module
from opgen_ops.torch import layer_norm as layer_norm_module
from opgen_ops.torch import leaky_relu as leaky_relu_module
from opgen_ops.torch import softmax as softmax_module


def setup_module() -> None:
    assert _library.PATH is not None, "the C++ kernel library did not build"
    assert element_add_module._FAST is not None


def _leaves(*tensors: torch.Tensor | None) -> list[torch.Tensor | None]:
    return [None if t is None else t.detach().clone().requires_grad_() for t in tensors]


Case = tuple[Callable[..., Any], Callable[..., Any], list[torch.Tensor | None], dict[str, Any]]


def _cases() -> dict[str, Case]:
    x = torch.randn(6, 40)
    return {
        "element_add": (element_add_module.element_add, element_add_module.ElementAdd.apply,
                        [torch.randn(40), torch.randn(40)], {}),
        "broadcast_add": (broadcast_add_module.broadcast_add,
                          broadcast_add_module.BroadcastAdd.apply, [x, torch.randn(40)], {}),
        "leaky_relu": (leaky_relu_module.leaky_relu, leaky_relu_module.LeakyRelu.apply, [x],
                       {"negative_slope": 0.3}),
        "softmax": (softmax_module.softmax, softmax_module.Softmax.apply, [x], {"axis": -1}),
        "layer_norm": (layer_norm_module.layer_norm, layer_norm_module.LayerNorm.apply,
                       [x, torch.randn(40), None], {"epsilon": 1e-5}),
        "cast": (cast_module.cast, cast_module.Cast.apply, [x],
                 {"dst_type": torch.float16}),
    }


def _first(out: Any) -> torch.Tensor:
    return out[0] if isinstance(out, tuple) else out


@pytest.mark.parametrize("op", sorted(_cases()))
def test_grads_are_the_functions(op: str) -> None:
    wrapper, function_apply, inputs, attrs = _cases()[op]
    ours = _leaves(*inputs)
    out = _first(wrapper(*ours, **attrs))
    assert out.grad_fn is not None
    assert out.grad_fn.name() == f"{function_apply.__self__.__name__}Backward"
    # the entry's own node, not the Function's (a Python BackwardCFunction); cast's dtype attr
    # is one the entry hands to the dispatcher
    function_node = isinstance(out.grad_fn, torch.autograd.function.BackwardCFunction)
    assert function_node == (op == "cast")
    theirs = _leaves(*inputs)
    want = _first(function_apply(*theirs, *attrs.values()))
    torch.testing.assert_close(out, want, rtol=0, atol=0)
    grad = torch.randn_like(out)
    out.backward(grad)
    want.backward(grad)
    for a, b in zip(ours, theirs, strict=True):
        if a is None:
            continue
        assert a.grad is not None and b.grad is not None
        torch.testing.assert_close(a.grad, b.grad, rtol=0, atol=0)


def test_non_differentiable_outputs_have_no_history() -> None:
    x, gamma = _leaves(torch.randn(3, 16), torch.randn(16))
    y, mean, rstd = layer_norm_module.layer_norm(x, gamma)
    assert y.requires_grad and y.grad_fn is not None
    assert not mean.requires_grad and not rstd.requires_grad
    y.sum().backward()  # the grads of mean and rstd are materialized zeros for the formula
    assert x.grad is not None and gamma.grad is not None


def test_only_the_inputs_needing_grads_get_them() -> None:
    x = torch.randn(40, requires_grad=True)
    y = torch.randn(40)
    out = element_add_module.element_add(x, y)
    out.sum().backward()
    assert x.grad is not None and y.grad is None
    torch.testing.assert_close(x.grad, torch.ones(40))


def test_backward_twice_needs_retain_graph() -> None:
    (x,) = _leaves(torch.randn(4, 8))
    y = softmax_module.softmax(x, axis=-1)  # saves its output
    g = torch.randn_like(y)
    y.backward(g, retain_graph=True)
    first = x.grad.clone()
    y.backward(g)
    torch.testing.assert_close(x.grad, 2 * first)
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        y.backward(g)


def test_a_saved_tensor_modified_in_place_is_an_error() -> None:
    (leaf,) = _leaves(torch.randn(16))
    x = leaf * 1
    y = leaky_relu_module.leaky_relu(x, negative_slope=0.1)  # saves x
    x.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


def test_double_backward_through_the_formula() -> None:
    (x,) = _leaves(torch.randn(5, 12))
    (x2,) = _leaves(x)
    for inp, fn in ((x, softmax_module.softmax),
                    (x2, lambda t, axis: softmax_module.Softmax.apply(t, axis))):
        y = fn(inp, axis=-1)
        (g,) = torch.autograd.grad((y * y).sum(), inp, create_graph=True)
        g.sum().backward()
    torch.testing.assert_close(x.grad, x2.grad, rtol=0, atol=0)


def test_saved_tensor_hooks_see_the_saved_tensors() -> None:
    packed: list[tuple[int, ...]] = []

    def pack(t: torch.Tensor) -> torch.Tensor:
        packed.append(tuple(t.shape))
        return t

    (x,) = _leaves(torch.randn(7, 9))
    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        y = leaky_relu_module.leaky_relu(x, negative_slope=0.2)
    assert packed == [(7, 9)]
    y.sum().backward()
    assert x.grad is not None


def test_grad_mode_off_and_inference_mode_record_nothing() -> None:
    (x,) = _leaves(torch.randn(8))
    with torch.no_grad():
        assert element_add_module.element_add(x, x).grad_fn is None
    with torch.inference_mode():
        assert not element_add_module.element_add(x, x).requires_grad


@pytest.mark.filterwarnings("ignore:`torch.jit.script` is deprecated:DeprecationWarning")
def test_a_dual_tensor_goes_to_the_dispatcher() -> None:
    x = torch.randn(8)
    with fwAD.dual_level():
        dual = fwAD.make_dual(x, torch.ones(8))
        assert element_add_module._FAST(dual, x) is NotImplemented


@pytest.mark.filterwarnings("ignore:Anomaly Detection has been enabled:UserWarning")
def test_anomaly_mode_and_threads() -> None:
    failures: list[str] = []

    def work() -> None:
        for _ in range(50):
            (x,) = _leaves(torch.randn(3, 10))
            y = leaky_relu_module.leaky_relu(x, negative_slope=0.5)
            y.sum().backward()
            want = torch.where(x > 0, 1.0, 0.5)
            if not torch.equal(x.grad, want):
                failures.append("wrong grad")
                return

    with torch.autograd.detect_anomaly():
        work()
    threads = [threading.Thread(target=work) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert failures == []


def test_without_the_switch_the_function_makes_the_node(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(element_add_module, "_FAST", None)
    x, y = _leaves(torch.randn(4), torch.randn(4))
    out = element_add_module.element_add(x, y)
    assert out.grad_fn is not None and out.grad_fn.name() == "ElementAddBackward"
    assert isinstance(out.grad_fn, torch.autograd.function.BackwardCFunction)
    out.sum().backward()
    torch.testing.assert_close(x.grad, torch.ones(4))


def _compiled_autograd_backward(loss: torch.Tensor) -> None:
    from torch._dynamo import compiled_autograd

    with compiled_autograd._enable(lambda gm: torch.compile(gm, backend="eager")):
        loss.backward()


def test_compiled_autograd_names_the_op_and_the_way_out() -> None:
    """Compiled autograd cannot trace the direct entry's node (its backward is the Python
    formula called from C++): the error names the node, the op and OPGEN_TORCH_FAST=0, instead
    of torch's bare "compiled_args not implemented"."""
    x, y = _leaves(torch.randn(8), torch.randn(8))
    out = element_add_module.element_add(x, y)
    assert not isinstance(out.grad_fn, torch.autograd.function.BackwardCFunction)
    with pytest.raises(NotImplementedError) as info:
        _compiled_autograd_backward(out.sum())
    text = str(info.value)
    assert "ElementAddBackward (the op opgen_ops::element_add)" in text
    assert "OPGEN_TORCH_FAST=0" in text


# dynamo reads .grad of the graph's tensors while it traces the backward (torch's own warning)
@pytest.mark.filterwarnings("ignore:The .grad attribute of a Tensor that is not a leaf")
def test_compiled_autograd_traces_the_functions_node(monkeypatch: pytest.MonkeyPatch) -> None:
    """The way out the error gives: without the direct entry (OPGEN_TORCH_FAST=0), the call
    records the autograd.Function's node and compiled autograd computes its gradients."""
    monkeypatch.setattr(element_add_module, "_FAST", None)
    x, y = _leaves(torch.randn(8), torch.randn(8))
    out = element_add_module.element_add(x, y)
    _compiled_autograd_backward((out * out).sum())
    want = 2 * (x.detach() + y.detach())
    torch.testing.assert_close(x.grad, want)
    torch.testing.assert_close(y.grad, want)
