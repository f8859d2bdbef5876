"""The operator registry: the seed's four registration calls, in the seed's order, and
`call` to run a registered op on arrays.

    load_operator_library(abs_path)  ->  register_operator(name)
        ->  register_operator_model(name, metadef_json, kernel_name)
        ->  register_operator_gradient(name, grad_metadef_json)

Each pitfall of the seed has a defined behaviour: relative or missing paths, files that are
not kernel libraries, calls out of order, kernels the library lacks, invalid metadefs,
double registration (a no-op when identical, an error when it conflicts), and ops without a
gradient. Registered ops are installed into the op package directory (see oppkg) so other
processes — the workers of a multi-process service — find them without registering.
"""

from __future__ import annotations

import difflib
import os
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from . import argcheck, oppkg, tensor_list
from .errors import TilingError
from .launcher import Prepared, aligned_empty_at, gm_allocation, gm_empty_at
from .metadef import AttrDef, OpDef, TensorDef, load
from .ophost import HostTensor, OpHost, build_op_host, load_op_host
from .oplib import KernelVariant, OperatorLibrary, open_library
from .profile import LaunchProfile
from .shapes import ShapeRuleError, infer_shape
from .soc import DEFAULT_SOC, get_soc
from .tiling import TensorSpec, TilingLayout, default_tiling

ORDER = ("load_operator_library -> register_operator -> register_operator_model -> "
         "register_operator_gradient")


class RegistryError(Exception):
    """A registration or op-call problem; the message names the op and the fix."""


class LibraryPathError(RegistryError):
    """A library or metadef path is relative or does not exist."""


class RegistrationOrderError(RegistryError):
    """A registration call came before the call it depends on."""


class KernelNotFoundError(RegistryError):
    """register_operator_model named a kernel the loaded libraries do not have."""


class RegistrationConflictError(RegistryError):
    """The op is already registered with a different definition."""


class OpNotRegisteredError(RegistryError):
    """The op was never registered, in this process or in the op package directory."""


class GradientNotRegisteredError(RegistryError):
    """Backward was requested of an op that has no registered gradient."""


class OpCallError(RegistryError, TypeError):
    """The arguments of an op call do not match its metadef (dtype, rank, attrs...)."""


class OpValueError(OpCallError, ValueError):
    """An argument has the right type but a value the op refuses: a shape, an attr out of
    its range, a constraint between inputs, shapes that do not broadcast, an empty input with
    a non-empty output. A ValueError (and, as every OpCallError, a TypeError)."""


def call_error(exc: argcheck.ArgCheckError) -> OpCallError:
    """A failed argument check as the registry's error class (docs/reliability.md)."""
    return OpCallError(str(exc)) if exc.kind == "type" else OpValueError(str(exc))


def _suggest(word: str, choices: Sequence[str]) -> str:
    match = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return f"; did you mean '{match[0]}'?" if match else ""


def check_absolute(path: str | os.PathLike[str], what: str) -> Path:
    p = Path(path)
    if not p.is_absolute():
        raise LibraryPathError(
            f"{what} path '{path}' is relative; ACL needs an absolute path (relative paths "
            f"behave differently depending on the working directory). Did you mean "
            f"'{Path.cwd() / p}'? Compute it from your module, e.g. "
            f"os.path.join(os.path.dirname(os.path.abspath(__file__)), ...)")
    if not p.exists():
        raise LibraryPathError(f"{what} not found: {p}")
    return p


@dataclass
class _Plan:
    """What one (dtypes, shapes, attrs) signature of a call resolves to; cached per op."""

    kernel: Any
    entry: str
    out_shapes: tuple[tuple[int, ...], ...]
    out_dtypes: tuple[np.dtype[Any], ...]
    names: tuple[str, ...]
    block_dim: int
    tiling: bytes
    absent: tuple[None, ...]  # trailing optional inputs the caller left out
    out_layout: tuple[tuple[int, np.dtype[Any], tuple[int, ...]], ...] = ()  # bytes, dtype, shape
    tiling_key: int = 0
    workspace_size: int = 0
    cacheable: bool = True  # False when the tiling reads input values (ValueDepend)
    launch: bool = True  # False: empty outputs, no launch (the empty-tensor rule)
    inplace: tuple[int, ...] = ()  # the inputs the kernel writes in place (their positions)
    refs: tuple[tuple[int, int], ...] = ()  # (output, input): the output is the input's buffer
    zero_outputs: tuple[int, ...] = ()  # outputs cleared before the launch (op_host InitValue)
    lists: bool = True  # an input is dynamic (a list of tensors, packed before the launch)
    # instances per output when an output is dynamic (a list), in out_shapes' flat order;
    # None: every output is one tensor
    out_groups: tuple[int, ...] | None = None
    prepared: tuple[str, Prepared] | None = None  # the launch, made on the first call (its SoC)

    def __post_init__(self) -> None:
        self.out_layout = tuple((int(np.prod(s, dtype=np.int64)) * d.itemsize, d, s)
                                for s, d in zip(self.out_shapes, self.out_dtypes, strict=True))


@dataclass
class RegisteredOp:
    name: str
    library: OperatorLibrary | None = None
    opdef: OpDef | None = None
    kernel_name: str = ""
    gradient: OpDef | None = None
    metadef_path: Path | None = None
    gradient_path: Path | None = None
    layout: TilingLayout | None = None
    plans: dict[Any, _Plan] = field(default_factory=dict)


