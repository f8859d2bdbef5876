"""Stage 1, load: YAML or JSON text into plain data plus a `file:line:col` for every node."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from opgen.diagnostics import Diagnostic, DiagnosticError, SourceLoc

JsonPath = tuple[str | int, ...]

# libyaml's composer is several times faster; its marks (line/col) are the same.
_BaseLoader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _Loader(_BaseLoader):  # type: ignore[misc]
    """SafeLoader with YAML 1.2 scalars: only true/false are booleans, and 1e-5 is a float.

    YAML 1.1 (PyYAML's default) reads `on`, `off`, `yes`, `no` as booleans and `1e-5` as
    text, both classic metadef mistakes that would otherwise surface as confusing type errors.
    """


_Loader.yaml_implicit_resolvers = {
    key: [(tag, rx) for tag, rx in resolvers if tag not in ("tag:yaml.org,2002:bool",
                                                             "tag:yaml.org,2002:float")]
    for key, resolvers in _BaseLoader.yaml_implicit_resolvers.copy().items()
}
_Loader.add_implicit_resolver(
    "tag:yaml.org,2002:bool", re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF")
)
_Loader.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(
        r"""^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+]?[0-9]+)?
        |[-+]?(?:[0-9][0-9_]*)(?:[eE][-+]?[0-9]+)
        |\.[0-9_]+(?:[eE][-+]?[0-9]+)?
        |[-+]?\.(?:inf|Inf|INF)
        |\.(?:nan|NaN|NAN))$""",
        re.X,
    ),
    list("-+0123456789."),
)


@dataclass(frozen=True)
class ScalarStyle:
    """How a scalar was written; lets expression errors point inside one-line scalars."""

    single_line: bool
    quote_width: int  # 1 for '...' or "...", 0 for plain scalars


@dataclass
class Document:
    """One loaded file: plain data (dicts, lists, scalars) and where each node came from."""

    path: str
    data: Any
    locs: dict[JsonPath, SourceLoc] = field(default_factory=dict)
    key_locs: dict[JsonPath, SourceLoc] = field(default_factory=dict)
    styles: dict[JsonPath, ScalarStyle] = field(default_factory=dict)

    def loc(self, path: JsonPath) -> SourceLoc:
        """Location of the value at `path`, or of the nearest enclosing node that has one."""
        p = tuple(path)
        while p:
            if p in self.locs:
                return self.locs[p]
            p = p[:-1]
        return self.locs.get((), SourceLoc(self.path, 1, 1))

    def key_loc(self, path: JsonPath) -> SourceLoc:
        """Location of the mapping key that leads to `path` (falls back to the value)."""
        return self.key_locs.get(tuple(path)) or self.loc(path)

    def expr_loc(self, path: JsonPath, offset: int) -> SourceLoc:
        """Location of character `offset` inside the scalar at `path` when it is one line."""
        base = self.loc(path)
        style = self.styles.get(tuple(path))
        if style is None or not style.single_line:
            return base
        return base.shifted(style.quote_width + offset)


def _mark_loc(path: str, mark: Any) -> SourceLoc:
    return SourceLoc(path, mark.line + 1, mark.column + 1)


def _fail(loc: SourceLoc, message: str) -> DiagnosticError:
    return DiagnosticError((Diagnostic(loc, message),))


class _Builder:
    def __init__(self, path: str, loader: yaml.SafeLoader) -> None:
        self.doc = Document(path, None)
        self.loader = loader

    def build(self, node: yaml.Node, where: JsonPath) -> Any:
        self.doc.locs[where] = _mark_loc(self.doc.path, node.start_mark)
        if isinstance(node, yaml.MappingNode):
            out: dict[Any, Any] = {}
            for key_node, value_node in node.value:
                key = self.build(key_node, (*where, "\0key"))
                key_loc = _mark_loc(self.doc.path, key_node.start_mark)
                if not isinstance(key, str):
                    raise _fail(key_loc, f"mapping keys must be strings, got {key!r}")
                if key in out:
                    first = self.doc.key_locs[(*where, key)]
                    raise _fail(
                        key_loc, f"duplicate key '{key}' (first given at line {first.line})"
                    )
                self.doc.key_locs[(*where, key)] = key_loc
                out[key] = self.build(value_node, (*where, key))
            self.doc.locs.pop((*where, "\0key"), None)
            return out
        if isinstance(node, yaml.SequenceNode):
            return [self.build(item, (*where, i)) for i, item in enumerate(node.value)]
        assert isinstance(node, yaml.ScalarNode)
        start, end = node.start_mark, node.end_mark
        self.doc.styles[where] = ScalarStyle(
            single_line=start.line == end.line and node.style in (None, "", "'", '"'),
            quote_width=1 if node.style in ("'", '"') else 0,
        )
        return self.loader.construct_object(node, deep=True)


def load_text(text: str, path: str) -> Document:
    """Parse YAML (or JSON, which is checked by the JSON parser first for its own errors)."""
    if path.endswith(".json"):
        try:
            json.loads(text)
        except json.JSONDecodeError as exc:
            loc = SourceLoc(path, exc.lineno, exc.colno)
            raise _fail(loc, f"invalid JSON: {exc.msg}") from None
    loader = _Loader(text)
    try:
        node = loader.get_single_node()
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        loc = _mark_loc(path, mark) if mark is not None else SourceLoc(path, 1, 1)
        problem = exc.problem or exc.context or "malformed YAML"
        context = f" ({exc.context})" if exc.context and exc.problem else ""
        raise _fail(loc, f"invalid YAML: {problem}{context}") from None
    except yaml.YAMLError as exc:  # pragma: no cover - non-marked reader errors
        raise _fail(SourceLoc(path, 1, 1), f"invalid YAML: {exc}") from None
    finally:
        loader.dispose()
    if node is None:
        raise _fail(SourceLoc(path, 1, 1), "the file is empty; expected an operator spec mapping")
    builder = _Builder(path, loader)
    try:
        builder.doc.data = builder.build(node, ())
    except yaml.constructor.ConstructorError as exc:
        mark = exc.problem_mark
        loc = _mark_loc(path, mark) if mark is not None else SourceLoc(path, 1, 1)
        raise _fail(loc, f"invalid YAML value: {exc.problem}") from None
    return builder.doc


def load_file(path: Path | str, display: str | None = None) -> Document:
    """Read and parse a spec file; `display` is the path used in messages (as the user typed it)."""
    shown = display if display is not None else str(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise _fail(SourceLoc(shown), "no such file") from None
    except UnicodeDecodeError as exc:
        message = f"not UTF-8 text ({exc.reason} at byte {exc.start})"
        raise _fail(SourceLoc(shown), message) from None
    except OSError as exc:
        raise _fail(SourceLoc(shown), f"cannot read: {exc.strerror}") from None
    return load_text(text, shown)


