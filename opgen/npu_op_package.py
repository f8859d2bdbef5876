"""CANN 9's op-package CMake functions on the simulator (`opgen npu-op`, run by the toolkit's
find_package(ASC); the functions are opgen/data/npu_op.cmake).

A project written for CANN 9 builds its operators with `npu_op_package`, `npu_op_code_gen`,
`npu_op_library`, `npu_op_kernel_sources`, `npu_op_kernel_library` and `npu_op_package_add`
instead of msopgen's build.sh. Two steps serve them:

- `opgen npu-op codegen` (configure time, where CANN runs its op_build): compiles the op_host
  sources, reads each OpDef (OP_ADD) and writes into OUT_DIR what CANN's code generation
  writes there and the project's CMake files glob: aclnn_<op>.h with the op's aclnn API,
  aclnn_<op>.cpp, op_proto.h and op_proto.cc (the REG_OP protos).
- `opgen npu-op build MANIFEST` (build time): the ops as opgen specs whose kernels and op_host
  are the project's files in place (as `opgen import-msopgen`), each kernel built per dtype
  column, and the op package's two objects (the aclnn functions, the embedded kernels) copied to
  fixed names in the manifest's work directory, with the aclnn headers, for CMake to archive
  (TYPE STATIC), link (TYPE SHARED) or install (TYPE RUN).
"""

from __future__ import annotations

import filecmp
import os
import shutil
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from opgen.diagnostics import DiagnosticError, DiagnosticSink, OpgenError
from opgen.msopgen_project import ProjectError, kernel_candidates, registered_ops
from opgen.naming import snake_from_camel

PACKAGE_TYPES = ("RUN", "STATIC", "SHARED")
OPS_API_OBJECT, KERNELS_OBJECT = "cust_opapi.o", "kernels.o"
LIBRARY_NAME = "libcust_opapi.so"


class NpuOpError(OpgenError):
    """A CANN 9 op-package project that cannot be generated or built."""


@dataclass
class Manifest:
    """What the CMake functions collected for one package (written by npu_op.cmake)."""

    path: Path
    package: str = ""
    type: str = ""
    vendor: str = ""
    workdir: Path = Path()
    hosts: list[Path] = field(default_factory=list)
    includes: list[Path] = field(default_factory=list)
    kernels: dict[str, Path] = field(default_factory=dict)  # op type -> kernel file
    kernel_dirs: list[Path] = field(default_factory=list)  # npu_op_kernel_sources without OP_TYPE


def read_manifest(path: Path) -> Manifest:
    """`key=value` lines; a kernel is `kernel=OpType=path`."""
    m = Manifest(path)
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise NpuOpError(f"{path}: cannot read the package manifest ({exc.strerror})") from None
    for n, line in enumerate(lines, 1):
        key, eq, value = line.partition("=")
        if not line.strip():
            continue
        if not eq:
            raise NpuOpError(f"{path}:{n}: expected key=value")
        if key in ("package", "type", "vendor"):
            setattr(m, key, value)
        elif key == "workdir":
            m.workdir = Path(value)
        elif key == "host":
            m.hosts.append(Path(value))
        elif key == "include":
            m.includes.append(Path(value))
        elif key == "kernel":
            op_type, _, file = value.partition("=")
            m.kernels[op_type] = Path(file)
        elif key == "kernel_dir":
            m.kernel_dirs.append(Path(value))
        else:
            raise NpuOpError(f"{path}:{n}: unknown key '{key}'")
    if m.type not in PACKAGE_TYPES:
        raise NpuOpError(f"{path}: package type '{m.type}' is not one of "
                         f"{', '.join(PACKAGE_TYPES)}")
    if not m.hosts:
        raise NpuOpError(f"package {m.package}: no op_host sources; give them to "
                         "npu_op_code_gen(SRC ...) or npu_op_library(NAME TILING ...)")
    return m


def _write_if_changed(path: Path, text: str) -> None:
    """Atomic, and untouched when equal (so the build does not redo what depends on it)."""
    from opgen.writer import atomic_write

    if path.is_file() and path.read_text(encoding="utf-8") == text:
        return
    atomic_write(path, text)


