"""Fusion under torch.compile: chains of opgen element-wise ops in a graph become one fused op.

    import opgen_runtime.torch_fusion as tf
    model = torch.compile(model, backend=tf.backend)           # fuse, then inductor
    model = torch.compile(model, backend=tf.make_backend("aot_eager"))

The pass (`fuse_graph`) looks for calls of `torch.ops.<ns>.<op>` whose spec (found through the
generated module's `SIGNATURE.spec_path`, or a directory given to `register_spec_dir`) is
element-wise with a reference and one output, each feeding the next, the intermediate value
used by nothing but the next call, all tensors of one shape and dtype. Each such chain of two
or more calls is replaced by one call of a fused op: a `fuse:` spec of those steps (opgen/fuse.py,
the steps' attrs as its attrs) written to `<cache root>/fused/<hash>/specs` ($OPGEN_CACHE_DIR,
else the user cache directory), generated and built in this process on first use, and loaded
under a namespace of its own (`opgen_fused_<hash>`). The hash covers the fused spec, the step
specs and their kernels and opgen's version, so a later compile (in this process or another)
reuses the generated package; the C++ library build is cached by content as for every package.

Gradients are the fused op's derived backward (sympy's derivative of the composed reference,
docs/performance.md "Fusion"), registered with torch.library as for any generated op; the rest
of the graph (and the backward) is compiled by the inner backend.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import os
import shutil
import sys
import tempfile
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch
import torch.fx as fx

__all__ = ["FusionStats", "backend", "fuse_graph", "make_backend", "register_spec_dir", "stats"]

_SUFFIXES = (".yaml", ".yml", ".json")
_ATTR_TYPES = (bool, int, float)


@dataclass
class FusionStats:
    """Counters of this process: chains replaced, fused packages generated (`builds`), found
    generated on disk (`disk_hits`) or already loaded (`memory_hits`)."""

    chains: int = 0
    builds: int = 0
    disk_hits: int = 0
    memory_hits: int = 0
    ops: list[str] = field(default_factory=list)  # qualified names of the fused ops loaded

    def reset(self) -> None:
        self.chains = self.builds = self.disk_hits = self.memory_hits = 0


stats = FusionStats()
# Where fused packages are generated: None for <cache root>/fused (build.cache_root()).
cache_dir: Path | None = None
_spec_dirs: dict[str, Path] = {}
_step_cache: dict[Any, _Step | None] = {}
_fused: dict[str, Any] = {}  # hash -> OpOverload of the fused op
_lock = threading.RLock()


@dataclass(frozen=True)
class _Step:
    op: str
    spec_path: Path
    inputs: tuple[str, ...]
    output: str
    attrs: tuple[str, ...]
    dtypes: tuple[torch.dtype, ...]  # dtypes with a column of the spec all of that dtype
    files: tuple[Path, ...]  # the spec, its kernel, the specs it fuses


def register_spec_dir(namespace: str, spec_dir: str | os.PathLike[str]) -> None:
    """Look up the specs of `torch.ops.<namespace>.<op>` in `spec_dir` (by default they are
    found through the generated modules' `spec_path`, relative to a parent of the module)."""
    with _lock:
        _spec_dirs[namespace] = Path(spec_dir).resolve()
        _step_cache.clear()


def _spec_file(namespace: str, op: str) -> Path | None:
    where = _spec_dirs.get(namespace)
    if where is not None:
        for suffix in _SUFFIXES:
            if (where / f"{op}{suffix}").is_file():
                return where / f"{op}{suffix}"
        return None
    qualname = f"{namespace}::{op}"
    from opgen_runtime.torch_support import OpSignature

    for name, module in list(sys.modules.items()):
        if not name.endswith(f".torch.{op}"):
            continue
        sig = getattr(module, "__dict__", {}).get("SIGNATURE")
        if not isinstance(sig, OpSignature) or sig.qualname != qualname:
            continue
        rel, here = sig.spec_path, getattr(module, "__file__", None)
        if not here:
            continue
        if os.path.isabs(rel):
            return Path(rel) if os.path.isfile(rel) else None
        for parent in Path(here).resolve().parents:
            if (parent / rel).is_file():
                return parent / rel
    return None


def _step_of(target: Any) -> _Step | None:
    """The element-wise step `target` (an OpOverload of a generated op) is, or None."""
    if not isinstance(target, torch._ops.OpOverload):
        return None
    with _lock:
        if target in _step_cache:
            return _step_cache[target]
        _step_cache[target] = step = _load_step(target)
        return step


def _load_step(target: torch._ops.OpOverload) -> _Step | None:
    namespace, op = target.namespace, target._schema.name.split("::")[-1]
    if namespace.startswith("opgen_fused_"):
        return None
    path = _spec_file(namespace, op)
    if path is None:
        return None
    from opgen import fuse
    from opgen.api import load_spec

    try:
        spec = load_spec(path)
    except Exception:  # a spec that does not load is not fused (its op still runs)
        return None
    if fuse.not_elementwise(spec) is not None or len(spec.outputs) != 1:
        return None
    if any(a.type.value not in ("float", "int", "bool") for a in spec.attrs):
        return None
    dtypes = tuple(getattr(torch, d) for d in fuse._homogeneous(spec) if hasattr(torch, d))
    files = [path]
    kernel = path.parent / spec.kernel.source
    if kernel.is_file():
        files.append(kernel)
    files.extend(Path(p) for p in spec.fused_from)
    return _Step(op, path, tuple(t.name for t in spec.inputs), spec.outputs[0].name,
                 tuple(a.name for a in spec.attrs), dtypes, tuple(dict.fromkeys(files)))


def _meta(node: Any) -> torch.Tensor | None:
    if not isinstance(node, fx.Node):
        return None
    value = node.meta.get("val", node.meta.get("example_value"))
    return value if isinstance(value, torch.Tensor) else None


def _bind(node: fx.Node, step: _Step) -> tuple[list[Any], dict[str, Any]] | None:
    """The node's tensor arguments (per spec input) and attr values (constants), or None."""
    schema = node.target._schema  # type: ignore[union-attr]
    values: dict[str, Any] = {}
    for i, arg in enumerate(schema.arguments):
        if i < len(node.args):
            values[arg.name] = node.args[i]
        elif arg.name in node.kwargs:
            values[arg.name] = node.kwargs[arg.name]
        elif arg.has_default_value():
            values[arg.name] = arg.default_value
        else:
            return None
    tensors = [values.get(n) for n in step.inputs]
    if not all(isinstance(t, fx.Node) for t in tensors):
        return None
    attrs = {a: values.get(a) for a in step.attrs}
    if not all(isinstance(v, _ATTR_TYPES) for v in attrs.values()):
        return None  # a symbolic or tensor attr
    return tensors, attrs


def _fits(node: fx.Node, step: _Step, tensors: list[Any], shape: Any, dtype: Any) -> bool:
    out = _meta(node)
    if out is None or out.dtype != dtype or out.dtype not in step.dtypes:
        return False
    for t in tensors:
        m = _meta(t)
        if m is None or m.dtype != dtype or tuple(m.shape) != tuple(shape):
            return False
    return tuple(out.shape) == tuple(shape)


def _chains(graph: fx.Graph) -> list[list[tuple[fx.Node, _Step, list[Any], dict[str, Any]]]]:
    info: dict[fx.Node, tuple[_Step, list[Any], dict[str, Any]]] = {}
    for node in graph.nodes:
        if node.op != "call_function":
            continue
        step = _step_of(node.target)
        if step is None:
            continue
        bound = _bind(node, step)
        out = _meta(node)
        if bound is None or out is None:
            continue
        if _fits(node, step, bound[0], out.shape, out.dtype):
            info[node] = (step, *bound)

    def successor(node: fx.Node) -> fx.Node | None:
        if len(node.users) != 1:
            return None
        user = next(iter(node.users))
        if user not in info or node not in info[user][1]:
            return None
        first, nxt = _meta(node), _meta(user)
        assert first is not None and nxt is not None
        if first.dtype != nxt.dtype or tuple(first.shape) != tuple(nxt.shape):
            return None
        return user

    has_pred = {s for n in info if (s := successor(n)) is not None}
    chains = []
    for node in graph.nodes:  # in order: a chain starts where no fusable call feeds it
        if node not in info or node in has_pred:
            continue
        chain = []
        cur: fx.Node | None = node
        while cur is not None:
            chain.append((cur, *info[cur]))
            cur = successor(cur)
        if len(chain) >= 2:
            chains.append(chain)
    return chains


def _fused_spec(chain: list[tuple[fx.Node, _Step, list[Any], dict[str, Any]]]
                ) -> tuple[dict[str, Any], list[fx.Node], list[tuple[str, Any]]]:
    """The `fuse:` document of a chain, the graph values of its inputs (in order), and its
    attrs (name, value) in order."""
    external: dict[fx.Node, str] = {}
    produced: dict[fx.Node, str] = {}
    attrs: list[tuple[str, Any]] = []
    steps = []
    for i, (node, step, tensors, values) in enumerate(chain):
        inputs = {}
        for name, t in zip(step.inputs, tensors, strict=True):
            if t in produced:
                inputs[name] = produced[t]
            else:
                inputs[name] = external.setdefault(t, f"x{len(external)}")
        bound_attrs = {}
        for a in step.attrs:
            bound_attrs[a] = f"s{i}_{a}"
            attrs.append((f"s{i}_{a}", values[a]))
        out = "out" if i == len(chain) - 1 else f"v{i}"
        produced[node] = out
        entry: dict[str, Any] = {"op": step.op, "inputs": inputs, "outputs": {step.output: out}}
        if bound_attrs:
            entry["attrs"] = bound_attrs
        steps.append(entry)
    doc = {"op_name": "fused", "doc": "Fused by opgen_runtime.torch_fusion: "
           + " -> ".join(s.op for _, s, _, _ in chain) + ".", "fuse": steps}
    return doc, list(external), attrs


_generator: list[str] = []


def _generator_hash() -> str:
    """A hash of opgen's own files: a changed generator generates the fused ops anew."""
    if not _generator:
        import opgen

        h = hashlib.sha256()
        root = Path(opgen.__file__).resolve().parent
        for f in sorted(root.rglob("*")):
            if f.is_file() and f.suffix != ".pyc":
                h.update(str(f.relative_to(root)).encode() + b"\0" + f.read_bytes())
        _generator.append(h.hexdigest())
    return _generator[0]


def _content_hash(doc: dict[str, Any], chain_steps: Sequence[_Step]) -> str:
    h = hashlib.sha256()
    h.update(_generator_hash().encode())
    h.update(json.dumps(doc, sort_keys=True).encode())
    for step in chain_steps:
        for f in step.files:
            h.update(f.name.encode() + b"\0" + f.read_bytes() + b"\0")
    return h.hexdigest()[:20]


def _generate(where: Path, package: str, doc: dict[str, Any], steps: Sequence[_Step]) -> None:
    """Write the fused spec beside copies of its steps' specs and generate the package."""
    from opgen import gen
    from opgen.diagnostics import DiagnosticSink
    from opgen.project import Config
    from opgen.writer import atomic_write

    specs = where / "specs"
    specs.mkdir(parents=True)
    for step in steps:
        for f in step.files:
            shutil.copy(f, specs / f.name)
    fused = specs / "fused.json"
    fused.write_text(json.dumps(doc, indent=2), "utf-8")
    config = Config(root=where, spec_dir=specs, output_dir=where / "generated",
                    package=package, namespace=package)
    sink = DiagnosticSink()
    result = gen.run(config, [fused], sink, incremental=False)
    if result is None:
        raise RuntimeError("opgen could not generate the fused op:\n"
                           + "\n".join(str(d) for d in sink))
    for target in gen.PACKAGE_TARGETS:  # only the fused op is in the package
        for rel, text in target(result.ops, config).items():
            atomic_write(config.output_dir / rel, text)


def _fused_op(doc: dict[str, Any], steps: Sequence[_Step]) -> Any:
    """The fused op of `doc`: loaded, generated on disk, or generated now."""
    digest = _content_hash(doc, steps)
    with _lock:
        if digest in _fused:
            stats.memory_hits += 1
            return _fused[digest]
        from opgen_runtime.build import cache_root

        package = f"opgen_fused_{digest}"
        where = (cache_dir or cache_root() / "fused") / digest
        if (where / "generated" / "python" / package / "torch" / "fused.py").is_file():
            stats.disk_hits += 1
        else:
            where.parent.mkdir(parents=True, exist_ok=True)
            tmp = Path(tempfile.mkdtemp(prefix=f"{digest}.", dir=where.parent))
            try:
                _generate(tmp / "tree", package, doc, steps)
                try:
                    os.replace(tmp / "tree", where)
                except OSError:  # another process put it there first
                    if not where.is_dir():
                        raise
            finally:
                shutil.rmtree(tmp, ignore_errors=True)
            stats.builds += 1
        python = str(where / "generated" / "python")
        if python not in sys.path:
            sys.path.append(python)
        module = importlib.import_module(f"{package}.torch.fused")
        if module._library.PATH is None:  # the Python CPU kernel runs the registered kernel
            importlib.import_module(package).register_all()
        op = getattr(torch.ops, package).fused.default
        _fused[digest] = op
        stats.ops.append(f"{package}::fused")
        return op


def fuse_graph(gm: fx.GraphModule) -> int:
    """Replace each chain of opgen element-wise ops in `gm` by one call of its fused op
    (generated and built on first use); returns the number of chains replaced."""
    chains = _chains(gm.graph)
    for chain in chains:
        doc, inputs, attrs = _fused_spec(chain)
        op = _fused_op(doc, [s for _, s, _, _ in chain])
        last = chain[-1][0]
        with gm.graph.inserting_before(last):
            new = gm.graph.call_function(op, tuple(inputs), dict(attrs))
        new.meta.update(last.meta)
        last.replace_all_uses_with(new)
        for node, *_ in reversed(chain):
            gm.graph.erase_node(node)
        stats.chains += 1
    if chains:
        gm.graph.lint()
        gm.recompile()
    return len(chains)


def make_backend(inner: str | Callable[..., Any] = "inductor") -> Callable[..., Any]:
    """A torch.compile backend: `fuse_graph`, then the `inner` backend (a name torch.compile
    knows, such as "inductor", "aot_eager", "eager", or a backend callable) on the result."""

    def fusing_backend(gm: fx.GraphModule, example_inputs: Sequence[Any]) -> Any:
        fuse_graph(gm)
        compiler = (torch._dynamo.lookup_backend(inner) if isinstance(inner, str) else inner)
        return compiler(gm, list(example_inputs))

    fusing_backend.__name__ = f"opgen_fusion_{inner if isinstance(inner, str) else 'custom'}"
    return fusing_backend


backend = make_backend("inductor")
