"""The `opgen` command line. Exit codes: 0 ok, 1 check failed, 2 bad input or usage."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path

from opgen import __version__
from opgen.diagnostics import (
    Diagnostic,
    DiagnosticError,
    DiagnosticSink,
    OpgenError,
    Severity,
    SourceLoc,
    escape_text,
    sorted_diagnostics,
)

EXIT_OK, EXIT_CHECK_FAILED, EXIT_BAD_INPUT = 0, 1, 2


def _print_diagnostics(sink: DiagnosticSink) -> None:
    for d in sorted_diagnostics(sink.items):
        print(d, file=sys.stderr)


class _StrictSink(DiagnosticSink):
    """--strict: every warning is reported, and counted, as an error."""

    def warning(self, loc: SourceLoc, message: str) -> None:
        self.error(loc, message)

    def extend(self, diagnostics: Iterable[Diagnostic]) -> None:
        super().extend(Diagnostic(d.loc, d.message, Severity.ERROR)
                       if d.severity is Severity.WARNING else d for d in diagnostics)


def _sink(args: argparse.Namespace) -> DiagnosticSink:
    return _StrictSink() if getattr(args, "strict", False) else DiagnosticSink()


def _config(args: argparse.Namespace):  # type: ignore[no-untyped-def]
    from opgen.project import load_config

    return load_config(spec_dir=getattr(args, "spec_dir", None),
                       output_dir=getattr(args, "output_dir", None),
                       package=getattr(args, "package", None))


def cmd_validate(args: argparse.Namespace) -> int:
    from opgen.project import Config, load_specs

    sink = _sink(args)
    paths = [Path(p) for p in args.paths]
    cfg = Config(Path.cwd(), Path.cwd(), Path.cwd(), "", "")
    specs = load_specs(paths, cfg, sink, as_typed=True)
    _print_diagnostics(sink)
    if sink.has_errors:
        return EXIT_BAD_INPUT
    if not args.quiet:
        for spec in specs:
            print(f"{spec.spec_path}: ok: {spec.op_name} ({spec.op_type}), "
                  f"{len(spec.inputs)} in, {len(spec.outputs)} out, {len(spec.attrs)} attrs, "
                  f"{spec.num_combinations} dtype combination"
                  f"{'s' if spec.num_combinations != 1 else ''}")
    return EXIT_OK


def cmd_generate(args: argparse.Namespace) -> int:
    from opgen import gen

    cfg = _config(args)
    sink = _sink(args)
    result = gen.run(cfg, [Path(p) for p in args.specs], sink,
                     check=args.check or args.list_outputs, force=args.force)
    _print_diagnostics(sink)
    if result is None:
        return EXIT_BAD_INPUT
    out = cfg.display(cfg.output_dir)
    if args.list_outputs:
        for rel in result.manager.outputs:
            print(f"{out}/{rel}")
        return EXIT_OK
    plan = result.plan
    if args.check:
        if plan.changed:
            sys.stdout.writelines(plan.diff)
            for rel in plan.edited:
                print(result.manager.edited_error(rel), file=sys.stderr)
            print(f"opgen: {out}/ is stale: {len(plan.written)} file(s) would change, "
                  f"{len(plan.removed)} would be removed; run `opgen generate`", file=sys.stderr)
            return EXIT_CHECK_FAILED
        return EXIT_OK
    for rel in plan.edited:  # only with --force
        print(f"opgen: overwrote {out}/{rel}, which was edited by hand", file=sys.stderr)
    if not args.quiet:
        print(f"opgen: {len(result.ops)} op(s), {len(plan.written)} file(s) written, "
              f"{len(plan.removed)} removed, {len(plan.unchanged)} unchanged in {out}/")
    return EXIT_OK


def cmd_new(args: argparse.Namespace) -> int:
    from opgen.scaffold import default_test_dir, parse_attr_flag, scaffold

    cfg = _config(args)
    written = scaffold(
        cfg, args.name,
        inputs=_split(args.inputs), outputs=_split(args.outputs), dtypes=_split(args.dtypes),
        attrs=[parse_attr_flag(a) for a in args.attr],
        test_dir=Path(args.test_dir) if args.test_dir else default_test_dir(cfg),
    )
    for path in written:
        print(f"created {cfg.display(path)}")
    print(f"next: write the kernel's Compute(), set `reference:` in {cfg.display(written[0])}, "
          "then run `opgen generate`")
    return EXIT_OK


def cmd_skeleton(args: argparse.Namespace) -> int:
    from opgen.api import load_spec
    from opgen.emit.skeleton import is_untouched, skeleton
    from opgen.writer import atomic_write

    cfg = _config(args)
    path = Path(args.op)
    if not path.suffix:
        found = [p for p in (cfg.spec_dir / f"{args.op}.yaml", cfg.spec_dir / f"{args.op}.json")
                 if p.exists()]
        if not found:
            print(f"opgen: error: no spec {cfg.display(cfg.spec_dir / args.op)}.yaml or .json",
                  file=sys.stderr)
            return EXIT_BAD_INPUT
        path = found[0]
    spec = load_spec(path)
    text = skeleton(spec)
    if not args.write:
        sys.stdout.write(text)
        return EXIT_OK
    kernel = path.parent / spec.kernel.source
    old = kernel.read_text("utf-8") if kernel.exists() else ""
    if old == text:
        print(f"{cfg.display(kernel)}: up to date")
        return EXIT_OK
    if old.strip() and not is_untouched(old):
        print(f"{cfg.display(kernel)}: error: edited since opgen wrote it (its skeleton hash no "
              f"longer matches); not overwriting. Print the new skeleton with `opgen skeleton "
              f"{args.op}` and merge by hand", file=sys.stderr)
        return EXIT_CHECK_FAILED
    atomic_write(kernel, text)
    print(f"wrote {cfg.display(kernel)}")
    return EXIT_OK


def cmd_build(args: argparse.Namespace) -> int:
    from opgen.build_cmd import build, install_op_api

    cfg = _config(args)
    sink = DiagnosticSink()
    try:
        libs = build(cfg, [Path(p) for p in args.specs], sink)
    finally:
        _print_diagnostics(sink)
    for op, path in sorted(libs.items()):
        print(f"{op}: {path}")
    if not args.no_op_api:
        sink = DiagnosticSink()  # generation is current: its warnings were printed above
        try:
            op_api = install_op_api(cfg, sink, Path(args.toolkit) if args.toolkit else None)
        finally:
            if sink.has_errors:
                _print_diagnostics(sink)
        print(f"op_api (libcust_opapi.so, aclnn headers): {op_api}")
    return EXIT_OK


def cmd_prebuild(args: argparse.Namespace) -> int:
    from opgen.emit.common import precompile_templates
    from opgen_runtime.errors import BuildError
    from opgen_runtime.prebuild import building_into, prebuild, target_root

    root = None
    try:
        root = target_root(Path(args.dir) if args.dir else None)
        results = prebuild(root, frameworks=not args.no_frameworks)
        with building_into(root):  # the generator's templates, compiled (`opgen generate`)
            results.append((f"compiled templates ({precompile_templates()})", "ok"))
    except BuildError as exc:
        print(f"opgen: error: {escape_text(str(exc))}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except OSError as exc:  # the layer's folder cannot be written (a system install, say)
        print(f"opgen: error: cannot write the prebuilt layer {root}: {exc.strerror or exc}; "
              "pass --dir DIR or set OPGEN_PREBUILT_DIR to a folder you can write",
              file=sys.stderr)
        return EXIT_BAD_INPUT
    for name, status in results:
        print(f"{name}: {status}")
    # the simulator's parts must build; a framework's glue header is an optional speed-up
    simulator = [status for name, status in results
                 if not name.startswith(("PyTorch", "TensorFlow"))]
    return EXIT_OK if all(status == "ok" for status in simulator) else EXIT_BAD_INPUT


def cmd_profile(args: argparse.Namespace) -> int:
    from opgen.build_cmd import profile

    if args.exec_cmd is not None:
        if not args.exec_cmd:
            raise OpgenError("opgen profile --exec: name the program to run, e.g. "
                             "opgen profile --exec ./demo")
        if args.op or args.script:
            raise OpgenError("opgen profile: --exec runs a program; it takes no op or --script")
        code, text = _profiled(args.exec_cmd, args.exec_cmd[0], as_json=args.json, svg=args.svg,
                               lane_threshold=args.lane_threshold)
        sys.stdout.flush()
        print(text, end="")
        return code
    cfg = _config(args)
    sink = DiagnosticSink()
    try:
        print(profile(cfg, args.op, args.shape, args.dtype, args.attr, sink,
                      script=args.script, script_args=args.script_args, as_json=args.json,
                      svg=args.svg, lane_threshold=args.lane_threshold))
    finally:
        _print_diagnostics(sink)
    return EXIT_OK


def cmd_doctor(args: argparse.Namespace) -> int:
    from opgen import doctor

    findings, code = doctor.run(_config(args), [Path(p) for p in args.specs],
                                environment=not args.ops_only, ops=not args.env_only)
    for finding in findings:
        print(finding)
    failed = sum(f.status == "FAIL" for f in findings)
    warned = sum(f.status == "warn" for f in findings)
    print(f"opgen doctor: {failed} problem(s), {warned} warning(s)")
    return code


def cmd_import_msopgen(args: argparse.Namespace) -> int:
    from opgen.load import load_file
    from opgen.msopgen import convert, is_msopgen, to_yaml
    from opgen.validate import build_spec
    from opgen.writer import atomic_write

    if Path(args.file).is_dir():
        return _import_msopgen_project(args)
    if args.include or args.host_source:
        print(f"{args.file}: error: --include and --host-source apply to a project directory "
              "(op_host/, op_kernel/), not to an op description file", file=sys.stderr)
        return EXIT_BAD_INPUT
    sink = DiagnosticSink()
    doc = load_file(args.file)
    if not is_msopgen(doc.data):
        print(f"{args.file}: error: not an msopgen op description (expected a list of "
              "objects with an \"op\" key)", file=sys.stderr)
        return EXIT_BAD_INPUT
    docs = convert(doc, sink)
    for d in docs:
        build_spec(d, sink, spec_dir=str(Path(args.file).parent))
    _print_diagnostics(sink)
    if sink.has_errors:
        return EXIT_BAD_INPUT
    out_dir = Path(args.output) if args.output else Path(args.file).parent
    targets = [(out_dir / f"{d.data['op_name']}.yaml", d) for d in docs]
    for path, _ in targets:
        if path.exists():
            print(f"{path}: error: already exists; import-msopgen never overwrites a file",
                  file=sys.stderr)
            return EXIT_BAD_INPUT
    for path, d in targets:
        atomic_write(path, f"# Imported from {Path(args.file).name} by opgen import-msopgen.\n"
                     + to_yaml(d))
        print(f"created {path}")
    return EXIT_OK


def _import_msopgen_project(args: argparse.Namespace) -> int:
    """`opgen import-msopgen DIR`: specs for the ops a project's op_host defines, pointing at
    its op_kernel/ and op_host/ files in place."""
    from opgen.load import Document
    from opgen.msopgen import convert, to_yaml
    from opgen.msopgen_project import (
        ProjectError,
        kernel_section,
        kernel_section_path,
        mark_ref_outputs,
        read_project,
        stage_kernel_tree,
        staged_kernels,
    )
    from opgen.validate import build_spec
    from opgen.writer import atomic_write

    root = Path(args.file)
    out_dir = Path(args.output) if args.output else _config(args).spec_dir
    try:
        ops = read_project(root, [Path(d) for d in args.include or ()],
                           [Path(f) for f in args.host_source or ()])
    except ProjectError as exc:
        print(f"opgen: error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    sink = DiagnosticSink()
    out_dir.mkdir(parents=True, exist_ok=True)  # the relative paths are checked through it
    docs = convert(Document(str(root / "op_host"), [op.description for op in ops]), sink)
    for op, d in zip(ops, docs, strict=True):
        d.data["kernel"] = kernel_section(op, out_dir)
        mark_ref_outputs(d.data)
        if op.kernel.parent.name == "op_kernel" and op.kernel.stem != d.data.get("op_name"):
            # a kernel named after the op's folder (CANN's ops libraries): the op and its
            # entry take the folder's name, as CANN's build does (apply_adam_w_v2, not
            # apply_adam_wv2)
            d.data["op_name"] = op.kernel.stem
        others = staged_kernels(root)
        if others:  # "../<other op>/x.h": CANN's staged kernel tree, beside the spec
            try:
                base = stage_kernel_tree(out_dir / f"{d.data['op_name']}.kernels",
                                         root / "op_kernel", others)
            except (ProjectError, OSError) as exc:
                print(f"opgen: error: {exc}", file=sys.stderr)
                return EXIT_BAD_INPUT
            section = d.data["kernel"]
            section["include_dirs"] = [*section.get("include_dirs", ()), *(
                kernel_section_path(p, out_dir) for p in (base, *others.values()))]
        build_spec(d, sink, spec_dir=str(out_dir))
    _print_diagnostics(sink)
    if sink.has_errors:
        return EXIT_BAD_INPUT
    targets = [(out_dir / f"{d.data['op_name']}.yaml", d) for d in docs]
    for path, _ in targets:
        if path.exists():
            print(f"{path}: error: already exists; import-msopgen never overwrites a file",
                  file=sys.stderr)
            return EXIT_BAD_INPUT
    for path, d in targets:
        header = (f"# Imported from the msopgen project {root.resolve().name!r} by opgen "
                  "import-msopgen: its op_host tiles and infers, its op_kernel computes.\n")
        atomic_write(path, header + to_yaml(d))
        print(f"created {path}")
    return EXIT_OK


def cmd_config(args: argparse.Namespace) -> int:
    from opgen.config_flags import ConfigError, render

    if not (args.cflags or args.libs or args.includedir or args.toolkit):
        print("opgen config: error: give --cflags, --libs and/or --includedir (or --toolkit)",
              file=sys.stderr)
        return EXIT_BAD_INPUT
    try:
        if args.toolkit:
            from opgen.toolkit import toolkit_dir

            if args.cflags or args.libs or args.includedir:
                print("opgen config: error: --toolkit prints a directory; give it alone",
                      file=sys.stderr)
                return EXIT_BAD_INPUT
            print(toolkit_dir())
            return EXIT_OK
        print(render(want_cflags=args.cflags, want_libs=args.libs, want_includedir=args.includedir))
    except ConfigError as exc:
        print(f"opgen config: error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    return EXIT_OK


def cmd_run(args: argparse.Namespace) -> int:
    from opgen.asc_run import build_program, run

    extra = [f"-I{d}" for d in args.include] + [f"-D{d}" for d in args.define]
    if not args.profile and args.profile_svg is None:
        return run(Path(args.file), args.program_args, extra)
    asc = Path(args.file)
    if not asc.is_file():
        raise OpgenError(f"{asc}: no such file")
    exe = build_program(asc, extra)
    code, text = _profiled([str(exe), *args.program_args], asc.name, as_json=False,
                           svg=args.profile_svg, lane_threshold=args.lane_threshold)
    sys.stdout.flush()
    print(text, file=sys.stderr, end="")
    return code


def _profiled(cmd: Sequence[str], shown: str, *, as_json: bool, svg: str | None,
              lane_threshold: float) -> tuple[int, str]:
    """Runs a program with every launch profiled: its exit status and the report."""
    from opgen.program_profile import ProfileRecordError, exit_note, profile_program
    from opgen.writer import atomic_write

    try:
        code, session = profile_program(cmd, timeline=svg is not None,
                                        lane_threshold=lane_threshold)
    except ProfileRecordError as exc:
        raise OpgenError(f"profile of {shown}: {exc}") from None
    if svg is not None:
        atomic_write(Path(svg), session.svg())
    if as_json:
        return code, session.json() + "\n"
    n = len(session.launches)
    head = f"opgen profile: {exit_note(shown, code)}; {n} kernel launch{'es' if n != 1 else ''}"
    if n == 0:
        return code, (head + " (a program profiles its launches when it is built against "
                      "the simulator: opgen run, opgen cxx, or the toolkit of "
                      "`opgen config --toolkit`)\n")
    return code, head + "\n" + session.report()


def cmd_cxx(argv: Sequence[str]) -> int:
    from opgen.asc_run import cxx

    if not argv:
        raise OpgenError("usage: opgen cxx [g++ arguments] FILE.asc ... [-o PROGRAM]")
    return cxx(argv)


def cmd_rtc_compile(argv: Sequence[str]) -> int:
    """The compiler a program's aclrtcCompileProg runs (opgen/rtc.py); not a user command."""
    from opgen.rtc import compile_dir

    if not argv or not Path(argv[0]).is_dir():
        raise OpgenError("usage: opgen rtc-compile DIR [OPTION...] (run by aclrtcCompileProg)")
    return compile_dir(Path(argv[0]), argv[1:])