def _copy_if_changed(src: Path, dst: Path) -> None:
    if dst.is_file() and filecmp.cmp(src, dst, shallow=False):
        return
    tmp = dst.with_name(f".{dst.name}.tmp")
    shutil.copyfile(src, tmp)
    os.replace(tmp, dst)


def _descriptions(hosts: Sequence[Path], includes: Sequence[Path],
                  package: str) -> dict[str, dict[str, Any]]:
    for h in hosts:
        if not h.is_file():
            raise NpuOpError(f"{h}: op_host source not found")
    for d in includes:
        if not d.is_dir():
            raise NpuOpError(f"{d}: include directory not found")
    # (each source's own directory is on the op_host's include path already)
    incs = list(dict.fromkeys(d.resolve() for d in includes))
    where = ", ".join(str(h) for h in hosts)
    try:
        return registered_ops([h.resolve() for h in hosts], incs, package or "ops", where)
    except ProjectError as exc:
        raise NpuOpError(str(exc)) from None


def _specs(descriptions: dict[str, dict[str, Any]], origin: str, spec_dir: Path,
           kernels: dict[str, dict[str, Any]] | None = None) -> list[Any]:
    """The ops as validated specs (with their kernel sections when `kernels` is given); only
    errors are reported (a project written for CANN has no `backward:`, and needs none)."""
    from opgen.load import Document
    from opgen.msopgen import convert
    from opgen.validate import build_spec

    sink = DiagnosticSink()
    docs = convert(Document(origin, list(descriptions.values())), sink)
    specs = []
    for d in docs:
        if kernels is not None:
            d.data["kernel"] = kernels[d.data["op_type"]]
        specs.append((d, build_spec(d, sink, spec_dir=str(spec_dir))))
    errors = [x for x in sink.items if x.severity.value == "error"]
    if errors:
        raise DiagnosticError(tuple(errors))
    return specs


def codegen(hosts: Sequence[Path], out_dir: Path, package: str,
            includes: Sequence[Path] = ()) -> list[str]:
    """Write the aclnn headers and sources and the REG_OP protos of the ops the op_host
    sources define into `out_dir`; returns the op types."""
    from opgen.emit import cann_aclnn, cann_op_proto
    from opgen.emit.cann_naming import aclnn_header
    from opgen.emit.common import render

    descriptions = _descriptions(hosts, includes, package)
    out_dir.mkdir(parents=True, exist_ok=True)
    protos: list[str] = []
    for _doc, spec in _specs(descriptions, str(hosts[0]), out_dir):
        header = aclnn_header(spec.op_type)
        _write_if_changed(out_dir / header,
                          render("cann/aclnn/aclnn.h.j2", v=cann_aclnn.view(spec)))
        _write_if_changed(out_dir / f"{header[:-2]}.cpp",
                          render("cann/npu_op/aclnn_op.cpp.j2", header=header,
                                 op_type=spec.op_type, package=package))
        v = cann_op_proto.view(spec)
        _write_if_changed(out_dir / v.header, render("cann/op_proto/op_proto.h.j2", v=v))
        _write_if_changed(out_dir / f"{v.header[:-2]}.cc",
                          render("cann/op_proto/op_proto.cc.j2", v=v))
        protos.append(v.header)
    _write_if_changed(out_dir / "op_proto.h", render("cann/npu_op/op_proto.h.j2", headers=protos))
    _write_if_changed(out_dir / "op_proto.cc", render("cann/npu_op/op_proto.cc.j2"))
    _write_if_changed(out_dir / "ops.txt", "".join(f"{t}\n" for t in descriptions))
    return list(descriptions)


