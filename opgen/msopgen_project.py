"""A whole msopgen custom-op project (op_host/, op_kernel/) read as opgen specs.

The project's op_host sources are compiled for the host and asked what they register: each
OpDef (OP_ADD) gives the op's inputs, outputs, dtypes, formats and attrs, and each op becomes a
spec whose kernel and op_host point at the project's files in place. No op JSON is needed: the
OpDef is what CANN's own build reads.
"""

from __future__ import annotations

import os
import posixpath
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from opgen.naming import snake_from_camel

# ge::DataType and ge::Format codes (CANN's numbering) as msopgen spells them
_DTYPES = {0: "float", 1: "float16", 2: "int8", 3: "int32", 4: "uint8", 6: "int16", 7: "uint16",
           8: "uint32", 9: "int64", 10: "uint64", 11: "double", 12: "bool", 27: "bfloat16"}
_FORMATS = {0: "NCHW", 1: "NHWC", 2: "ND", 3: "NC1HWC0", 4: "FRACTAL_Z", 27: "NDHWC",
            29: "FRACTAL_NZ", 30: "NCDHW"}


class ProjectError(Exception):
    """The directory is not an msopgen project, or its op_host does not build."""


@dataclass(frozen=True)
class ProjectOp:
    """One op of the project: its msopgen description and the files that implement it."""

    description: dict[str, Any]  # msopgen's JSON entry for the op (opgen.msopgen.convert)
    kernel: Path
    op_host: tuple[Path, ...]
    tiling_header: Path | None
    include_dirs: tuple[Path, ...] = ()  # helper headers outside the project (--include)


# The SoC the simulator models, by the name CANN's op builds give it (ASCEND_COMPUTE_UNIT).
COMPUTE_UNIT = "ascend910b"
# A per-architecture tiling folder of CANN's operator libraries (op_host/arch22, arch32, arch35).
_ARCH_DIR = re.compile(r"arch\d+")
# The architecture folder of the Ascend 950 (npu arch 3510), which the simulator does not model.
_ARCH_950 = "arch35"


def _cmake_list(text: str, var: str) -> list[str]:
    """The values of `set(VAR "a" "b" ...)` in a CMakeLists text, or []."""
    m = re.search(r"\bset\s*\(\s*" + var + r"\b([^)]*)\)", text)
    if m is None:
        return []
    return [a or b for a, b in re.findall(r'"([^"]*)"|(\S+)', m.group(1))]


def tiling_dir(root: Path) -> str | None:
    """The op_host/archNN folder CANN builds for the simulated SoC. CANN's operator libraries
    (hicann/ops-math) build op_host/*_tiling*.cpp and the tiling folder their CMakeLists maps the
    SoC to (`set(SUPPORT_COMPUTE_UNIT ...)` with `set(SUPPORT_TILING_DIR ...)`, one folder per
    unit); without that map, the one folder that is not the Ascend 950's arch35. None: no such
    folder (or no way to tell)."""
    host_dir = root / "op_host"
    dirs = sorted(d.name for d in host_dir.iterdir() if d.is_dir() and _ARCH_DIR.fullmatch(d.name))
    if not dirs:
        return None
    cmake = root / "CMakeLists.txt"
    if cmake.is_file():
        text = cmake.read_text(errors="replace")
        units = _cmake_list(text, "SUPPORT_COMPUTE_UNIT")
        folders = _cmake_list(text, "SUPPORT_TILING_DIR")
        if COMPUTE_UNIT in units and len(units) == len(folders):
            folder = folders[units.index(COMPUTE_UNIT)]
            return folder if folder in dirs else None
    others = [d for d in dirs if d != _ARCH_950]
    return others[0] if len(others) == 1 else None


def _sources(host_dir: Path, arch: str | None = None) -> list[Path]:
    """op_host/*.cpp, and op_host/<op>/*.cpp of CANN 9's layout (one folder per op). Of CANN's
    operator libraries' folders: op_host/op_api (the aclnn API, a library of its own) is left
    out, and of the archNN folders only `arch`'s *_tiling*.cpp are built, as CANN builds them."""
    out = []
    for p in host_dir.rglob("*"):
        if p.suffix not in (".cpp", ".cc") or not p.is_file():
            continue
        top = p.relative_to(host_dir).parts[0]
        nested = p.parent != host_dir
        if nested and (top == "op_api" or (_ARCH_DIR.fullmatch(top) and (
                top != arch or "_tiling" not in p.name))):
            continue
        out.append(p)
    return sorted(out)


