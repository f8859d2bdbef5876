"""`opgen new`: a spec, a kernel that compiles and a test for a new operator.

Every file it would write is checked first; if any exists, nothing is written.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from opgen import cann_builtins
from opgen.diagnostics import OpgenError
from opgen.dtypes import AttrType, parse_attr_type, parse_dtype
from opgen.emit.common import render
from opgen.emit.skeleton import TODO_MARKER
from opgen.naming import SNAKE_RE, reserved_in, snake_from_camel, upper_camel
from opgen.project import Config
from opgen.writer import atomic_write


class ScaffoldError(OpgenError):
    pass


@dataclass(frozen=True)
class NewAttr:
    name: str
    type: str
    default: str | None
    ctype: str


_CTYPES = {AttrType.INT: "int64_t", AttrType.FLOAT: "float", AttrType.BOOL: "bool",
           AttrType.TYPE: "int32_t"}


def parse_attr_flag(text: str) -> NewAttr:
    """`alpha:float=1.0` -> NewAttr; `axis:int` has no default (a required attr)."""
    name, _, rest = text.partition(":")
    type_text, eq, default = rest.partition("=")
    if not name or not type_text:
        raise ScaffoldError(f"--attr '{text}': expected NAME:TYPE[=DEFAULT], e.g. alpha:float=1.0")
    atype = parse_attr_type(type_text)
    if atype is None:
        raise ScaffoldError(f"--attr '{text}': unknown type '{type_text}' (known: "
                            f"{', '.join(t.value for t in AttrType)})")
    return NewAttr(name, atype.value, default if eq else None, _CTYPES.get(atype, ""))


def _check_name(kind: str, name: str) -> None:
    if not SNAKE_RE.match(name):
        raise ScaffoldError(f"{kind} '{name}' must be snake_case (lowercase letters, digits, _)")
    lang = reserved_in(name)
    if lang:
        raise ScaffoldError(f"{kind} '{name}' is a reserved word in {lang}")


def scaffold(config: Config, op_name: str, *, inputs: Sequence[str], outputs: Sequence[str],
             dtypes: Sequence[str], attrs: Sequence[NewAttr], test_dir: Path) -> list[Path]:
    _check_name("op name", op_name)
    for n in [*inputs, *outputs, *(a.name for a in attrs)]:
        _check_name("name", n)
    all_names = [*inputs, *outputs, *(a.name for a in attrs)]
    if len(set(all_names)) != len(all_names):
        raise ScaffoldError("input, output and attr names must be distinct")
    for d in dtypes:
        if parse_dtype(d) is None:
            raise ScaffoldError(f"unknown dtype '{d}'")
    if not inputs or not outputs:
        raise ScaffoldError("an op needs at least one input and one output")
    op_type = upper_camel(op_name)
    custom = cann_builtins.clash(op_type)
    if custom is not None:
        raise ScaffoldError(f"op name '{op_name}' derives the op type '{op_type}', one of CANN's "
                            f"built-in operators (a custom-op package of that type replaces "
                            f"CANN's own); use op_type {custom}: opgen new "
                            f"{snake_from_camel(custom)}")
    spec_path = config.spec_dir / f"{op_name}.yaml"
    kernel_path = config.spec_dir / f"{op_name}.cpp"
    test_path = test_dir / f"test_{op_name}.py"
    planned = [spec_path, kernel_path, test_path]
    existing = [p for p in planned if p.exists()]
    if existing:
        raise ScaffoldError(f"{config.display(existing[0])}: error: already exists; opgen new "
                            "never overwrites a file (choose another name or remove it)")
    first_in = inputs[0]
    reference = first_in if len(outputs) == 1 else "{" + ", ".join(
        f"{o}: {first_in}" for o in outputs) + "}"
    spec_text = render(
        "new/spec.yaml.j2", op_name=op_name, op_type=op_type, inputs=inputs, outputs=outputs,
        dtypes=[parse_dtype(d).value for d in dtypes],  # type: ignore[union-attr]
        formats=["ND"] * len(dtypes), attrs=attrs, infer=f"same_as({first_in})",
        reference=reference,
        backward=[],  # derived from the reference (docs/gradients.md)
    )
    kernel_text = _skeleton_for(spec_text, op_name)
    spec_rel = config.display(spec_path)
    depth = len(Path(config.display(test_path)).parts) - 1
    test_text = render("new/test_op.py.j2", op_name=op_name, spec_rel=spec_rel,
                       test_depth=depth, todo_marker=TODO_MARKER)
    for path, text in ((spec_path, spec_text), (kernel_path, kernel_text), (test_path, test_text)):
        atomic_write(path, text)
    return planned


def _skeleton_for(spec_text: str, op_name: str) -> str:
    """The kernel skeleton of the spec about to be written (loaded from a scratch copy)."""
    import tempfile

    from opgen.api import load_spec
    from opgen.emit.skeleton import skeleton

    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / f"{op_name}.yaml").write_text(spec_text, encoding="utf-8")
        (Path(tmp) / f"{op_name}.cpp").write_text("", encoding="utf-8")
        return skeleton(load_spec(Path(tmp) / f"{op_name}.yaml"))


def default_test_dir(config: Config) -> Path:
    return config.root / "tests" / "ops"