class Registry:
    def __init__(self) -> None:
        self._lock = threading.RLock()
        self._adopting = False  # registering an op found in the op package directory
        self.libraries: dict[str, OperatorLibrary] = {}
        self.ops: dict[str, RegisteredOp] = {}
        self.soc = DEFAULT_SOC

    # -- the seed's four calls --------------------------------------------------------------
    def load_operator_library(self, path: str | os.PathLike[str]) -> OperatorLibrary:
        p = check_absolute(path, "kernel library")
        with self._lock:
            key = str(p.resolve())
            lib = self.libraries.get(key)
            if lib is None:
                lib = open_library(p)
                self.libraries[key] = lib
            return lib

    def register_operator(self, name: str) -> None:
        with self._lock:
            if not self.libraries:
                raise RegistrationOrderError(
                    f"register_operator('{name}') before any load_operator_library(); the "
                    f"order is {ORDER}")
            entry = self.ops.setdefault(name, RegisteredOp(name))
            if entry.library is None:
                libs = list(self.libraries.values())
                entry.library = next((lib for lib in reversed(libs) if lib.op_name == name),
                                     libs[-1])

    def register_operator_model(self, name: str, metadef_path: str | os.PathLike[str],
                                kernel_name: str) -> None:
        with self._lock:
            entry = self.ops.get(name)
            if entry is None or entry.library is None:
                raise RegistrationOrderError(
                    f"register_operator_model('{name}', ...) before register_operator('{name}');"
                    f" the order is {ORDER}")
            path = check_absolute(metadef_path, "metadef")
            opdef = load(path)
            if opdef.op_name != name:
                raise RegistrationConflictError(
                    f"metadef {path} describes op '{opdef.op_name}', not '{name}'")
            library = self._library_with(kernel_name, entry.library, name)
            names = [t.name for t in (*opdef.inputs, *opdef.outputs)]
            for combo in opdef.combinations:
                wanted = dict(zip(names, combo, strict=True))
                if library.variant_for(kernel_name, wanted) is None:
                    raise KernelNotFoundError(
                        f"{library.path} has no build of kernel '{kernel_name}' for dtypes "
                        f"{wanted}; rebuild the library with `opgen build` after changing the "
                        "spec")
            if entry.opdef is not None:
                if entry.opdef.same_as(opdef) and entry.kernel_name == kernel_name:
                    return  # the same registration again: a no-op
                raise RegistrationConflictError(
                    f"op '{name}' is already registered from {entry.metadef_path} with kernel "
                    f"'{entry.kernel_name}'; a different definition ({path}, kernel "
                    f"'{kernel_name}') cannot replace it in this process. Rename the op or "
                    "restart the process")
            signature = library.signatures.get(kernel_name)
            if signature is not None:
                _check_signature(opdef, path, kernel_name, signature.params)
            entry.library, entry.opdef, entry.kernel_name = library, opdef, kernel_name
            entry.metadef_path = path
            # A hand-written metadef (the seed's) has no tiling section: the layout the kernel
            # frontend read when `opgen build` built the library serves instead.
            entry.layout = _layout(opdef.tiling or (signature.tiling if signature else None))
            if not self._adopting:
                oppkg.install(name, library.path, path, kernel_name)

    def register_operator_gradient(self, name: str,
                                   grad_metadef_path: str | os.PathLike[str]) -> None:
        with self._lock:
            entry = self.ops.get(name)
            if entry is None or entry.opdef is None:
                raise RegistrationOrderError(
                    f"register_operator_gradient('{name}', ...) before "
                    f"register_operator_model('{name}', ...); the order is {ORDER}")
            path = check_absolute(grad_metadef_path, "gradient metadef")
            grad = load(path)
            if grad.op_name == name:
                if not grad.backward or "op" in grad.backward:
                    raise RegistrationConflictError(
                        f"{path} is the metadef of '{name}' itself but has no per-input "
                        "`backward:` expressions to use as its gradient")
            elif grad.op_name not in self.ops or self.ops[grad.op_name].opdef is None:
                raise RegistrationOrderError(
                    f"gradient op '{grad.op_name}' of '{name}' is not registered; register it "
                    f"like any op ({ORDER}) before register_operator_gradient('{name}', ...)")
            if entry.gradient is not None and not entry.gradient.same_as(grad):
                raise RegistrationConflictError(
                    f"op '{name}' already has a different gradient ({entry.gradient_path})")
            entry.gradient, entry.gradient_path = grad, path
            assert entry.library is not None and entry.metadef_path is not None
            if not self._adopting:
                oppkg.install(name, entry.library.path, entry.metadef_path, entry.kernel_name,
                              path)

    # -- lookup -----------------------------------------------------------------------------
    def _library_with(self, kernel_name: str, preferred: OperatorLibrary,
                      op: str) -> OperatorLibrary:
        if kernel_name in preferred.kernel_names:
            return preferred
        for lib in self.libraries.values():
            if kernel_name in lib.kernel_names:
                return lib
        have = sorted({k for lib in self.libraries.values() for k in lib.kernel_names})
        raise KernelNotFoundError(
            f"register_operator_model('{op}', ..., '{kernel_name}'): no loaded library has a "
            f"kernel '{kernel_name}'{_suggest(kernel_name, have)} (kernels: "
            f"{', '.join(have) or 'none'})")

    def lookup(self, name: str) -> RegisteredOp:
        entry = self.ops.get(name)
        if entry is not None and entry.opdef is not None:
            return entry
        with self._lock:
            entry = self.ops.get(name)
            if entry is not None and entry.opdef is not None:
                return entry
            package = oppkg.find(name)
            if package is None:
                known = sorted(n for n, e in self.ops.items() if e.opdef is not None)
                raise OpNotRegisteredError(
                    f"op '{name}' is not registered in this process nor installed in "
                    f"{oppkg.opp_dir()}{_suggest(name, known)}. Register it with "
                    f"load_operator_library -> register_operator -> register_operator_model (or "
                    f"import its generated registration module), or point OPGEN_OPP_PATH at the "
                    f"op package directory where another process registered it")
            # Registering from the package must not reinstall it: an install without the
            # gradient would replace the folder (and its gradient file) before it is read.
            adopting, self._adopting = self._adopting, True
            try:
                self.load_operator_library(package["library"])
                self.register_operator(name)
                self.ops[name].library = self.load_operator_library(package["library"])
                self.register_operator_model(name, package["metadef"], package["kernel_name"])
                if "gradient" in package:
                    grad_path = Path(package["gradient"])
                    grad = load(grad_path)
                    if grad.op_name != name:
                        self.lookup(grad.op_name)
                    self.register_operator_gradient(name, grad_path)
            finally:
                self._adopting = adopting
            return self.ops[name]

    def reset(self) -> None:
        """Forget every registration of this process (the op package directory is kept)."""
        with self._lock:
            self.libraries.clear()
            self.ops.clear()

    # -- calling ----------------------------------------------------------------------------
    def call(self, name: str, *inputs: Any, profile: bool = False,
             **attrs: Any) -> Any:
        op = self.ops.get(name)
        if op is None or op.opdef is None:
            op = self.lookup(name)
        # Fast path: a signature seen before (numpy inputs, hashable attrs) reuses its plan:
        # the dtype/shape checks, output shapes and packed tiling were computed once.
        # True == 1 == 1.0: the type keeps a bad attr from a good plan
        attr_key = tuple([(k, type(v), v) for k, v in attrs.items()]) if attrs else ()
        try:
            try:  # every input an array: the common case, one attribute look-up each
                key: Any = (tuple([(a.dtype, a.shape) for a in inputs]), attr_key)
            except AttributeError:  # None (an absent optional input) or a list input
                key = (tuple([None if a is None else (a.dtype, a.shape)
                              if not isinstance(a, list | tuple) else _list_key(a)
                              for a in inputs]), attr_key)
            plan = op.plans.get(key)
        except (AttributeError, TypeError):
            key, plan = None, None
        if plan is None:
            opdef = op.opdef
            assert opdef is not None and op.library is not None
            arrays = _bind_inputs(opdef, inputs)
            attr_values = _bind_attrs(opdef, attrs)
            plan = self._plan(op, opdef, arrays, attr_values)
            plan.absent = (None,) * (len(arrays) - len(inputs))
            plan.inplace = tuple(i for i, t in enumerate(opdef.inputs) if t.inplace)
            positions = {t.name: i for i, t in enumerate(opdef.inputs)}
            plan.refs = tuple((o, positions[t.ref]) for o, t in enumerate(opdef.outputs)
                              if t.ref is not None and t.ref in positions)
            plan.lists = any(t.dynamic for t in opdef.inputs)
            if (key is not None and plan.cacheable
                    and all(a is None or isinstance(a, np.ndarray)
                            or (isinstance(a, list | tuple)
                                and all(isinstance(x, np.ndarray) for x in a))
                            for a in inputs)):
                if len(op.plans) > 256:
                    op.plans.clear()
                op.plans[key] = plan
            inputs = tuple(arrays[:len(inputs)])
        alloc = _ALLOC.at
        known = [alloc(n, d, s) for n, d, s in plan.out_layout]
        if plan.inplace:  # the kernel writes a copy of each in-place input: the op's results
            inputs = tuple(np.array(a, order="C", copy=True) if i in plan.inplace else a
                           for i, a in enumerate(inputs))
            outs = [inputs[i] for i in plan.inplace]
            known = []
        else:
            outs = [a for a, _ in known]
            for o in plan.zero_outputs:  # CANN clears an InitValue output (SetNeedAtomic)
                outs[o].fill(0)
            if plan.refs:  # a ref output is its input's buffer: the kernel gets it for both
                inputs = _alias_refs(name, plan, inputs, outs)
        listed: list[tuple[np.ndarray, list[tuple[int, ...]], np.dtype[Any]]] = []
        if plan.out_groups is not None:  # a dynamic output reaches the kernel as one list
            grouped_known: list[Any] = []
            grouped_outs: list[Any] = []
            k = 0
            for n in plan.out_groups:
                if n == 0:  # a plain output
                    grouped_known.append(known[k])
                    grouped_outs.append(outs[k])
                    k += 1
                    continue
                part = [a for a, _ in known[k:k + n]]
                buf = tensor_list.pack(part)
                grouped_known.append((buf, int(buf.__array_interface__["data"][0])))
                listed.append((buf, [a.shape for a in part], part[0].dtype))
                grouped_outs.append(part)  # (its views into the list buffer, after the launch)
                k += n
            known, outs = grouped_known, grouped_outs
        if not plan.launch:  # the empty-tensor rule: empty outputs, nothing to compute
            empty: Any = outs[0] if len(outs) == 1 else tuple(outs)
            return (empty, LaunchProfile(plan.entry, self.soc, 0, 0, (), 0)) if profile else empty
        # a dynamic input reaches the kernel as one ListTensorDesc buffer (tensor_list); a list
        # that a ref output aliases, as that output's buffer
        list_refs = {i: o for o, i in plan.refs
                     if plan.out_groups is not None and plan.out_groups[o] > 0}
        gm_inputs = ([known[list_refs[i]][0] if i in list_refs
                      else tensor_list.pack(a) if isinstance(a, list | tuple) else a
                      for i, a in enumerate(inputs)] if plan.lists else inputs)
        prepared = plan.prepared
        if prepared is None or prepared[0] != self.soc:
            prepared = plan.prepared = (self.soc, Prepared(
                plan.kernel, plan.entry, plan.names, block_dim=plan.block_dim,
                tiling=plan.tiling, workspace_size=plan.workspace_size, soc=get_soc(self.soc),
                tiling_key=plan.tiling_key))
        prof = prepared[1].run([*gm_inputs, *plan.absent] if plan.absent else gm_inputs, known)
        if listed:  # each list output: the tensors the kernel wrote into its list buffer
            views = iter([tensor_list.unpack(buf, shapes, dt) for buf, shapes, dt in listed])
            outs = [next(views) if isinstance(o, list) else o for o in outs]
        result: Any = outs[0] if len(outs) == 1 else tuple(outs)
        return (result, prof) if profile else result

    def _plan(self, op: RegisteredOp, opdef: OpDef, arrays: Sequence[_Input],
              attrs: Mapping[str, Any]) -> _Plan:
        assert op.library is not None
        in_dtypes = tuple(str(_first(a).dtype) if a is not None else None for a in arrays)
        column = _pick_column(opdef, in_dtypes, attrs)
        names = [t.name for t in (*opdef.inputs, *opdef.outputs)]
        dtypes = dict(zip(names, opdef.combinations[column], strict=True))
        # a shape rule that names a list input reads its first instance
        shapes = {t.name: tuple(_first(a).shape) for t, a in zip(opdef.inputs, arrays,
                                                                 strict=True) if a is not None}
        try:
            for t, a in zip(opdef.inputs, arrays, strict=True):
                for k, x in enumerate(_instances(a)):
                    argcheck.check_declared(opdef.op_name, t.name if not t.dynamic
                                            else f"{t.name}[{k}]", t.shape, x.shape)
            argcheck.check_ranges_and_constraints(opdef.op_name, opdef.raw.get("checks") or {},
                                                  shapes, attrs)
            for t in opdef.outputs:
                rule = t.infer or {}
                if rule.get("rule") == "broadcast" and all(n in shapes for n in rule["inputs"]):
                    argcheck.check_broadcast(opdef.op_name, rule["inputs"],
                                             [shapes[n] for n in rule["inputs"]])
        except argcheck.ArgCheckError as exc:
            raise call_error(exc) from None
        out_dtypes = tuple(np.dtype(dtypes[t.name]) for t in opdef.outputs)
        variant: KernelVariant | None = op.library.variant_for(op.kernel_name, dtypes)
        if variant is None:
            raise KernelNotFoundError(f"{op.library.path} has no build of '{op.kernel_name}' "
                                      f"for {dtypes}; rebuild it with `opgen build`")
        if opdef.op_host:
            plan = self._plan_op_host(op, opdef, arrays, attrs, shapes, out_dtypes, names,
                                      op.library.kernel(variant), variant.entry)
            plan.launch = not _empty_rule(opdef, arrays, plan.out_shapes)
            return plan
        out_shapes = [_infer_output(opdef, t, shapes, attrs) for t in opdef.outputs]
        if _empty_rule(opdef, arrays, out_shapes):
            return _Plan(None, variant.entry, tuple(out_shapes), out_dtypes, tuple(names), 0,
                         b"", (), launch=False)
        dynamic = [t.name for t in opdef.inputs if t.dynamic]
        if dynamic:
            raise OpCallError(f"{opdef.op_name}: the list input '{dynamic[0]}' needs the op's "
                              "own op_host (kernel.op_host) to tile it; the default tiling "
                              "policy takes one tensor per input")
        if op.layout is None:
            raise OpCallError(f"{opdef.op_name}: the metadef has no tiling layout; regenerate "
                              "it with `opgen generate`")
        ins = {t.name: a for t, a in zip(opdef.inputs, arrays, strict=True)}
        outs = {t.name: TensorSpec(s, d)
                for t, s, d in zip(opdef.outputs, out_shapes, out_dtypes, strict=True)}
        tiling_attrs = {k: _tiling_value(opdef.attr(k), v) for k, v in attrs.items()}
        hook = _tiling_hook(opdef)
        # a hook returns (blockDim, {field: value}) or, to dispatch on TILING_KEY_IS, also a key
        decided = hook(op.layout, ins, outs, tiling_attrs, self.soc)
        block_dim, values = decided[0], decided[1]
        key = int(decided[2]) if len(decided) > 2 else 0
        return _Plan(op.library.kernel(variant), variant.entry, tuple(out_shapes), out_dtypes,
                     tuple(names), block_dim, op.layout.pack(values), (), tiling_key=key)

    def _plan_op_host(self, op: RegisteredOp, opdef: OpDef,
                      arrays: Sequence[_Input], attrs: Mapping[str, Any],
                      shapes: Mapping[str, tuple[int, ...]], out_dtypes: tuple[np.dtype[Any], ...],
                      names: Sequence[str], kernel: Any, entry: str) -> _Plan:
        """The op's own op_host decides: InferShape (when it registers one, else the spec's
        rule) gives the output shapes, TilingFunc the tiling, block dim, key and workspace."""
        host = op_host_of(opdef, op.library)
        soc = get_soc(self.soc)
        info = host.describe(opdef.op_type)
        depends = {p["name"] for p in (info.get("def") or {}).get("inputs", [])
                   if p.get("value_depend")}
        # one entry per IR input: its instances (none absent, several for a list input)
        ins = [[HostTensor(x.shape, str(x.dtype), data=x if t.ir in depends else None)
                for x in _instances(a)] for t, a in zip(opdef.inputs, arrays, strict=True)]
        attr_list = [(a.type, attrs[a.name]) for a in opdef.attrs if a.name in attrs]
        # a dynamic output has as many instances as the first dynamic input (CANN's aclnn
        # callers pass the output list: foreach ops, fused optimizers)
        lists = [len(list(_instances(a))) for t, a in zip(opdef.inputs, arrays, strict=True)
                 if t.dynamic and a is not None]
        groups = [(lists[0] if lists else 1) if t.dynamic else 0 for t in opdef.outputs]
        owners = [t for t, n in zip(opdef.outputs, groups, strict=True) for _ in range(max(n, 1))]
        flat_dtypes = tuple(d for d, n in zip(out_dtypes, groups, strict=True)
                            for _ in range(max(n, 1)))
        counts = [max(n, 1) for n in groups] if any(groups) else None
        inferred: list[tuple[int, ...] | None] = [None] * len(owners)
        if info.get("infer_shape"):
            inferred = host.infer_shape(opdef.op_type, ins, len(owners), attr_list, soc,
                                        counts)
        out_shapes = [s if s is not None else _rule_for_host_op(opdef, t, shapes, attrs,
                                                                 bool(info.get("infer_shape")))
                      for t, s in zip(owners, inferred, strict=True)]
        outs = [HostTensor(s, str(d)) for s, d in zip(out_shapes, flat_dtypes, strict=True)]
        decided = host.tiling(opdef.op_type, ins, outs, attr_list, soc, output_counts=counts)
        return _Plan(kernel, entry, tuple(out_shapes), flat_dtypes, tuple(names),
                     decided.block_dim, decided.tiling, (), tiling_key=decided.tiling_key,
                     workspace_size=decided.workspace_size, cacheable=not depends,
                     zero_outputs=decided.zero_outputs,
                     out_groups=tuple(groups) if any(groups) else None)