def cmd_atc(argv: Sequence[str]) -> int:
    """The toolkit's atc: --singleop=FILE --output=DIR (opgen/atc.py); not a user command."""
    from opgen.atc import main as atc_main

    return atc_main(argv)


def cmd_npu_op(argv: Sequence[str]) -> int:
    """The steps behind CANN 9's op-package CMake functions (opgen/npu_op_package.py), run by
    the toolkit's find_package(ASC); not a user command."""
    from opgen import npu_op_package

    parser = argparse.ArgumentParser(prog="opgen npu-op")
    sub = parser.add_subparsers(dest="step", required=True)
    p = sub.add_parser("codegen")
    p.add_argument("--package", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--include", action="append", default=[])
    p.add_argument("sources", nargs="+")
    p = sub.add_parser("build")
    p.add_argument("manifest")
    p = sub.add_parser("make-run")
    p.add_argument("staging")
    p.add_argument("run_file")
    p.add_argument("vendor")
    args = parser.parse_args(list(argv))
    if args.step == "make-run":
        run = npu_op_package.make_run(Path(args.staging), Path(args.run_file), args.vendor)
        print(f"opgen npu-op: wrote {run}")
    elif args.step == "codegen":
        ops = npu_op_package.codegen([Path(s) for s in args.sources], Path(args.out),
                                     args.package, [Path(d) for d in args.include])
        print(f"opgen npu-op: {args.package}: {', '.join(ops)} -> {args.out}")
    else:
        out = npu_op_package.build(Path(args.manifest))
        print(f"opgen npu-op: built {out}")
    return EXIT_OK


def _split(text: str) -> list[str]:
    return [p.strip() for p in text.split(",") if p.strip()]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="opgen",
        description="Operator specs + Ascend C kernels in; CANN registration, PyTorch and "
                    "TensorFlow ops, and simulator kernels out.",
    )
    parser.add_argument("--version", action="version", version=f"opgen {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    p = sub.add_parser("validate", help="check spec files; exit 0 when valid, 2 otherwise",
                       description="Validate operator specs (YAML, JSON or msopgen JSON). "
                       "Every error is printed as path:line:col: error: message.")
    p.add_argument("paths", nargs="+", metavar="PATH")
    p.add_argument("-q", "--quiet", action="store_true", help="print errors only")
    p.add_argument("--strict", action="store_true",
                   help="warnings are errors (exit 2), e.g. a backward that disagrees with "
                   "the derivative of the reference")
    p.set_defaults(func=cmd_validate)

    p = sub.add_parser("generate", help="emit generated/ from the specs",
                       description="Validate every spec and write the generated files "
                       "(configured by [tool.opgen] in pyproject.toml).")
    p.add_argument("specs", nargs="*", metavar="SPEC",
                   help="only these specs (default: every spec in spec_dir; then outputs of "
                        "removed ops are deleted too)")
    p.add_argument("--check", action="store_true",
                   help="write nothing; print a diff and exit 1 if the output is stale")
    p.add_argument("--list-outputs", action="store_true",
                   help="print the paths that would be written (for build-system dependencies)")
    p.add_argument("--strict", action="store_true",
                   help="warnings are errors: nothing is written and the exit code is 2")
    p.add_argument("--force", action="store_true",
                   help="overwrite (or remove) generated files that were edited by hand")
    p.add_argument("--spec-dir", help="override [tool.opgen] spec_dir")
    p.add_argument("--output-dir", help="override [tool.opgen] output_dir")
    p.add_argument("--package", help="override [tool.opgen] package (generated Python package)")
    p.add_argument("-q", "--quiet", action="store_true")
    p.set_defaults(func=cmd_generate)

    p = sub.add_parser("new", help="scaffold a spec, a kernel and a test for a new op",
                       description="Write specs/NAME.yaml, specs/NAME.cpp and "
                       "tests/ops/test_NAME.py. Never overwrites an existing file.")
    p.add_argument("name", help="snake_case op name")
    p.add_argument("--inputs", default="x", help="comma-separated input names (default: x)")
    p.add_argument("--outputs", default="y", help="comma-separated output names (default: y)")
    p.add_argument("--dtypes", default="float32,float16",
                   help="comma-separated dtypes, one combination each (default: float32,float16)")
    p.add_argument("--attr", action="append", default=[], metavar="NAME:TYPE[=DEFAULT]",
                   help="an attribute, e.g. alpha:float=1.0 (repeatable)")
    p.add_argument("--spec-dir", help="override [tool.opgen] spec_dir")
    p.add_argument("--test-dir", help="where the test goes (default: tests/ops)")
    p.set_defaults(func=cmd_new)

    p = sub.add_parser("skeleton", help="print (or --write) the kernel skeleton of a spec",
                       description="Print the Ascend C kernel skeleton for an existing spec. "
                       "With --write, replace the spec's kernel, but only while it is still an "
                       "unedited skeleton (tracked by the hash on its first line).")
    p.add_argument("op", metavar="OP", help="op name (a spec in spec_dir) or a spec path")
    p.add_argument("--write", action="store_true",
                   help="rewrite the kernel file if opgen wrote it and it is unedited")
    p.add_argument("--spec-dir", help="override [tool.opgen] spec_dir")
    p.set_defaults(func=cmd_skeleton)

    p = sub.add_parser("build", help="compile each op's kernel into lib<op>.so (the aoc step)",
                       description="Generate (if stale), then build the operator library of "
                       "every op: one simulator kernel per dtype combination, compiled in "
                       "parallel into a content-addressed cache. Prints op: library path. Then "
                       "builds the op package for aclnn drivers (libcust_opapi.so: every op's "
                       "aclnn API on the simulator) and installs it into the toolkit.")
    p.add_argument("specs", nargs="*", metavar="SPEC")
    p.add_argument("--spec-dir", help="override [tool.opgen] spec_dir")
    p.add_argument("--output-dir", help="override [tool.opgen] output_dir")
    p.add_argument("--toolkit", metavar="DIR",
                   help="install the op package (libcust_opapi.so and the aclnn headers) into "
                   "DIR/opp/vendors/customize/op_api (default: `opgen config --toolkit`)")
    p.add_argument("--no-op-api", action="store_true",
                   help="build the operator libraries only, no op package")
    p.set_defaults(func=cmd_build)

    p = sub.add_parser("prebuild", help="compile the simulator runtime and precompiled headers "
                       "once, at install",
                       description="Build the parts of every kernel build that depend on nothing "
                       "a user writes (the simulator runtime object, the raw-pointer scan, the "
                       "precompiled simulator header, the API instance objects, the compiled "
                       "templates and, for the frameworks installed, the PyTorch and TensorFlow "
                       "glue's precompiled header and support object) into the install's prebuilt "
                       "layer ($OPGEN_PREBUILT_DIR, default <prefix>/share/opgen/prebuilt), so "
                       "the first build of an op compiles only its own code. `make install` runs "
                       "it; up to date, it returns at once.")
    p.add_argument("--dir", help="build into DIR instead of the prebuilt layer")
    p.add_argument("--no-frameworks", action="store_true",
                   help="the simulator's parts only, not the framework glue headers")
    p.set_defaults(func=cmd_prebuild)

    p = sub.add_parser("profile", help="run an op once on the simulator and print its counters",
                       description="Build and run OP on random inputs (or run a script's "
                       "launches) and print the simulator profile: GM<->UB bytes, vector "
                       "instructions and repeats, lane utilisation, peak UB, time per block; "
                       "then the advice of docs/performance.md: vector APIs that leave lanes "
                       "idle, GM accesses off 32 bytes, launches to fuse.")
    p.add_argument("op", nargs="?", help="the op to run (optional with --script)")
    p.add_argument("--script", metavar="FILE",
                   help="run FILE (Python, as __main__) and profile every launch it makes, "
                   "in order: chains of launches through GM are reported for fusion")
    p.add_argument("--script-arg", action="append", default=[], dest="script_args",
                   metavar="ARG", help="an argument of --script (repeatable)")
    p.add_argument("--json", action="store_true", help="print the profile and advice as JSON")
    p.add_argument("--svg", metavar="FILE",
                   help="write a timeline of copy and vector phases, one row per block")
    p.add_argument("--lane-threshold", type=float, default=0.5, metavar="FRACTION",
                   help="report vector APIs using fewer lanes than this (default 0.5)")
    p.add_argument("--shape", action="append", default=[], metavar="[INPUT=]DIMS",
                   help="input shape, e.g. 4,1024 (all inputs) or x=4,1024 (repeatable)")
    p.add_argument("--dtype", help="dtype of the first input (picks the combination)")
    p.add_argument("--attr", action="append", default=[], metavar="NAME=VALUE")
    p.add_argument("--exec", nargs=argparse.REMAINDER, dest="exec_cmd", metavar="PROGRAM",
                   help="run PROGRAM [ARG...] (a program built against the simulator: a CMake "
                   "or run.sh build of a sample, a driver using ICPU_RUN_KF) and profile every "
                   "kernel launch it makes; the last option, it takes the rest of the line; "
                   "the exit status is the program's")
    p.set_defaults(func=cmd_profile)

    p = sub.add_parser("doctor", help="check the environment and each op's registration",
                       description="Check g++, libclang, PyTorch and TensorFlow (versions and "
                       "build flags), the cache and op package dirs, then per op the seed's "
                       "checklist: metadef valid, kernel signature matching, library built at "
                       "an absolute path, gradient registered where the spec has backward, op "
                       "package installed. Exit 1 when something fails.")
    p.add_argument("specs", nargs="*", metavar="SPEC")
    p.add_argument("--env-only", action="store_true", help="only the environment checks")
    p.add_argument("--ops-only", action="store_true", help="only the per-op checks")
    p.set_defaults(func=cmd_doctor)

    p = sub.add_parser("import-msopgen", help="convert an msopgen op description or project to "
                       "opgen YAML",
                       description="Write one opgen spec per op of an msopgen JSON file, or of "
                       "an msopgen project directory (op_host/, op_kernel/): there the ops are "
                       "read from the project's own OpDef, and each spec points at the project's "
                       "kernel and op_host in place, so its TilingFunc tiles the simulator's "
                       "launches.")
    p.add_argument("file", metavar="FILE|DIR")
    p.add_argument("-o", "--output", help="directory for the YAML files (default: beside FILE; "
                   "for a project DIR, the spec_dir of [tool.opgen])")
    p.add_argument("-I", "--include", action="append", metavar="DIR",
                   help="for a project DIR: an include directory of its op_host and kernel "
                   "(helper headers outside the project); written into each spec's "
                   "kernel.include_dirs. Repeatable")
    p.add_argument("--host-source", action="append", metavar="FILE",
                   help="for a project DIR: one more source to compile with its op_host (the "
                   "implementation of a helper library it calls); written into each spec's "
                   "kernel.op_host. Repeatable")
    p.set_defaults(func=cmd_import_msopgen)

    p = sub.add_parser("config", help="print flags to build kernels and CPU-debug drivers",
                       description="Print the g++/CMake flags that compile an Ascend C kernel and "
                       "a CANN CPU-debug driver (main.cpp with tikicpulib.h and ICPU_RUN_KF) "
                       "against the simulator, like pkg-config: "
                       "g++ $(opgen config --cflags) kernel.cpp main.cpp $(opgen config --libs)")
    p.add_argument("--cflags", "--cxxflags", dest="cflags", action="store_true",
                   help="compile flags: include dir, -std=c++17, -DASCENDC_CPU_DEBUG=1, -pthread")
    p.add_argument("--libs", action="store_true", help="link flags (-pthread; header-only)")
    p.add_argument("--includedir", action="store_true",
                   help="the directory holding kernel_operator.h and tikicpulib.h")
    p.add_argument("--toolkit", action="store_true",
                   help="a CANN-toolkit-shaped directory for the samples' run.sh -r cpu "
                        "(bin/setenv.bash, the tikicpulib CMake package): pass it as -i")
    p.set_defaults(func=cmd_config)

    p = sub.add_parser("run", help="compile and run a single-source .asc program",
                       description="Compile FILE.asc (host main, kernels and their "
                       "kernel<<<blocks, l2ctrl, stream>>>(args) launches) against the "
                       "simulator and run it in the current directory. Launches run on the "
                       "simulator when issued; compiler messages name FILE.asc's lines.")
    p.add_argument("file", metavar="FILE.asc")
    p.add_argument("program_args", nargs="*", metavar="ARG",
                   help="arguments for the program (after --)")
    p.add_argument("-I", dest="include", action="append", default=[], metavar="DIR",
                   help="an include directory (repeatable)")
    p.add_argument("-D", dest="define", action="append", default=[], metavar="NAME[=VALUE]",
                   help="a macro definition (repeatable)")
    p.add_argument("--profile", action="store_true",
                   help="profile every kernel launch and print, after the program's output "
                   "and on stderr, each launch's counters and the advice of `opgen profile`")
    p.add_argument("--profile-svg", metavar="FILE",
                   help="with the profile, write a timeline of each launch's blocks to FILE")
    p.add_argument("--lane-threshold", type=float, default=0.5, metavar="FRACTION",
                   help="with --profile, report vector APIs using fewer lanes than this")
    p.set_defaults(func=cmd_run)

    sub.add_parser("cxx", help="g++ with the simulator's flags; .asc sources get their "
                   "<<<>>> launches rewritten", usage="opgen cxx [g++ arguments] FILE.asc ... "
                   "[-o PROGRAM]",
                   description="Run g++ with the simulator's flags (opgen config --cflags "
                   "--libs); each FILE.asc is compiled with its <<<>>> launches rewritten into "
                   "simulator launches (see opgen run). --npu-build first: compile as CANN's NPU "
                   "build does (no ASCENDC_CPU_DEBUG; launches of every source rewritten).")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["cxx"] and argv[1:2] not in (["-h"], ["--help"]):  # the rest is g++'s
        args = argparse.Namespace(func=lambda _: cmd_cxx(argv[1:]))
    elif argv[:1] == ["rtc-compile"]:  # aclrtcCompileProg's: DIR, then the program's options
        args = argparse.Namespace(func=lambda _: cmd_rtc_compile(argv[1:]))
    elif argv[:1] == ["npu-op"]:  # the op-package CMake functions' steps
        args = argparse.Namespace(func=lambda _: cmd_npu_op(argv[1:]))
    elif argv[:1] == ["atc"]:  # the toolkit's atc (single-op models)
        args = argparse.Namespace(func=lambda _: cmd_atc(argv[1:]))
    else:
        args = build_parser().parse_args(argv)
    if args.func is not cmd_generate:  # generate builds nothing (and starts faster without)
        # progress of slow steps (kernel and library builds) from the runtime, on stderr
        # (OPGEN_QUIET=1 silences it)
        from opgen_runtime import progress

        progress.show_on_stderr()
    try:
        code: int = args.func(args)
    except DiagnosticError as exc:
        for d in exc.diagnostics:
            print(d, file=sys.stderr)
        return EXIT_BAD_INPUT
    except OpgenError as exc:  # control characters escaped; a multi-line report stays one
        message = "\n".join(escape_text(line) for line in str(exc).split("\n"))
        print(message if ": error: " in message else f"opgen: error: {message}", file=sys.stderr)
        return EXIT_BAD_INPUT
    return code


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
