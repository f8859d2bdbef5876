"""The ops' direct Python entries (docs/pytorch.md, "The eager fast path"): the same CPU kernel
as `torch.ops.opgen_ops_cpu.<op>`, taken only when the dispatcher would do nothing else, and
NotImplemented otherwise."""

from __future__ import annotations

import contextlib
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import torch
import torch_env  # generated/python on sys.path, a private OPGEN_OPP_PATH
from opgen_ops.torch import _library
from opgen_ops.torch import element_add as element_add_module
from opgen_ops.torch import layer_norm as layer_norm_module
from opgen_ops.torch import leaky_relu as leaky_relu_module
from opgen_ops.torch.element_add import element_add
from torch.utils._python_dispatch import TorchDispatchMode

from opgen_runtime import torch_library
from opgen_runtime.registry import OpCallError

FAST = element_add_module._FAST


def setup_module() -> None:
    assert _library.PATH is not None, "the C++ kernel library did not build"
    assert FAST is not None, "no direct entry for opgen_ops::element_add"


def test_the_entry_runs_the_bare_kernel() -> None:
    x, y = torch.randn(120), torch.randn(120)
    got = FAST(x, y)
    assert isinstance(got, torch.Tensor)
    torch.testing.assert_close(got, torch.ops.opgen_ops_cpu.element_add(x, y), rtol=0, atol=0)
    torch.testing.assert_close(got, x + y, rtol=0, atol=0)


def test_multiple_outputs_optional_inputs_and_attrs() -> None:
    fast = layer_norm_module._FAST
    assert fast is not None
    x, gamma = torch.randn(5, 24), torch.randn(24)
    got = fast(x, gamma, None, 1e-3)
    want = torch.ops.opgen_ops_cpu.layer_norm(x, gamma, None, epsilon=1e-3)
    assert isinstance(got, tuple) and len(got) == len(want) == 3
    for g, w in zip(got, want, strict=True):
        torch.testing.assert_close(g, w, rtol=0, atol=0)
    # an int for a float attr, as the schema converts it
    torch.testing.assert_close(fast(x, None, None, 1)[0],
                               torch.ops.opgen_ops_cpu.layer_norm(x, None, None, epsilon=1)[0],
                               rtol=0, atol=0)


def test_a_large_call_releases_the_gil_and_is_exact() -> None:
    x, y = torch.randn(1 << 20), torch.randn(1 << 20)
    ticks = 0
    stop = threading.Event()

    def count() -> None:
        nonlocal ticks
        while not stop.is_set():
            ticks += 1

    t = threading.Thread(target=count)
    t.start()
    try:
        for _ in range(20):
            out = FAST(x, y)
    finally:
        stop.set()
        t.join()
    torch.testing.assert_close(out, x + y, rtol=0, atol=0)
    assert ticks > 0


class _Sub(torch.Tensor):
    pass


class _Recorder(TorchDispatchMode):
    def __torch_dispatch__(self, func, types, args=(), kwargs=None):  # type: ignore[no-untyped-def]
        return func(*args, **(kwargs or {}))


def _grad_x() -> tuple[torch.Tensor, torch.Tensor]:
    return torch.randn(8, requires_grad=True), torch.randn(8)


CASES: dict[str, Callable[[], Any]] = {
    "a tensor subclass": lambda: FAST(torch.randn(8).as_subclass(_Sub), torch.randn(8)),
    "a non-tensor input": lambda: FAST([1.0] * 8, torch.randn(8)),
    "None for a required input": lambda: FAST(None, torch.randn(8)),
    "too few arguments": lambda: FAST(torch.randn(8)),
    "a sparse tensor": lambda: FAST(torch.randn(8).to_sparse(), torch.randn(8)),
    "a string for a float attr": lambda: leaky_relu_module._FAST(torch.randn(8), "0.1"),
    "a bool for a float attr": lambda: leaky_relu_module._FAST(torch.randn(8), True),
}


@pytest.mark.parametrize("case", CASES)
def test_calls_the_dispatcher_must_see_are_not_taken(case: str) -> None:
    assert CASES[case]() is NotImplemented


