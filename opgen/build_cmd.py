"""`opgen build` and `opgen profile`: the compiler's front door to the runtime's kernel build
(the seed's `aoc` step) and the simulator's profile."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any

from opgen import gen
from opgen.diagnostics import Diagnostic, DiagnosticError, DiagnosticSink, OpgenError, SourceLoc
from opgen.emit.metadef import metadef_path_for
from opgen.kernel_frontend import ParseCache, analyze, default_display
from opgen.project import Config, load_specs

if TYPE_CHECKING:
    from opgen_runtime.oplib import EntrySignature


class BuildCommandError(OpgenError):
    pass


def generated_metadefs(config: Config, specs: Sequence[Path], sink: DiagnosticSink,
                       ops: Sequence[str] = ()) -> dict[str, Path]:
    """Generate (writing only what changed) and return op name -> its metadef path."""
    return {name: metadef for name, (metadef, _spec) in _generated(config, specs, sink,
                                                                   ops).items()}


def _generated(config: Config, specs: Sequence[Path], sink: DiagnosticSink,
               ops: Sequence[str] = ()) -> dict[str, tuple[Path, Path]]:
    """op name -> (its metadef, its spec file), after generating what changed."""
    result = gen.run(config, list(specs), sink)
    if result is None:
        raise BuildCommandError("generation failed; fix the errors above first")
    found = {o.op_name: (config.output_dir / metadef_path_for(o.op_name),
                         config.root / o.spec_path) for o in result.ops}
    unknown = [o for o in ops if o not in found]
    if unknown:
        raise BuildCommandError(f"no op named {', '.join(unknown)}; the project has: "
                                f"{', '.join(sorted(found)) or 'no ops'}")
    return {k: v for k, v in found.items() if not ops or k in ops}


def entry_signatures(config: Config, spec_files: Sequence[Path]) -> dict[str, EntrySignature]:
    """op name -> its kernel entry as the kernel frontend reads it (parses come from the
    frontend's cache: generating just read them), for the library manifest."""
    from opgen_runtime.oplib import EntrySignature

    sink = DiagnosticSink()
    kernels = analyze(load_specs(list(spec_files), config, sink), config.root, sink,
                      cache=ParseCache())
    return {name: EntrySignature(tuple(p.name for p in k.entry.params),
                                 k.tiling.layout_json() if k.tiling is not None else None)
            for name, k in kernels.items()}


def build_failure(failures: Sequence[Exception], root: Path) -> OpgenError:
    """Failed builds as one report: each compiler error once, as `file:line:col: error: ...`
    naming the user's own file (project-relative), then any failure the compiler did not
    locate (no compiler, a failed bundle) as its message."""
    from opgen_runtime.errors import BuildError

    show = default_display(root)
    located: list[Diagnostic] = []
    other: list[str] = []
    for exc in failures:
        errors = exc.errors if isinstance(exc, BuildError) else ()
        for e in errors:
            d = Diagnostic(SourceLoc(show(e.path), e.line, e.col), e.message)
            if d not in located:
                located.append(d)
        if not errors:
            other.append(str(exc))
    if not other:
        return DiagnosticError(tuple(located))
    return BuildCommandError("\n".join([*map(str, located), *other]))


def build(config: Config, specs: Sequence[Path], sink: DiagnosticSink) -> dict[str, Path]:
    """Build lib<op>.so for every op (kernels compile in parallel; unchanged ones are free).
    Every op is attempted, so one run reports the compile errors of all of them."""
    from opgen_runtime.errors import SimulatorError
    from opgen_runtime.metadef import load
    from opgen_runtime.oplib import build_operator_library

    generated = _generated(config, specs, sink)
    names = sorted(generated)
    signatures = entry_signatures(config, sorted({spec for _m, spec in generated.values()}))
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        futures = [pool.submit(lambda n: build_operator_library(
                       load(generated[n][0]), signature=signatures.get(n)), n)
                   for n in names]
    libs: dict[str, Path] = {}
    failures: list[Exception] = []
    for name, future in zip(names, futures, strict=True):
        try:
            libs[name] = future.result()
        except SimulatorError as exc:
            failures.append(exc)
    if failures:
        raise build_failure(failures, config.root)
    return libs


def install_op_api(config: Config, sink: DiagnosticSink, toolkit: Path | None = None) -> Path:
    """Build libcust_opapi.so of every op of the project (the kernels are the cached builds of
    `build`; the package is the whole project's, as CANN's is, whichever specs `build` was
    given) and install it with the generated aclnn headers as the toolkit's
    vendors/customize/op_api (default: `opgen config --toolkit`); returns that directory
    (docs/cann.md, "aclnn drivers")."""
    from opgen.emit.cann_aclnn import ACLNN_DIR
    from opgen.emit.cann_naming import aclnn_header
    from opgen.emit.op_api import LIBRARY_SOURCE
    from opgen.opp_install import install_op_api as install
    from opgen.toolkit import OPP_DIR, toolkit_dir
    from opgen_runtime.errors import SimulatorError
    from opgen_runtime.metadef import load
    from opgen_runtime.opapi_library import OpApiLibraryError, build_library

    generated = _generated(config, [], sink)
    metadefs = [generated[n][0] for n in sorted(generated)]
    headers = [config.output_dir / ACLNN_DIR / aclnn_header(load(m).op_type) for m in metadefs]
    try:
        library = build_library(config.output_dir / LIBRARY_SOURCE, config.output_dir / ACLNN_DIR,
                                metadefs)
    except OpApiLibraryError as exc:
        raise BuildCommandError(str(exc)) from None
    except SimulatorError as exc:
        raise build_failure([exc], config.root) from None
    root = Path(toolkit) if toolkit is not None else toolkit_dir()
    if not root.is_dir():
        raise BuildCommandError(f"--toolkit {root}: no such directory")
    return install(library, headers, root / OPP_DIR)


def parse_shapes(texts: Sequence[str], inputs: Sequence[str]) -> dict[str, tuple[int, ...]]:
    """`--shape 4,1024` (every input) or `--shape x=4,1024 --shape y=1,1024`."""
    shapes: dict[str, tuple[int, ...]] = {}
    for text in texts:
        name, eq, dims = text.rpartition("=")
        try:
            shape = tuple(int(d) for d in dims.replace("x", ",").split(",") if d.strip())
        except ValueError:
            raise BuildCommandError(f"--shape '{text}': expected dims like 4,1024") from None
        if eq:
            if name not in inputs:
                raise BuildCommandError(f"--shape '{text}': no input '{name}' (inputs: "
                                        f"{', '.join(inputs)})")
            shapes[name] = shape
        else:
            shapes.update({n: shape for n in inputs if n not in shapes})
    return shapes


def profile(config: Config, op: str | None, shapes: Sequence[str], dtype: str | None,
            attrs: Sequence[str], sink: DiagnosticSink, *, script: str | None = None,
            script_args: Sequence[str] = (), as_json: bool = False, svg: str | None = None,
            lane_threshold: float = 0.5) -> str:
    """Runs OP once on random inputs, or a Python script (its launches in order), inside a
    profile session; returns the counters and the advice (text, or JSON with ``as_json``) and
    writes the per-block timeline to ``svg``. OP runs once before, unprofiled (see below)."""
    from opgen_runtime.profile import profile_session

    if op is None and script is None:
        raise BuildCommandError("give an op or --script FILE")
    metadef = generated_metadefs(config, [], sink, [op])[op] if op is not None else None
    header = printed = ""
    call: Callable[[], object] | None = None
    with _reported(config, op or ""):
        if metadef is not None and op is not None:
            # run once unprofiled: the profiled launch is a steady one, without the first
            # launch's one-time costs (the fresh output pages' faults, lazy set-up), which a
            # device allocation made up front does not have either
            header, call = _prepare(op, metadef, shapes, dtype, attrs)
            call()
    with profile_session(timeline=svg is not None, lane_threshold=lane_threshold) as session, \
            _reported(config, op or script or ""):
        if call is not None:
            call()
        if script is not None:
            printed = _run_script(script, script_args)
    if not session.launches:
        raise BuildCommandError(f"{op or script}: no simulator launch to profile")
    if svg is not None:
        Path(svg).write_text(session.svg())
    if as_json:
        import json

        data = {"op": op, "inputs": header.strip() or None, "script": script,
                "script_output": printed or None, **session.as_dict()}
        if svg is not None:
            data["svg"] = svg
        return json.dumps(data, indent=2)
    text = header + (f"{script}: {printed}" if printed else "") + session.report()
    if svg is not None:
        text += f"timeline: {svg} (one row per block)\n"
    return text.rstrip("\n")


@contextlib.contextmanager
def _reported(config: Config, label: str) -> Iterator[None]:
    """A build failure or a simulator/registry error inside, as the CLI reports it."""
    from opgen_runtime import registry
    from opgen_runtime.errors import BuildError, SimulatorError

    try:
        yield
    except BuildError as exc:
        raise build_failure([exc], config.root) from None
    except (SimulatorError, registry.RegistryError) as exc:
        raise BuildCommandError(f"{label}: {exc}") from None


def _run_script(script: str, args: Sequence[str]) -> str:
    """Runs a Python script as __main__ (sys.argv = [script, *args]); returns its output."""
    import io
    import runpy
    import sys

    path = Path(script)
    if not path.is_file():
        raise BuildCommandError(f"{script}: no such script")
    argv = sys.argv
    sys.argv = [str(path), *args]
    sys.path.insert(0, str(path.resolve().parent))
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out):
            runpy.run_path(str(path), run_name="__main__")
    except SystemExit as exc:
        if exc.code not in (None, 0):
            raise BuildCommandError(f"{script} exited with {exc.code}") from None
    finally:
        sys.argv = argv
        sys.path.remove(str(path.resolve().parent))
    return out.getvalue()