def _rule_for_host_op(opdef: OpDef, t: TensorDef, shapes: Mapping[str, tuple[int, ...]],
                      attrs: Mapping[str, Any], has_infer_shape: bool) -> tuple[int, ...]:
    """An output whose shape the op_host leaves open (no InferShape, or one that never sets
    it: CANN's aclnn callers pass the output) takes the spec's own `infer:` rule; without one
    the first input's shape would be a guess, so it is an error."""
    if t.infer is None:
        why = ("its InferShape does not set it" if has_infer_shape
               else "it registers no InferShape")
        raise OpCallError(
            f"{opdef.op_name}: the op_host gives no shape for output '{t.name}' ({why}; an "
            f"aclnn caller passes the output); give '{t.name}' an `infer:` rule in the op's "
            f"spec (docs/spec-reference.md, \"Shape rules\"), e.g. `infer: same_as(x)` or "
            f"`infer: \"[dim(x, 0), 1]\"`")
    return _infer_output(opdef, t, shapes, attrs)


def _alias_refs(name: str, plan: _Plan, inputs: tuple[Any, ...], outs: list[np.ndarray]
                ) -> tuple[Any, ...]:
    """Each ref output takes its input's values, and a single-tensor ref input becomes the
    output's array (a list one reaches the kernel as the output's list buffer: Registry.call).
    `outs` is flat: a list output's instances one after another."""
    starts, at = [], 0
    for n in plan.out_groups or (0,) * len(plan.out_shapes):
        starts.append(at)
        at += max(n, 1)
    swapped = list(inputs)
    for o, i in plan.refs:
        src = inputs[i]
        parts = list(src) if isinstance(src, list | tuple) else [src]
        count = plan.out_groups[o] if plan.out_groups is not None and plan.out_groups[o] else 1
        dst = outs[starts[o]:starts[o] + count]
        if len(parts) != len(dst) or any(
                not isinstance(a, np.ndarray) or a.shape != b.shape
                for a, b in zip(parts, dst, strict=True)):
            raise OpCallError(
                f"{name}: output {o} is the buffer of input {i} (ref), so it must have its "
                f"shape(s) {[getattr(a, 'shape', None) for a in parts]}; the op's shape rule "
                f"gives {[b.shape for b in dst]}")
        for a, b in zip(parts, dst, strict=True):
            np.copyto(b, a, casting="no")
        if not isinstance(src, list | tuple):
            swapped[i] = dst[0]
    return tuple(swapped)