def _kernel_for(op_type: str, m: Manifest) -> Path:
    if op_type in m.kernels:
        k = m.kernels[op_type]
        if not k.is_file():
            raise NpuOpError(f"{k}: kernel of {op_type} not found (npu_op_kernel_sources "
                             f"OP_TYPE {op_type} KERNEL_FILE)")
        return k
    stem = snake_from_camel(op_type)
    tried = [k for d in m.kernel_dirs for k in kernel_candidates(d, stem)]
    for k in tried:
        if k.is_file():
            return k
    looked = f" (looked for {', '.join(map(str, tried))})" if tried else ""
    raise NpuOpError(f"package {m.package}: op {op_type} has no kernel{looked}; name it with "
                     f"npu_op_kernel_sources(<target> OP_TYPE {op_type} KERNEL_FILE <file>)")


def build(manifest: Path) -> Path:
    """Build the package the manifest describes; returns its output directory (the work
    directory's out/: the two objects, include/ with the aclnn headers, and for TYPE RUN and
    SHARED the linked libcust_opapi.so)."""
    from opgen.build_cmd import BuildCommandError, build_failure, generated_metadefs
    from opgen.build_cmd import build as build_ops
    from opgen.emit.cann_aclnn import ACLNN_DIR
    from opgen.emit.cann_naming import aclnn_header
    from opgen.emit.op_api import LIBRARY_SOURCE
    from opgen.msopgen import to_yaml
    from opgen.msopgen_project import ProjectOp, kernel_section
    from opgen.project import Config
    from opgen_runtime.errors import SimulatorError
    from opgen_runtime.metadef import load
    from opgen_runtime.opapi_library import OpApiLibraryError, build_objects, link_library

    m = read_manifest(manifest)
    descriptions = _descriptions(m.hosts, m.includes, m.package)
    work = m.workdir.resolve()
    spec_dir = work / "specs"
    spec_dir.mkdir(parents=True, exist_ok=True)
    hosts = tuple(h.resolve() for h in m.hosts)
    incs = tuple(d.resolve() for d in m.includes)
    sections = {}
    for op_type in descriptions:
        kernel = _kernel_for(op_type, m).resolve()
        # CANN 9's kernels include their tiling struct's header themselves
        op = ProjectOp(descriptions[op_type], kernel, hosts, None, incs)
        sections[op_type] = kernel_section(op, spec_dir)
    specs = _specs(descriptions, str(m.path), spec_dir, sections)
    wanted = set()
    for doc, spec in specs:
        path = spec_dir / f"{spec.op_name}.yaml"
        _write_if_changed(path, f"# The op {spec.op_type} of the CANN op package "
                          f"{m.package!r}, written by its build (opgen npu-op).\n" + to_yaml(doc))
        wanted.add(path.name)
    for stale in spec_dir.glob("*.yaml"):
        if stale.name not in wanted:
            stale.unlink()
    config = Config(root=work, spec_dir=spec_dir, output_dir=work / "generated",
                    package="npu_op_package", namespace="npu_op_package")
    sink = DiagnosticSink()
    try:
        build_ops(config, sorted(spec_dir.glob("*.yaml")), sink)
        metadefs = sorted(generated_metadefs(config, [], sink).values())
        ops_obj, kernels_obj = build_objects(config.output_dir / LIBRARY_SOURCE,
                                             config.output_dir / ACLNN_DIR, metadefs)
        library = link_library(ops_obj, kernels_obj) if m.type != "STATIC" else None
    except BuildCommandError:
        errors = tuple(d for d in sink.items if d.severity.value == "error")
        if errors:  # generation's own diagnostics, located in the project's files
            raise DiagnosticError(errors) from None
        raise
    except OpApiLibraryError as exc:
        raise BuildCommandError(str(exc)) from None
    except SimulatorError as exc:
        raise build_failure([exc], config.root) from None
    out = work / "out"
    (out / "include").mkdir(parents=True, exist_ok=True)
    _copy_if_changed(ops_obj, out / OPS_API_OBJECT)
    _copy_if_changed(kernels_obj, out / KERNELS_OBJECT)
    if library is not None:
        _copy_if_changed(library, out / LIBRARY_NAME)
    headers = {aclnn_header(load(md).op_type) for md in metadefs}
    for h in sorted(headers):
        _copy_if_changed(config.output_dir / ACLNN_DIR / h, out / "include" / h)
    for stale in (out / "include").glob("aclnn_*.h"):
        if stale.name not in headers:
            stale.unlink()
    return out