@contextlib.contextmanager
def _profiling() -> Iterator[None]:
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]):
        yield


@contextlib.contextmanager
def _function_mode() -> Iterator[None]:
    class Mode(torch.overrides.TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):  # type: ignore[no-untyped-def]
            return func(*args, **(kwargs or {}))

    with Mode():
        yield


SCOPES: dict[str, Callable[[], contextlib.AbstractContextManager[Any]]] = {
    "a dispatch mode": _Recorder,
    "a torch function mode": _function_mode,
    "the profiler": _profiling,
}


@pytest.mark.parametrize("scope", SCOPES)
def test_scopes_the_dispatcher_must_see_are_not_taken(scope: str) -> None:
    x, y = torch.randn(8), torch.randn(8)
    with SCOPES[scope]():
        assert FAST(x, y) is NotImplemented
        torch.testing.assert_close(element_add(x, y), x + y, rtol=0, atol=0)
    assert FAST(x, y) is not NotImplemented


def test_vmap_is_not_taken() -> None:
    seen: list[object] = []

    def body(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        seen.append(FAST(a, b))
        return a + b

    torch.vmap(body)(torch.randn(3, 8), torch.randn(3, 8))
    assert seen == [NotImplemented]


def test_grad_mode_off_takes_grad_inputs() -> None:
    x, y = _grad_x()
    with torch.no_grad():
        out = FAST(x, y)
    assert isinstance(out, torch.Tensor) and not out.requires_grad
    torch.testing.assert_close(out, x.detach() + y, rtol=0, atol=0)


def test_kernel_errors_are_the_dispatchers() -> None:
    x, y = torch.randn(8), torch.randn(9)
    with pytest.raises(ValueError) as fast:
        FAST(x, y)
    with pytest.raises(ValueError) as slow:
        torch.ops.opgen_ops_cpu.element_add(x, y)
    assert str(fast.value) == str(slow.value)
    assert "element_add()" in str(fast.value)
    with pytest.raises(TypeError) as fast_t:
        FAST(x.double(), x.double())
    with pytest.raises(TypeError) as slow_t:
        torch.ops.opgen_ops_cpu.element_add(x.double(), x.double())
    assert str(fast_t.value) == str(slow_t.value)


def test_the_wrapper_calls_the_entry_first(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[int] = []

    def counting(*args: object) -> object:
        calls.append(len(args))
        return FAST(*args)

    monkeypatch.setattr(element_add_module, "_FAST", counting)
    x, y = torch.randn(8), torch.randn(8)
    torch.testing.assert_close(element_add(x, y), x + y, rtol=0, atol=0)
    out = element_add(*_grad_x())  # the entry records the history itself
    assert out.requires_grad
    assert calls == [2, 2]


def test_the_switch_and_unknown_ops(monkeypatch: pytest.MonkeyPatch) -> None:
    assert torch_library.fast_entry("opgen_ops", "opgen_ops::no_such_op") is None
    assert torch_library.fast_entry("no_such_package", "opgen_ops::element_add") is None
    entry = torch_library.fast_entry("opgen_ops", "opgen_ops::element_add")
    assert entry is not None  # the entry, or its is_compiling() guard (no dynamo loaded)
    x, y = torch.randn(8), torch.randn(8)
    torch.testing.assert_close(entry(x, y), x + y, rtol=0, atol=0)
    monkeypatch.setenv(torch_library.FAST_ENV, "0")
    assert torch_library.fast_entry("opgen_ops", "opgen_ops::element_add") is None


def test_without_python_headers_the_library_has_no_entries(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(torch_library.sysconfig, "get_paths", lambda: {"include": str(tmp_path)})
    assert torch_library._py_entry_flags() == []
    (tmp_path / "Python.h").write_text("")
    assert torch_library._py_entry_flags() == [f"-isystem{tmp_path}", "-DOPGEN_TORCH_PY_ENTRY=1"]
    # a library without the lookup symbol: no entry, the dispatcher path
    other = Path(torch.__file__).parent / "lib" / "libc10.so"
    monkeypatch.setattr(torch_library, "loaded_path", lambda package: other)
    assert torch_library.fast_entry("opgen_ops", "opgen_ops::element_add") is None


def test_attrs_the_entry_takes_skip_the_python_check(monkeypatch: pytest.MonkeyPatch) -> None:
    x = torch.randn(40)
    want = torch.ops.opgen_ops_cpu.leaky_relu(x, negative_slope=0.3)

    def refuse(*args: object) -> None:
        raise AssertionError("check_attrs ran for an attr the entry takes")

    monkeypatch.setattr(leaky_relu_module._ts, "check_attrs", refuse)
    torch.testing.assert_close(leaky_relu_module.leaky_relu(x, negative_slope=0.3), want,
                               rtol=0, atol=0)
    torch.testing.assert_close(leaky_relu_module.leaky_relu(x, negative_slope=1),
                               torch.ops.opgen_ops_cpu.leaky_relu(x, negative_slope=1.0),
                               rtol=0, atol=0)


@pytest.mark.parametrize("bad", ["0.1", True, None, [0.1]])
def test_attrs_the_entry_refuses_get_the_python_check(bad: object) -> None:
    with pytest.raises(OpCallError, match=r"leaky_relu\(\): attr 'negative_slope' must be "
                                          r"float, got "):
        leaky_relu_module.leaky_relu(torch.randn(8), negative_slope=bad)  # type: ignore[arg-type]


def test_the_wrapper_compiles_whole_under_torch_compile() -> None:
    # dynamo traces the entry as a call returning NotImplemented (substitute_in_graph): no graph
    # break, the traced path calls the op itself
    def f(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        z = element_add(x, y)
        return leaky_relu_module.leaky_relu(z, negative_slope=0.2) * 2

    torch._dynamo.reset()
    compiled = torch.compile(f, fullgraph=True, backend="eager")
    x, y = torch.randn(33), torch.randn(33)
    torch.testing.assert_close(compiled(x, y), f(x, y), rtol=0, atol=0)
    torch.testing.assert_close(compiled(x, y), torch.nn.functional.leaky_relu(x + y, 0.2) * 2)


def test_without_substitute_in_graph_the_entry_asks_is_compiling(
        monkeypatch: pytest.MonkeyPatch) -> None:
    import torch._dynamo  # loaded: substitute_in_graph is used when present

    # a torch without torch.compiler.substitute_in_graph (before 2.5): a Python guard
    monkeypatch.delattr(torch.compiler, "substitute_in_graph")
    guarded = torch_library._traceable(FAST)
    assert guarded is not FAST
    x, y = torch.randn(8), torch.randn(8)
    torch.testing.assert_close(guarded(x, y), x + y, rtol=0, atol=0)
    monkeypatch.setattr(torch.compiler, "is_compiling", lambda: True)
    assert torch_library._traceable(FAST)(x, y) is NotImplemented
    # registering the same entry twice is fine
    monkeypatch.undo()
    assert torch_library._traceable(FAST) is FAST


def test_without_dynamo_loaded_the_entry_asks_is_compiling(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # substitute_in_graph imports torch._dynamo (some 1.1 s): not for a process that never
    # compiles; the Python guard instead
    monkeypatch.delitem(sys.modules, "torch._dynamo", raising=False)
    guarded = torch_library._traceable(FAST)
    assert guarded is not FAST
    assert "torch._dynamo" not in sys.modules
    x, y = torch.randn(8), torch.randn(8)
    torch.testing.assert_close(guarded(x, y), x + y, rtol=0, atol=0)


def test_importing_an_op_does_not_import_dynamo() -> None:
    code = ("import sys; sys.path.insert(0, sys.argv[1]); "
            "from opgen_ops.torch.element_add import element_add; import torch; "
            "assert torch.equal(element_add(torch.ones(4), torch.ones(4)), torch.full((4,), 2.0)); "
            "print('torch._dynamo' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code, str(torch_env.GENERATED_PYTHON)],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.split()[-1] == "False"