def _prepare(op: str, metadef: Path, shapes: Sequence[str], dtype: str | None,
             attrs: Sequence[str]) -> tuple[str, Callable[[], object]]:
    """OP registered, with random inputs of the given shapes: the header naming them, and the
    call of the op on them."""
    import numpy as np

    from opgen_runtime import registry
    from opgen_runtime.metadef import load
    from opgen_runtime.oplib import build_operator_library

    opdef = load(metadef)
    library = build_operator_library(opdef)
    reg = registry.Registry()
    reg.load_operator_library(library)
    reg.register_operator(op)
    reg.register_operator_model(op, metadef, opdef.kernel_entry)
    names = [t.name for t in opdef.inputs]
    given = parse_shapes(shapes or ["1024"], names)
    column = 0
    if dtype is not None:
        matches = [i for i, c in enumerate(opdef.combinations) if c[0] == dtype]
        if not matches:
            raise BuildCommandError(f"{op}: no dtype combination with {names[0]}={dtype}; "
                                    f"supported: {sorted({c[0] for c in opdef.combinations})}")
        column = matches[0]
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal(given.get(t.name, (1024,))).astype(opdef.combinations[column][i])
              if not t.optional or t.name in given else None
              for i, t in enumerate(opdef.inputs)]
    attr_values: dict[str, Any] = {}
    for text in attrs:
        key, _, value = text.partition("=")
        attr_values[key] = _attr_value(value)
    for t in opdef.outputs:
        if t.dtype_from and t.dtype_from not in attr_values:
            attr_values[t.dtype_from] = opdef.combinations[column][len(opdef.inputs)]
    header = ", ".join(f"{t.name}{list(a.shape)}:{a.dtype}"
                       for t, a in zip(opdef.inputs, arrays, strict=True) if a is not None)
    return f"{op}({header})\n", lambda: reg.call(op, *arrays, **attr_values)


def _attr_value(text: str) -> Any:
    import json

    try:
        return json.loads(text)
    except ValueError:
        return text