# The installer `make package` writes for a TYPE RUN package: a shell script carrying the
# package's packages/vendors/<vendor> tree (tar.gz, base64) that installs it under
# $ASCEND_OPP_PATH/vendors/<vendor> (or --install-path=DIR/vendors/<vendor>), replacing the
# vendor's op_api whole, and names the vendor in vendors/config.ini's load_priority.
_RUN_SCRIPT = """\
#!/bin/sh
# The op package of vendor {vendor}, built by opgen for the simulator (npu_op_package TYPE RUN).
# Usage: {name} [--install-path=DIR]   (default: $ASCEND_OPP_PATH, which set_env.sh sets)
set -e
vendor={vendor}
opp="${{ASCEND_OPP_PATH:-}}"
for a in "$@"; do
  case "$a" in
    --install-path=*) opp="${{a#--install-path=}}" ;;
    --quiet|--full|--install) ;;
    *) echo "[ops_custom] unknown option $a (use --install-path=DIR)" >&2; exit 2 ;;
  esac
done
if [ -z "$opp" ]; then
  echo "[ops_custom] ASCEND_OPP_PATH is not set: source the toolkit's set_env.sh," \
       "or give --install-path=DIR" >&2
  exit 1
fi
mkdir -p "$opp/vendors"
stage=$(mktemp -d "$opp/vendors/.$vendor-XXXXXX")
trap 'rm -rf "$stage"' EXIT
sed '1,/^__OPGEN_PAYLOAD__$/d' "$0" | base64 -d | tar -xzf - -C "$stage"
if [ -e "$opp/vendors/$vendor" ]; then
  mv "$opp/vendors/$vendor" "$stage/old"
fi
mv "$stage/package" "$opp/vendors/$vendor"
config="$opp/vendors/config.ini"
if [ ! -f "$config" ]; then
  echo "load_priority=$vendor" > "$config"
elif ! grep -q "^load_priority=\\(.*,\\)\\?$vendor\\(,.*\\)\\?$" "$config"; then
  sed -i -e "s/^load_priority=\\(.\\)/load_priority=$vendor,\\1/" \
         -e "s/^load_priority=$/load_priority=$vendor/" "$config"
  grep -q "^load_priority=" "$config" || echo "load_priority=$vendor" >> "$config"
fi
echo "[ops_custom] installed $vendor into $opp/vendors/$vendor"
echo "SUCCESS"
exit 0
__OPGEN_PAYLOAD__
"""


def make_run(staging: Path, run_file: Path, vendor: str) -> Path:
    """Write the .run installer of the package CPack staged in `staging`."""
    import base64
    import io
    import re
    import tarfile

    from opgen.writer import atomic_write

    if not re.fullmatch(r"[A-Za-z0-9_][A-Za-z0-9_.-]*", vendor):
        raise NpuOpError(f"vendor name '{vendor}' must be letters, digits, '_', '.' and '-'")
    tree = staging / "packages" / "vendors" / vendor
    if not (tree / "op_api" / "lib" / LIBRARY_NAME).is_file():
        raise NpuOpError(f"{tree}: the staged package has no op_api/lib/{LIBRARY_NAME}; build "
                         "it first (make binary)")
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz", format=tarfile.PAX_FORMAT) as tar:
        for p in sorted(tree.rglob("*")):
            info = tar.gettarinfo(str(p), arcname=str(Path("package") / p.relative_to(tree)))
            info.uid = info.gid = 0
            info.uname = info.gname = ""
            info.mtime = 0
            if p.is_file():
                with p.open("rb") as f:
                    tar.addfile(info, f)
            else:
                tar.addfile(info)
    payload = base64.encodebytes(buf.getvalue()).decode("ascii")
    atomic_write(run_file, _RUN_SCRIPT.format(vendor=vendor, name=run_file.name) + payload)
    run_file.chmod(0o755)
    return run_file
