"""`atc --singleop=OPS.json --output=DIR` of the simulator toolkit (bin/atc; `opgen atc`).

CANN's atc compiles single-operator descriptions into offline models (.om) that
aclopSetModelDir/aclopLoad load and aclopExecuteV2 runs. Here an .om names what the model
matches (the op type, each input's and output's dtype, format and shape, the attrs the JSON
gives), and the op runs through the aclnn implementation of the op package installed under
$ASCEND_OPP_PATH (runtime/include/acl/acl_op.h). atc checks the JSON and that an installed
package holds each op, as CANN's does; model conversion (--model, --framework) is not served.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from opgen.diagnostics import DiagnosticError, OpgenError
from opgen.load import Document, load_file
from opgen.naming import snake_from_camel

# aclDataType and aclFormat codes (acl/acl_base.h) of the names single-op JSON files use
DTYPES = {"float": 0, "float32": 0, "float16": 1, "half": 1, "int8": 2, "int32": 3, "uint8": 4,
          "int16": 6, "uint16": 7, "uint32": 8, "int64": 9, "uint64": 10, "double": 11,
          "bool": 12, "bfloat16": 27, "bf16": 27}
FORMATS = {"NCHW": 0, "NHWC": 1, "ND": 2, "NC1HWC0": 3, "FRACTAL_Z": 4, "FRACTAL_NZ": 29}
_ATTR_TYPES = ("bool", "int", "float", "string", "list_bool", "list_int", "list_float",
               "list_string", "data_type")
MODEL_HEADER = "opgen-single-op-model 1"


class AtcError(OpgenError):
    """The command line cannot be served."""


def _fail(doc: Document, path: tuple[Any, ...], message: str) -> DiagnosticError:
    from opgen.diagnostics import Diagnostic

    return DiagnosticError((Diagnostic(doc.loc(path), message),))


def _tensor_line(doc: Document, kind: str, path: tuple[Any, ...], t: Any) -> tuple[str, str]:
    """The model file's line for one tensor, and its part of the file name."""
    where = f"{kind}[{path[-1]}]"
    if not isinstance(t, dict):
        raise _fail(doc, path, f"{where}: expected an object with format, shape and type")
    dtype = t.get("type")
    if dtype not in DTYPES:
        raise _fail(doc, (*path, "type"), f"{where}: type {dtype!r} is not one of "
                    f"{', '.join(sorted(DTYPES))}")
    fmt = t.get("format", "ND")
    if fmt not in FORMATS:
        raise _fail(doc, (*path, "format"), f"{where}: format {fmt!r} is not one of "
                    f"{', '.join(FORMATS)}")
    shape = t.get("shape")
    if (not isinstance(shape, list) or len(shape) > 25
            or not all(isinstance(d, int) and not isinstance(d, bool) and d >= -2 for d in shape)
            or (-2 in shape and shape != [-2])):
        raise _fail(doc, (*path, "shape"), f"{where}: shape must be a list of at most 25 extents "
                    "(-1: any extent; [-2]: any rank)")
    rank = -2 if shape == [-2] else len(shape)
    dims = " ".join(str(d) for d in shape)
    line = f"{kind} {DTYPES[dtype]} {FORMATS[fmt]} {rank}" + (f" {dims}" if dims else "")
    return line, "_".join([str(DTYPES[dtype]), str(FORMATS[fmt]), *map(str, shape)])


def _installed(op_type: str, opp: Path) -> bool:
    header = f"aclnn_{snake_from_camel(op_type)}.h"
    vendors = opp / "vendors"
    return vendors.is_dir() and any(
        (v / "op_api" / "include" / header).is_file() and (v / "op_api" / "lib" /
                                                           "libcust_opapi.so").is_file()
        for v in vendors.iterdir())


def single_op_models(json_file: Path, out_dir: Path, opp: Path | None) -> list[Path]:
    """Write the .om of every op of the single-op JSON file; returns their paths."""
    from opgen.writer import atomic_write

    doc = load_file(json_file)
    ops = doc.data
    if not isinstance(ops, list) or not ops:
        raise _fail(doc, (), "a single-op file is a JSON list of ops ({\"op\": ..., "
                    "\"input_desc\": [...], \"output_desc\": [...]})")
    models: list[tuple[str, str]] = []
    for i, op in enumerate(ops):
        if not isinstance(op, dict) or not isinstance(op.get("op"), str) or not op["op"]:
            raise _fail(doc, (i,), f"op {i}: give its type as \"op\": \"<OpType>\"")
        op_type = op["op"]
        if opp is None or not _installed(op_type, opp):
            where = f"{opp}/vendors" if opp is not None else "$ASCEND_OPP_PATH (not set)"
            raise _fail(doc, (i, "op"), f"op {op_type}: no op package under {where} holds it; "
                        "install its package (its custom_opp_*.run, or opgen build) first")
        lines = [MODEL_HEADER, f"op {op_type}"]
        name_parts = [str(i), op_type]
        for kind, key in (("input", "input_desc"), ("output", "output_desc")):
            tensors = op.get(key, [])
            if not isinstance(tensors, list):
                raise _fail(doc, (i, key), f"op {op_type}: {key} must be a list")
            for j, t in enumerate(tensors):
                line, part = _tensor_line(doc, kind, (i, key, j), t)
                lines.append(line)
                name_parts.append(part)
        for j, a in enumerate(op.get("attr", []) or []):
            if (not isinstance(a, dict) or not isinstance(a.get("name"), str)
                    or a.get("type") not in _ATTR_TYPES or "value" not in a):
                raise _fail(doc, (i, "attr", j), f"op {op_type}: attr[{j}] needs name, type "
                            f"(one of {', '.join(_ATTR_TYPES)}) and value")
            lines.append(f"attr {a['name']} {json.dumps(a['value'], separators=(',', ':'))}")
        name = "_".join(name_parts).replace("-", "_") + ".om"
        models.append((name, "\n".join(lines) + "\n"))
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, text in models:
        atomic_write(out_dir / name, text)
        paths.append(out_dir / name)
    return paths


def main(argv: Sequence[str]) -> int:
    options: dict[str, str] = {}
    for a in argv:
        key, eq, value = a.partition("=")
        if not key.startswith("--") or not eq:
            raise AtcError(f"atc: unexpected argument {a!r} (give --singleop=FILE --output=DIR)")
        options[key[2:]] = value
    if "model" in options or "framework" in options:
        raise AtcError("atc: model conversion (--model, --framework) is not served by the "
                       "simulator toolkit; single-op models are: --singleop=FILE --output=DIR")
    if "singleop" not in options:
        raise AtcError("atc: give --singleop=FILE (a single-op JSON file) and --output=DIR")
    opp_env = os.environ.get("ASCEND_OPP_PATH")
    paths = single_op_models(Path(options["singleop"]), Path(options.get("output", ".")),
                             Path(opp_env) if opp_env else None)
    for p in paths:
        print(f"atc: wrote {p}")
    print(f"ATC run success: {len(paths)} single-op model(s) for the simulator", file=sys.stdout)
    return 0