def _empty_rule(opdef: OpDef, arrays: Sequence[_Input],
                out_shapes: Sequence[tuple[int, ...]]) -> bool:
    """argcheck.check_empty on the call: True when nothing is to launch."""
    ins = [(t.name if not t.dynamic else f"{t.name}[{k}]", tuple(x.shape))
           for t, a in zip(opdef.inputs, arrays, strict=True) for k, x in enumerate(_instances(a))]
    if len(out_shapes) == len(opdef.outputs):
        outs = [(t.name, tuple(s)) for t, s in zip(opdef.outputs, out_shapes, strict=True)]
    else:  # a dynamic output's instances
        outs = [(f"output[{k}]", tuple(s)) for k, s in enumerate(out_shapes)]
    try:
        return argcheck.check_empty(opdef.op_name, ins, outs)
    except argcheck.ArgCheckError as exc:
        raise call_error(exc) from None


def _infer_output(opdef: OpDef, t: TensorDef, shapes: Mapping[str, tuple[int, ...]],
                  attrs: Mapping[str, Any]) -> tuple[int, ...]:
    try:
        shape = infer_shape(t.infer or {"rule": "same_as", "input": opdef.inputs[0].name},
                            shapes, attrs)
    except (ShapeRuleError, KeyError) as exc:
        raise OpValueError(f"{opdef.op_name}(): {exc}") from None
    return tuple(int(d) for d in shape)


