"""docs/spec-reference.md, rendered from the JSON Schema and the language tables so it
cannot drift from what the validator accepts. `python -m opgen.spec_reference` rewrites it."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from opgen.dtypes import DTYPE_ALIASES, AttrType, DType, Format
from opgen.emit.common import render
from opgen.expr import FUNCTIONS
from opgen.validate import schema

DOC_PATH = Path("docs") / "spec-reference.md"


def _type_of(node: dict[str, Any]) -> str:
    if "$ref" in node:
        return str(node["$ref"]).rsplit("/", 1)[1]
    if "oneOf" in node:
        return " or ".join(_type_of(n) for n in node["oneOf"])
    kind = node.get("type", "any")
    if kind == "array":
        return f"list of {_type_of(node.get('items', {}))}"
    if kind == "object" and isinstance(node.get("additionalProperties"), dict):
        return f"mapping of {_type_of(node['additionalProperties'])}"
    if "enum" in node:
        return " \\| ".join(f"`{v}`" for v in node["enum"])
    return str(kind)


def _rows(node: dict[str, Any]) -> list[dict[str, str]]:
    required = set(node.get("required", ()))
    return [
        {"key": key, "type": _type_of(value), "required": "yes" if key in required else "",
         "doc": value.get("description", "").replace("|", "\\|")}
        for key, value in node.get("properties", {}).items()
    ]


def render_reference() -> str:
    s = schema()
    aliases: dict[str, list[str]] = {}
    for alias, dtype in sorted(DTYPE_ALIASES.items()):
        if alias != dtype.value:
            aliases.setdefault(dtype.value, []).append(alias)
    return render(
        "docs/spec-reference.md.j2",
        top=_rows(s), tensor=_rows(s["$defs"]["tensor"]), attr=_rows(s["$defs"]["attr"]),
        kernel=_rows(s["properties"]["kernel"]),
        dtypes=[(d.value, ", ".join(aliases.get(d.value, []))) for d in DType],
        formats=[f.value for f in Format], attr_types=[t.value for t in AttrType],
        functions=[(name, sig.arity, sig.kind.value, sig.doc) for name, sig in FUNCTIONS.items()],
    )


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    root = Path(args[0]) if args else Path.cwd()
    target = root / DOC_PATH
    text = render_reference()
    if target.exists() and target.read_text("utf-8") == text:
        return 0
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text, "utf-8")
    print(f"wrote {DOC_PATH}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