def dependency_sources(root: Path) -> list[Path]:
    """The op_host sources of the ops this op depends on. CANN's operator libraries declare them
    in op_host/CMakeLists.txt (`add_modules_sources(... DEPENDENCIES other_op ...)`) and build
    every op's op_host into one library, so an op may call a dependency's code: ops-nn's swi_glu
    calls swi_glu_grad's GluBaseTiling4RegBase, the foreach ops foreach_utils' tiling and
    InferShape. All of a dependency's sources are taken (as opgen takes the op's own, _sources)
    but its OpDefs (`*_def.cpp`): the other op is not imported with this one. A dependency is
    looked for beside the op, then in the library's other categories
    (<library>/<category>/<dep>)."""
    cmake = root / "op_host" / "CMakeLists.txt"
    if not cmake.is_file():
        return []
    out: list[Path] = []
    text = cmake.read_text(errors="replace")
    for call in re.finditer(r"\badd_modules_sources\s*\(([^)]*)\)", text):
        m = re.search(r"\bDEPENDENCIES\b((?:\s+(?![A-Z_]+\b)[\w.-]+)+)", call.group(1))
        for dep in (m.group(1).split() if m else []):
            found = [root.parent / dep, *sorted(root.parent.parent.glob(f"*/{dep}"))]
            dep_root = next((d for d in found if (d / "op_host").is_dir() and d != root), None)
            if dep_root is None:
                continue
            out += [p for p in _sources(dep_root / "op_host", tiling_dir(dep_root))
                    if not p.name.endswith("_def.cpp") and p not in out]
    return out


_SIBLING_INCLUDE = re.compile(rb'^\s*#\s*include\s*"\.\./([\w.-]+)/', re.MULTILINE)
_KERNEL_SUFFIXES = (".cpp", ".h", ".hpp", ".cc", ".inc")


def _sibling_ops(kernel_dir: Path) -> set[str]:
    """The folder names a kernel folder's files reach with `#include "../<name>/..."`."""
    names: set[str] = set()
    for f in sorted(kernel_dir.rglob("*")):
        if f.suffix in _KERNEL_SUFFIXES and f.is_file():
            try:
                names.update(m.group(1).decode() for m in _SIBLING_INCLUDE.finditer(f.read_bytes()))
            except OSError:
                continue
    return names


def staged_kernels(root: Path) -> dict[str, Path]:
    """The other ops' kernel folders this op's kernel includes through CANN's staged kernel tree.
    CANN's operator libraries copy each op's op_kernel/ into <build>/<op folder>/ before the
    kernel build (ops-nn's cmake/gen_ops_info.cmake), so a kernel includes another op's kernel
    headers as "../rms_norm/rms_norm_base.h" (add_rms_norm, the foreach ops, ops-math's
    hans_decode). A name the op's own tree does not have, and that is an op folder of the
    library (beside the op, or in another category) with an op_kernel/, is staged: its folder by
    name, and the folders its own files reach so, in turn."""
    found: dict[str, Path] = {}
    todo = [root / "op_kernel"]
    while todo:
        kernel_dir = todo.pop()
        for name in sorted(_sibling_ops(kernel_dir)):
            if name in found or name == root.name or (kernel_dir.parent / name).exists():
                continue
            candidates = [root.parent / name, *sorted(root.parent.parent.glob(f"*/{name}"))]
            dep = next((d / "op_kernel" for d in candidates if (d / "op_kernel").is_dir()), None)
            if dep is not None:
                found[name] = dep.resolve()
                todo.append(dep)
    return found