_HOSTS: dict[tuple[str, tuple[str, ...]], OpHost] = {}


def op_host_of(opdef: OpDef, library: OperatorLibrary | None = None) -> OpHost:
    """The op's op_host: the one its operator library carries, else its sources compiled for
    the host (cached by content)."""
    carried = library.op_host_library() if library is not None else None
    if carried is not None:
        return load_op_host(carried)
    key = (opdef.op_type, tuple(str(p) for p in opdef.op_host))
    host = _HOSTS.get(key)
    if host is None:
        path = build_op_host(opdef.op_host, name=opdef.op_name,
                             include_dirs=opdef.host_include_dirs)
        host = _HOSTS[key] = load_op_host(path)
    return host


def _check_signature(opdef: OpDef, path: Path, kernel_name: str,
                     params: Sequence[str]) -> None:
    """Parameters bind by position: the metadef's tensors, then workspace and tiling."""
    tensors = [t.name for t in (*opdef.inputs, *opdef.outputs)]
    if len(params) != len(tensors) + 2:
        raise KernelNotFoundError(
            f"kernel '{kernel_name}' takes {len(params)} parameter(s) ({', '.join(params)}) but "
            f"metadef {path} describes {len(tensors)} tensor(s) ({', '.join(tensors)}); a kernel "
            "takes the inputs, the outputs, then workspace and tiling")


