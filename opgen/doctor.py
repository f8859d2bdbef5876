"""`opgen doctor`: the environment and, per op, the seed's debugging checklist.

Each finding is one line: a status (ok / warn / FAIL), what was checked, and what to do.
Exit code 0 when nothing failed, 1 otherwise.
"""

from __future__ import annotations

import importlib
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from opgen.diagnostics import DiagnosticSink, Severity
from opgen.project import Config

TORCH_PIN = "2.13.0"
TF_PIN = "2.21.0"


@dataclass(frozen=True)
class Finding:
    status: str  # ok | warn | FAIL
    subject: str
    detail: str

    def __str__(self) -> str:
        return f"[{self.status:>4}] {self.subject}: {self.detail}"


def _ok(subject: str, detail: str) -> Finding:
    return Finding("ok", subject, detail)


def _warn(subject: str, detail: str) -> Finding:
    return Finding("warn", subject, detail)


def _fail(subject: str, detail: str) -> Finding:
    return Finding("FAIL", subject, detail)


def _writable(path: Path) -> bool:
    try:
        path.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=path):
            return True
    except OSError:
        return False


def check_environment() -> list[Finding]:
    out: list[Finding] = []
    v = sys.version_info
    out.append(_ok("python", f"{v.major}.{v.minor}.{v.micro}") if v >= (3, 11) else
               _fail("python", f"{v.major}.{v.minor} is too old; opgen needs 3.11+"))
    cxx = os.environ.get("CXX", "g++")
    found = shutil.which(cxx)
    if found is None:
        out.append(_fail("c++ compiler", f"'{cxx}' not found: install g++ (apt-get install g++) "
                         "or set CXX; kernels cannot be built without it"))
    else:
        version = subprocess.run([found, "--version"], capture_output=True, text=True,
                                 check=False).stdout.splitlines()[:1]
        out.append(_ok("c++ compiler", f"{found} ({version[0] if version else '?'})"))
    try:
        import clang.cindex as ci

        ci.Index.create()
        out.append(_ok("libclang", f"loaded from {Path(ci.__file__).parent}"))
    except Exception as exc:  # the library itself failing to load is what we report
        out.append(_fail("libclang", f"cannot load ({exc}); reinstall with "
                         "`pip install libclang==18.1.1`"))
    if found is not None:
        out.append(_prebuilt())
    out.extend(_framework("torch", TORCH_PIN, "torch", _torch_flags))
    out.extend(_framework("tensorflow", TF_PIN, "tf", _tf_flags))
    from opgen_runtime import oppkg
    from opgen_runtime.build import cache_dir

    for subject, path, env in (("kernel cache", cache_dir(), "OPGEN_CACHE_DIR"),
                               ("op package dir", oppkg.opp_dir(), "OPGEN_OPP_PATH")):
        out.append(_ok(subject, f"{path} is writable") if _writable(path) else
                   _fail(subject, f"{path} is not writable; set {env} to a writable folder"))
    return out


def _prebuilt() -> Finding:
    """Whether the simulator's shared parts are built (the install's prebuilt layer or the
    cache): a first build compiles the missing ones before the ops' own code."""
    from opgen_runtime.build import shared_parts_missing
    from opgen_runtime.cachedir import prebuilt_root

    layer = prebuilt_root()
    missing = shared_parts_missing()
    if not missing:
        where = f"in {layer}" if layer is not None else "in the kernel cache"
        return _ok("prebuilt parts", f"the simulator runtime, API instances and precompiled "
                   f"header are built ({where} or the kernel cache)")
    return _warn("prebuilt parts", f"not built yet: {', '.join(missing)}; the first kernel build "
                 "compiles them (tens of seconds): run `opgen prebuild` once (`make install` "
                 "does)")


def _torch_flags() -> str:
    from torch.utils import cpp_extension

    return f"include {cpp_extension.include_paths()[0]}"


def _tf_flags() -> str:
    import tensorflow as tf

    flags = tf.sysconfig.get_compile_flags()
    include = next((f[2:] for f in flags if f.startswith("-I")), "")
    if not Path(include, "tensorflow", "core", "framework", "op.h").is_file():
        raise RuntimeError(f"TensorFlow headers missing under {include}")
    return " ".join(flags + tf.sysconfig.get_link_flags())