def stage_kernel_tree(stage: Path, own: Path, others: dict[str, Path]) -> Path:
    """`stage`/<name> links to each of `others` (and to `own`, the op's kernel folder, by its op
    folder's name), and `stage`/_ is an empty folder: with it on the include path,
    "../<name>/x.h" finds <name>'s x.h as in CANN's staged tree. Returns `stage`/_. Links that
    are already right are kept; anything else in the way is an error (ProjectError)."""
    base = stage / "_"
    base.mkdir(parents=True, exist_ok=True)
    for name, target in {own.parent.name: own.resolve(), **others}.items():
        link = stage / name
        if link.is_symlink() and link.resolve() == target:
            continue
        if link.exists() or link.is_symlink():
            raise ProjectError(f"{link}: in the way of the staged kernel tree (it should link to "
                               f"{target}); remove it and import again")
        link.symlink_to(target, target_is_directory=True)
    return base


def tiling_header(host_dir: Path, stem: str, arch: str | None) -> Path | None:
    """The header holding the op's kernel-side tiling struct (BEGIN_TILING_DATA_DEF): msopgen's
    op_host/<op>_tiling.h, else CANN's operator libraries' <op>_tiling_def.h or a header of the
    arch folder; the first of them that defines one, else <op>_tiling.h if it exists."""
    folders = [host_dir] + ([host_dir / arch] if arch else [])
    candidates = [f / f"{stem}{suffix}" for f in folders
                  for suffix in ("_tiling.h", "_tiling_def.h")]
    if arch:
        candidates += sorted(p for p in (host_dir / arch).glob(f"{stem}_tiling*.h")
                             if p not in candidates)
    for c in candidates:
        if c.is_file() and "BEGIN_TILING_DATA_DEF" in c.read_text(errors="replace"):
            return c
    plain = host_dir / f"{stem}_tiling.h"
    return plain if plain.is_file() else None


def kernel_candidates(directory: Path, stem: str) -> list[Path]:
    """Where an op's kernel may be, in this order: msopgen's <stem>.cpp, then CANN 9's layouts
    (<stem>/<stem>.cpp, <stem>/<stem>_kernel.cpp, <stem>_kernel.cpp)."""
    return [directory / f"{stem}.cpp", directory / stem / f"{stem}.cpp",
            directory / stem / f"{stem}_kernel.cpp", directory / f"{stem}_kernel.cpp"]


def _tensor(p: dict[str, Any], where: str) -> dict[str, Any]:
    unknown = [c for c in p["dtypes"] if c not in _DTYPES] + [
        c for c in p["formats"] if c not in _FORMATS]
    if unknown:
        raise ProjectError(f"{where}: {p['name']} uses ge codes {unknown} that opgen has no "
                           "name for")
    formats = [_FORMATS[c] for c in p["formats"]] or ["ND"] * len(p["dtypes"])
    return {"name": p["name"], "param_type": p["param_type"],
            "type": [_DTYPES[c] for c in p["dtypes"]], "format": formats}


def _follow(d: dict[str, Any], where: str) -> None:
    """A parameter declared with Follow("other") and no dtypes or formats of its own takes the
    other parameter's (CANN: Follow copies dtype, format and shape), in place."""
    params = {p["name"]: p for p in [*d["inputs"], *d["outputs"]]}
    for p in [*d["inputs"], *d["outputs"]]:
        seen = [p["name"]]
        source = p
        while source.get("follow") and not source["dtypes"]:
            other = params.get(source["follow"])
            if other is None or other["name"] in seen:
                raise ProjectError(f"{where}: {p['name']} follows '{source['follow']}', which "
                                   "is not a parameter of the op (or follows back)")
            seen.append(other["name"])
            source = other
        if source is not p:
            p["dtypes"], p["formats"] = list(source["dtypes"]), list(source["formats"])


def _other_architecture(soc: str) -> bool:
    """Whether an OpDef config's SoC runs kernels of an architecture the simulator does not
    model: the Ascend 950's (arch35, regbase: ascend950, also named ascend910_95)."""
    return soc.lower().startswith(("ascend950", "ascend910_95"))