def _layout(tiling: Mapping[str, Any] | None) -> TilingLayout | None:
    if not tiling:
        return None
    return TilingLayout.from_fields(
        tiling["struct"], [(f["name"], f["ctype"], f.get("array_len")) for f in tiling["fields"]])


def _tiling_hook(opdef: OpDef) -> Any:
    """The spec's `kernel.tiling_hook` ("module:function"), else the default tiling policy.

    The module is imported normally, or else loaded from `<module>.py` beside the spec. The
    hook is called like default_tiling: (layout, inputs, outputs, attrs, soc) -> (blockDim,
    {field: value}); it may call default_tiling itself and adjust what it returns."""
    text = (opdef.raw.get("kernel") or {}).get("tiling_hook")
    if not text:
        return default_tiling
    cached = _HOOKS.get((str(opdef.path), text))
    if cached is not None:
        return cached
    module_name, _, function = str(text).partition(":")
    import importlib
    import importlib.util
    import sys

    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError:
        spec_file = opdef.raw.get("spec")
        base = (opdef.path.parent / spec_file).parent if spec_file else opdef.path.parent
        candidate = base / f"{module_name.replace('.', '/')}.py"
        if not candidate.is_file():
            raise TilingError(f"{opdef.op_name}: tiling_hook '{text}': no module '{module_name}' "
                              f"on sys.path nor at {candidate}") from None
        loader_spec = importlib.util.spec_from_file_location(
            f"opgen_tiling_hook_{opdef.op_name}", candidate)
        assert loader_spec is not None and loader_spec.loader is not None
        module = importlib.util.module_from_spec(loader_spec)
        sys.modules[loader_spec.name] = module
        loader_spec.loader.exec_module(module)
    fn = getattr(module, function, None)
    if not callable(fn):
        raise TilingError(f"{opdef.op_name}: tiling_hook '{text}': {module_name} has no function "
                          f"'{function}'")
    _HOOKS[(str(opdef.path), text)] = fn
    return fn


_HOOKS: dict[tuple[str, str], Any] = {}


def _tiling_value(attr: AttrDef | None, value: Any) -> Any:
    if attr is not None and attr.type == "type":
        from .dtypes import data_type

        return int(data_type(value))
    return value


# One bound input: an array, the list of arrays of a dynamic input, or None (absent).
_Input = np.ndarray | list[np.ndarray] | None