def _framework(module: str, pin: str, extra: str, flags: Callable[[], str]) -> list[Finding]:
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")  # TensorFlow's start-up log is noise here
    try:
        mod = importlib.import_module(module)
    except ImportError:
        return [_warn(module, f"not installed; its ops are unavailable (pip install "
                      f"'opgen[{extra}]')")]
    version = str(getattr(mod, "__version__", "?")).split("+")[0]
    findings = [_ok(module, version) if version == pin else
                _warn(module, f"{version} installed; opgen is tested with {pin}")]
    try:
        findings.append(_ok(f"{module} build flags", flags()))
    except Exception as exc:  # broken installs raise all kinds of errors
        findings.append(_fail(f"{module} build flags", f"{exc}; reinstall {module}"))
    return findings


def check_ops(config: Config, specs: Sequence[Path]) -> list[Finding]:
    """The seed's checklist per op: metadef valid, kernel matches, library built with an
    absolute path, gradient registered where the spec has backward, op package installed."""
    from opgen import gen

    out: list[Finding] = []
    sink = DiagnosticSink()
    result = gen.run(config, list(specs), sink, check=True)
    for d in sink.items:
        if d.severity is Severity.ERROR:
            out.append(_fail("spec/kernel", f"{d} (fix it, then run `opgen generate`)"))
    if result is None:
        return out
    if result.plan.changed:
        out.append(_warn("generated/", f"{len(result.plan.written)} file(s) stale: run "
                         "`opgen generate`"))
    from opgen_runtime import oppkg, registry
    from opgen_runtime.metadef import MetadefError, load
    from opgen_runtime.oplib import build_operator_library, open_library

    with tempfile.TemporaryDirectory() as scratch:
        saved = os.environ.get("OPGEN_OPP_PATH")
        installed_dir = oppkg.opp_dir()
        for op in sorted(result.ops, key=lambda o: o.op_name):
            name = op.op_name
            out.append(_ok(name, f"spec {op.spec_path} valid, kernel signature matches"))
            metadef = config.output_dir / "metadef" / f"{name}.json"
            try:
                opdef = load(metadef)
            except MetadefError as exc:
                out.append(_fail(name, f"metadef: {exc}"))
                continue
            try:
                lib = build_operator_library(opdef)
                open_library(lib)
            except Exception as exc:  # build and load failures carry their own message
                out.append(_fail(name, f"kernel library: {exc}"))
                continue
            out.append(_ok(name, f"library built, absolute path {lib}") if lib.is_absolute()
                       else _fail(name, f"library path {lib} is not absolute"))
            os.environ["OPGEN_OPP_PATH"] = scratch
            try:
                reg = registry.Registry()
                reg.load_operator_library(lib)
                reg.register_operator(name)
                reg.register_operator_model(name, metadef, opdef.kernel_entry)
                if opdef.backward and "op" not in opdef.backward:
                    reg.register_operator_gradient(name, metadef)
                    out.append(_ok(name, "registers in order; gradient registered (backward:)"))
                elif opdef.backward:
                    out.append(_ok(name, f"registers in order; gradient op "
                                         f"'{opdef.backward['op']}'"))
                else:
                    out.append(_warn(name, "no gradient: the spec has no `backward:`, so the op "
                                     "cannot be trained through; add backward: to the spec"))
            except registry.RegistryError as exc:
                out.append(_fail(name, f"registration: {exc}"))
            finally:
                if saved is None:
                    os.environ.pop("OPGEN_OPP_PATH", None)
                else:
                    os.environ["OPGEN_OPP_PATH"] = saved
            package = oppkg.read_package(installed_dir / name)
            if package is None:
                out.append(_warn(name, f"not installed in {installed_dir}: other processes "
                                 f"cannot find it until one registers it (import "
                                 f"{config.package}.registration.{name}, or call "
                                 f"register_all())"))
            elif package.get("library") != lib.name:
                out.append(_warn(name, f"the installed op package in {installed_dir} is from an "
                                 "older build: re-register it (import its registration module)"))
            else:
                out.append(_ok(name, f"op package installed in {installed_dir}"))
    return out


def run(config: Config, specs: Sequence[Path], *, environment: bool = True,
        ops: bool = True) -> tuple[list[Finding], int]:
    findings: list[Finding] = []
    if environment:
        findings.extend(check_environment())
    if ops:
        findings.extend(check_ops(config, specs))
    failed = any(f.status == "FAIL" for f in findings)
    return findings, 1 if failed else 0