def registered_ops(sources: Sequence[Path], include_dirs: Sequence[Path], name: str,
                   where: str) -> dict[str, dict[str, Any]]:
    """op type -> its msopgen description, for every op the op_host `sources` define with
    OP_ADD (compiled for the host under `name`; `where` names them in messages)."""
    from opgen_runtime.errors import SimulatorError
    from opgen_runtime.ophost import build_op_host, load_op_host

    try:
        host = load_op_host(build_op_host(list(sources), name=name,
                                          include_dirs=tuple(include_dirs)))
    except SimulatorError as exc:
        raise ProjectError(str(exc)) from None
    if host.errors:
        raise ProjectError(f"{where}: {host.errors.strip()}")
    ops: dict[str, dict[str, Any]] = {}
    for op_type, info in sorted(host.ops.items()):
        d = info.get("def")
        if d is None:
            continue  # IMPL_OP_OPTILING only: the definition is elsewhere
        at = f"{where} ({op_type})"
        _follow(d, at)
        description: dict[str, Any] = {
            "op": op_type,
            "input_desc": [_tensor(p, at) for p in d["inputs"]],
        }
        if d["outputs"]:
            description["output_desc"] = [_tensor(p, at) for p in d["outputs"]]
        elif d["inputs"]:
            # An OpDef without outputs: the kernel writes its input(s) in place. CANN's
            # convention puts the written tensor first (ScatterSub's var); a kernel that also
            # writes later inputs gets them marked in the spec by hand.
            description["input_desc"][0]["inplace"] = True
        if d["attrs"]:
            description["attr"] = [
                {"name": a["name"], "type": a["type"],
                 "param_type": "required" if a["required"] else "optional",
                 **({"default_value": a["default"]} if "default" in a else {})}
                for a in d["attrs"]]
        ops[op_type] = description
        socs = [str(c) for c in d.get("socs", ())]
        if socs and all(_other_architecture(c) for c in socs):
            # its kernel and tiling are that architecture's (CANN's ops libraries: op_kernel/
            # arch35/, op_host/arch35/ for the Ascend 950), which the simulator does not run
            raise ProjectError(
                f"{where}: op {op_type} is built only for {', '.join(socs)} (its OpDef's "
                f"AICore().AddConfig); the simulator runs kernels of {COMPUTE_UNIT} (Atlas A2) "
                "and the SoCs of its family, not that architecture's, so this op cannot be "
                "imported")
    if not ops:
        raise ProjectError(f"{where}: the op_host registers no op with OP_ADD")
    return ops


def read_project(root: Path, include_dirs: Sequence[Path] = (),
                 extra_sources: Sequence[Path] = ()) -> list[ProjectOp]:
    """Every op an msopgen project's op_host registers with OP_ADD, with its kernel.
    `include_dirs` are searched by the op_host (and kernel) builds after the project's own
    directories; `extra_sources` are compiled with the op_host sources (a helper library's
    implementation its headers declare)."""
    host_dir, kernel_dir = root / "op_host", root / "op_kernel"
    if not host_dir.is_dir() or not kernel_dir.is_dir():
        raise ProjectError(f"{root}: not an msopgen project (no op_host/ and op_kernel/)")
    arch = tiling_dir(root)
    sources = _sources(host_dir, arch)
    if not sources:
        raise ProjectError(f"{host_dir}: no .cpp sources")
    sources += [p for p in dependency_sources(root) if p not in sources]
    for inc in include_dirs:
        if not inc.is_dir():
            raise ProjectError(f"{inc}: include directory not found")
    for f in extra_sources:
        if not f.is_file():
            raise ProjectError(f"{f}: op_host source not found")
    sources += [f.resolve() for f in extra_sources]
    incs = tuple(d.resolve() for d in include_dirs)
    ops = []
    for op_type, description in registered_ops(sources, incs, root.resolve().name,
                                               str(host_dir)).items():
        stem = snake_from_camel(op_type)
        found = [k for k in kernel_candidates(kernel_dir, stem) if k.is_file()]
        if not found and root.resolve().name != stem:
            # CANN's ops libraries name the kernel after the op's folder (ops-nn's
            # cmake/func.cmake add_kernel_sources: op_kernel/<folder>.cpp), which need not be
            # the op type's snake case: ApplyAdamWV2 lives in apply_adam_w_v2/
            folder = root.resolve().name
            found = [k for k in kernel_candidates(kernel_dir, folder) if k.is_file()]
            if found:
                stem = folder
        if not found:
            raise ProjectError(f"{root}: op {op_type} has no kernel {kernel_dir / stem}.cpp "
                               f"(msopgen names the kernel of {op_type} op_kernel/{stem}.cpp; "
                               f"CANN 9's projects op_kernel/{stem}/{stem}_kernel.cpp)")
        kernel = found[0]
        header = tiling_header(host_dir, stem, arch)
        if header is None and stem != snake_from_camel(op_type):  # named after the op type
            header = tiling_header(host_dir, snake_from_camel(op_type), arch)
        if header is None:  # a header (its own, or a dependency's) registering its struct
            header = registering_header(op_type, [host_dir, *(
                p.parent for p in sources if p.parent != host_dir)])
        op_sources = [*sources, *graph_infer_sources(root, op_type, sources)]
        ops.append(ProjectOp(description, kernel, tuple(op_sources), header, incs))
    return ops