def _instances(a: _Input) -> list[np.ndarray]:
    return [] if a is None else a if isinstance(a, list) else [a]


def _first(a: np.ndarray | list[np.ndarray]) -> np.ndarray:
    return a[0] if isinstance(a, list) else a


def _list_key(a: Sequence[Any]) -> tuple[Any, ...]:
    """The plan-cache key of a list input: its instances' dtypes and shapes."""
    return ("list", *((x.dtype, x.shape) for x in a))


def _bind_inputs(opdef: OpDef, inputs: Sequence[Any]) -> list[_Input]:
    n = len(opdef.inputs)
    required = sum(1 for t in opdef.inputs if not t.optional)
    if not required <= len(inputs) <= n:
        names = ", ".join(t.name + ("?" if t.optional else "") for t in opdef.inputs)
        raise OpCallError(f"{opdef.op_name}() takes {required}"
                          f"{f' to {n}' if n != required else ''} tensor input(s) ({names}), "
                          f"got {len(inputs)}")
    out: list[_Input] = []
    for i, t in enumerate(opdef.inputs):
        value = inputs[i] if i < len(inputs) else None
        if value is None:
            if not t.optional:
                raise OpCallError(f"{opdef.op_name}(): input '{t.name}' is required, got None")
            out.append(None)
            continue
        if t.dynamic:
            out.append(_bind_list(opdef, t, value))
            continue
        if isinstance(value, list | tuple) and value and all(
                isinstance(x, np.ndarray) for x in value):
            raise OpCallError(f"{opdef.op_name}(): input '{t.name}' is one tensor, got a list "
                              f"of {len(value)} arrays (only dynamic inputs take a list)")
        arr = value if isinstance(value, np.ndarray) else np.asarray(value)
        out.append(arr)
    return out


def _bind_list(opdef: OpDef, t: TensorDef, value: Any) -> list[np.ndarray]:
    """A dynamic input: a non-empty list or tuple of arrays of one dtype and one rank."""
    if not isinstance(value, list | tuple) or not value:
        raise OpCallError(f"{opdef.op_name}(): input '{t.name}' is dynamic: pass a non-empty "
                          f"list of tensors, got {type(value).__name__}")
    arrays = [x if isinstance(x, np.ndarray) else np.asarray(x) for x in value]
    dtypes = sorted({str(x.dtype) for x in arrays})
    if len(dtypes) > 1:
        raise OpCallError(f"{opdef.op_name}(): the tensors of list input '{t.name}' must share "
                          f"one dtype, got {', '.join(dtypes)}")
    if len({x.ndim for x in arrays}) > 1:
        raise OpCallError(f"{opdef.op_name}(): the tensors of list input '{t.name}' must share "
                          f"one rank (CANN's ListTensorDesc describes every tensor with the "
                          f"first one's), got shapes {[x.shape for x in arrays]}")
    return arrays


def _bind_attrs(opdef: OpDef, attrs: Mapping[str, Any]) -> dict[str, Any]:
    if not opdef.attrs and not attrs:
        return {}
    try:
        return argcheck.check_attrs(opdef.op_name, [(a.name, a.type, a.required, a.default)
                                                    for a in opdef.attrs], attrs)
    except argcheck.ArgCheckError as exc:
        raise call_error(exc) from None


def _pick_column(opdef: OpDef, in_dtypes: Sequence[str | None],
                 attrs: Mapping[str, Any]) -> int:
    n_in = len(opdef.inputs)
    for col, combo in enumerate(opdef.combinations):
        if any(d is not None and d != combo[i] for i, d in enumerate(in_dtypes)):
            continue
        if all(t.dtype_from is None or attrs.get(t.dtype_from) == combo[n_in + j]
               for j, t in enumerate(opdef.outputs)):
            return col
    names = [t.name for t in opdef.inputs]
    got = [(n, d) for n, d in zip(names, in_dtypes, strict=True) if d is not None]
    got += [(str(t.dtype_from), str(attrs.get(t.dtype_from))) for t in opdef.outputs
            if t.dtype_from]
    outs = [t.name for t in opdef.outputs]
    columns = [(list(zip(names, combo[:n_in], strict=True)),
                list(zip(outs, combo[n_in:], strict=True))) for combo in opdef.combinations]
    spec = (opdef.raw.get("checks") or {}).get("spec") or "the spec"
    raise OpCallError(argcheck.dtype_message(opdef.op_name, spec, got, columns))