def registering_header(op_type: str, folders: Sequence[Path]) -> Path | None:
    """The first header in `folders` that registers `op_type`'s tiling struct
    (`REGISTER_TILING_DATA_CLASS(<op_type>, ...)`): a header shared by several ops, as ops-nn's
    rms_norm_tiling.h for GemmaRmsNorm or foreach_utils' foreach_tiling_def.h for ForeachExp."""
    pattern = re.compile(rb"REGISTER_TILING_DATA_CLASS\s*\(\s*" + re.escape(op_type.encode())
                         + rb"\s*,")
    seen: set[Path] = set()
    for folder in folders:
        if folder in seen:
            continue
        seen.add(folder)
        for h in sorted(folder.glob("*.h")):
            try:
                if pattern.search(h.read_bytes()):
                    return h
            except OSError:
                continue
    return None


def graph_infer_sources(root: Path, op_type: str, sources: Sequence[Path]) -> list[Path]:
    """The op's InferShape in op_graph/, when its op_host has none: CANN's operator libraries
    register some ops' shape inference there (`IMPL_OP_INFERSHAPE(GemmaRmsNorm)` in
    op_graph/gemma_rms_norm_graph_infer.cpp), for the graph engine and the aclnn layer alike."""
    registers = re.compile(rb"IMPL_OP(?:_INFERSHAPE)?\s*\(\s*" + re.escape(op_type.encode())
                           + rb"\s*\)")
    def has(path: Path) -> bool:
        try:
            return registers.search(path.read_bytes()) is not None
        except OSError:
            return False
    if any(has(p) for p in sources):
        return []
    return [p for p in sorted((root / "op_graph").glob("*.cpp")) if has(p)]


def mark_ref_outputs(spec: dict[str, Any]) -> None:
    """An OpDef output named like an input is CANN's ref output: the input's buffer, which the
    kernel writes (an optimizer's var, ops-nn's fused_sgd params). In the spec it becomes
    `<name>_ref` (the kernel parameter's usual name) with `ref: <name>`, in place."""
    inputs = {t.get("name") for t in spec.get("input_desc") or () if isinstance(t, dict)}
    for t in spec.get("output_desc") or ():
        if isinstance(t, dict) and t.get("name") in inputs:
            name = t["name"]
            t["name"] = f"{name}_ref"
            t.pop("ir_name", None)  # (the input's IR name stays the input's)
            t["ref"] = name


def kernel_section_path(p: Path, spec_dir: Path) -> str:
    """`p` as a spec's kernel section names it: relative to the spec's folder, with /."""
    return posixpath.join(*Path(os.path.relpath(p.resolve(), spec_dir.resolve())).parts)


def kernel_section(op: ProjectOp, spec_dir: Path) -> dict[str, Any]:
    """The spec's `kernel:` for an op imported in place: paths relative to the spec's folder."""

    def rel(p: Path) -> str:
        return kernel_section_path(p, spec_dir)

    section: dict[str, Any] = {"source": rel(op.kernel), "op_host": [rel(p) for p in op.op_host]}
    if op.tiling_header is not None:
        section["tiling_header"] = rel(op.tiling_header)
    if op.include_dirs:
        section["include_dirs"] = [rel(d) for d in op.include_dirs]
    return section