def _backward(reg: Registry, name: str, inputs: Sequence[Any], grad_outputs: Sequence[Any],
              attrs: Mapping[str, Any]) -> tuple[Any, ...]:
    op = reg.lookup(name)
    opdef = op.opdef
    assert opdef is not None
    if op.gradient is None:
        raise GradientNotRegisteredError(
            f"op '{name}' has no registered gradient, so it cannot be trained through. Add "
            f"`backward:` to its spec (a gradient per input, using grad_<output>, or `op: "
            f"<grad op>`), run `opgen generate`, and call register_operator_gradient('{name}', "
            "<metadef json>) after register_operator_model")
    arrays = _bind_inputs(opdef, inputs)
    values = _bind_attrs(opdef, attrs)
    if len(grad_outputs) != len(opdef.outputs):
        raise OpCallError(f"{name} backward: expected {len(opdef.outputs)} output gradient(s) "
                          f"({', '.join('grad_' + t.name for t in opdef.outputs)}), got "
                          f"{len(grad_outputs)}")
    grad = op.gradient
    if grad.op_name != name:
        env = {t.name: a for t, a in zip(opdef.inputs, arrays, strict=True)}
        env.update({f"grad_{t.name}": g for t, g in zip(opdef.outputs, grad_outputs,
                                                         strict=True)})
        forward = reg.call(name, *arrays, **values)
        outs = forward if isinstance(forward, tuple) else (forward,)
        env.update({t.name: o for t, o in zip(opdef.outputs, outs, strict=True)})
        grad_inputs = [env.get(t.name) for t in grad.inputs]
        grad_attrs = {a.name: values[a.name] for a in grad.attrs if a.name in values}
        result = reg.call(grad.op_name, *grad_inputs, **grad_attrs)
        results = result if isinstance(result, tuple) else (result,)
        by_name = dict(zip([t.name for t in grad.outputs], results, strict=True))
        return tuple(by_name.get(f"grad_{t.name}", by_name.get(t.name)) for t in opdef.inputs)
    sources = (grad.raw.get("numpy") or {}).get("backward") or {}
    env = {t.name: a for t, a in zip(opdef.inputs, arrays, strict=True)}
    for attr in opdef.attrs:
        value = values[attr.name]
        env[attr.name] = np.dtype(value) if attr.type == "type" else value
    forward = reg.call(name, *arrays, **values)
    outs = forward if isinstance(forward, tuple) else (forward,)
    env.update({t.name: o for t, o in zip(opdef.outputs, outs, strict=True)})
    env.update({f"grad_{t.name}": g for t, g in zip(opdef.outputs, grad_outputs, strict=True)})
    grads: list[Any] = []
    for t, arr in zip(opdef.inputs, arrays, strict=True):
        source = sources.get(t.name)
        if source is None or arr is None or isinstance(arr, list):
            grads.append(None)  # no expression, an absent input, or a list (no gradient)
            continue
        grad_value = np.asarray(_evaluate_numpy(source, env))
        grads.append(np.broadcast_to(grad_value, arr.shape).astype(arr.dtype))
    return tuple(grads)


def _evaluate_numpy(source: str, env: Mapping[str, Any]) -> Any:
    """Evaluate numpy source the compiler translated from a spec expression."""
    from . import exprlib

    code = _COMPILED.get(source)
    if code is None:
        code = _COMPILED[source] = compile(source, "<opgen expression>", "eval")
    return eval(code, {"np": np, "_x": exprlib, "__builtins__": {}}, dict(env))


_COMPILED: dict[str, Any] = {}

class _SlabAllocator(threading.local):
    """32-byte aligned output buffers for small outputs, carved from 1 MiB slabs.

    Allocating each small output on its own costs more than the launch (an aligned numpy
    buffer needs its address, which is slow to get); a bump pointer over a slab costs a
    slice. A slab is freed by numpy once no array carved from it is alive. Each thread has
    its own slab, so no lock is needed."""

    SLAB = 1 << 20
    SMALL = 1 << 16

    def __init__(self) -> None:
        self.slab, self.address = aligned_empty_at(self.SLAB)
        self.offset = 0

    def at(self, nbytes: int, dtype: np.dtype[Any], shape: tuple[int, ...]
           ) -> tuple[np.ndarray, int]:
        """A new output and its address (32-byte aligned, a device allocation's bytes behind
        it)."""
        if nbytes > self.SMALL:
            return gm_empty_at(shape, dtype)
        # each output owns a device allocation's bytes (gm_allocation): its padding is its own
        start = self.offset
        size = gm_allocation(nbytes)
        end = start + size
        if end > self.SLAB:
            self.slab, self.address = aligned_empty_at(self.SLAB)
            start, end = 0, size
        self.offset = end
        return (np.ndarray(shape, dtype, self.slab.data, start),  # (the slab: its base)
                self.address + start)


_ALLOC = _SlabAllocator()

REGISTRY = Registry()


def load_operator_library(path: str | os.PathLike[str]) -> OperatorLibrary:
    return REGISTRY.load_operator_library(path)


def register_operator(name: str) -> None:
    REGISTRY.register_operator(name)


def register_operator_model(name: str, metadef_path: str | os.PathLike[str],
                            kernel_name: str) -> None:
    REGISTRY.register_operator_model(name, metadef_path, kernel_name)


def register_operator_gradient(name: str, grad_metadef_path: str | os.PathLike[str]) -> None:
    REGISTRY.register_operator_gradient(name, grad_metadef_path)


def call(op: str, *inputs: Any, **attrs: Any) -> Any:
    """Run a registered op on numpy arrays; returns the output, or a tuple of outputs."""
    return REGISTRY.call(op, *inputs, **attrs)


def backward(op: str, inputs: Sequence[Any], grad_outputs: Sequence[Any],
             **attrs: Any) -> tuple[Any, ...]:
    """Gradients of `op` with respect to each input (None where not differentiable)."""
    return _backward(REGISTRY, op, inputs, grad_outputs, attrs)


def call_with_profile(op: str, *inputs: Any, **attrs: Any) -> tuple[Any, LaunchProfile]:
    result: tuple[Any, LaunchProfile] = REGISTRY.call(op, *inputs, profile=True, **attrs)
    return result
