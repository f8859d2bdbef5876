"""Stage 1, load: YAML or JSON text into plain data plus a `file:line:col` for every node."""

from __future__ import annotations

import json
import math
import os
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from opgen.diagnostics import Diagnostic, DiagnosticError, SourceLoc, escape_text

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


# Bounds on what a spec may be (docs/reliability.md). Real specs are a few kilobytes, a few
# levels deep; these only stop inputs that would exhaust time, memory or the Python stack.
MAX_SPEC_BYTES = 1 << 20  # the file (UTF-8 bytes)
MAX_DEPTH = 64  # nested mappings and lists
MAX_NODES = 100_000  # values after alias expansion (an alias counts as its anchor's size)
MAX_INT_DIGITS = 100  # characters of an integer literal
_INT_TAG = "tag:yaml.org,2002:int"
_FLOAT_TAG = "tag:yaml.org,2002:float"
# What YAML admits in a stream: tab, LF, CR, printable ASCII, NEL and the printable rest of
# Unicode (no C0/C1 controls, no surrogates, no U+FFFE/U+FFFF).
_BAD_CHAR = re.compile("[^\t\n\r\x20-\x7e\x85\xa0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def text_loc(path: str, text: str, offset: int) -> SourceLoc:
    """The line:col of character `offset` of `text` (columns count characters)."""
    line = text.count("\n", 0, offset) + 1
    return SourceLoc(path, line, offset - (text.rfind("\n", 0, offset) + 1) + 1)


def bytes_loc(path: str, data: bytes, offset: int) -> SourceLoc:
    """The line:col of byte `offset` of `data`, columns counted in characters of the line."""
    start = data.rfind(b"\n", 0, offset) + 1
    col = len(data[start:offset].decode("utf-8", "replace")) + 1
    return SourceLoc(path, data.count(b"\n", 0, offset) + 1, col)


def decode_utf8(data: bytes, path: str, what: str = "text") -> str:
    """`data` as text; a located error at the first byte that is not UTF-8."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        bad = data[exc.start:exc.end].hex(" ")
        raise _fail(bytes_loc(path, data, exc.start),
                    f"not UTF-8 {what}: byte{'s' if exc.end - exc.start > 1 else ''} "
                    f"0x{bad} ({exc.reason}); save the file as UTF-8") from None


def _check_text(text: str, path: str) -> None:
    """Size and characters, before any parser sees the text."""
    if len(text) > MAX_SPEC_BYTES or len(text.encode("utf-8", "surrogatepass")) > MAX_SPEC_BYTES:
        raw = text.encode("utf-8", "surrogatepass")[:MAX_SPEC_BYTES]
        at = len(raw.decode("utf-8", "ignore"))
        raise _fail(text_loc(path, text, at), f"the file is larger than {MAX_SPEC_BYTES} bytes, "
                    "the limit for a spec; a spec describes one operator")
    bad = _BAD_CHAR.search(text)
    if bad is not None:
        raise _fail(text_loc(path, text, bad.start()),
                    f"control character {escape_text(bad.group())} is not allowed in a spec "
                    "(write it as an escape in a double-quoted string)")


_JSON_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"?|[\[\]{}]')


def _check_json_depth(text: str, path: str) -> None:
    """Nesting depth of JSON text, before the JSON parser recurses into it."""
    depth = 0
    for m in _JSON_TOKEN.finditer(text):
        tok = m.group()
        if tok in ("[", "{"):
            depth += 1
            if depth > MAX_DEPTH:
                raise _fail(text_loc(path, text, m.start()), _too_deep())
        elif tok in ("]", "}"):
            depth -= 1


def _too_deep() -> str:
    return (f"nesting deeper than {MAX_DEPTH} levels of mappings and lists; a spec needs a "
            "few")


def _check_events(loader: Any, path: str) -> None:
    """Depth and alias expansion from the event stream, before anything is built: a
    billion-laughs alias chain is refused at the alias that crosses MAX_NODES. A syntax
    error ends the scan silently (the parse that follows reports it)."""
    depth = 0
    total = 0
    sizes: dict[str, int] = {}  # anchor -> the number of values it stands for
    open_: list[tuple[str | None, int]] = []
    try:
        while loader.check_event():
            event = loader.get_event()
            if isinstance(event, yaml.AliasEvent):
                anchor = str(event.anchor)
                total += sizes.get(anchor, 1)
                if total > MAX_NODES:
                    raise _fail(_mark_loc(path, event.start_mark),
                                f"alias *{escape_text(anchor)} expands the spec past "
                                f"{MAX_NODES} values (aliases count as the values they "
                                "repeat); write the values out, or use fewer aliases")
            elif isinstance(event, yaml.ScalarEvent):
                total += 1
                if event.anchor is not None:
                    sizes[event.anchor] = 1
            elif isinstance(event, yaml.CollectionStartEvent):
                depth += 1
                total += 1
                if depth > MAX_DEPTH:
                    raise _fail(_mark_loc(path, event.start_mark), _too_deep())
                open_.append((event.anchor, total))
            elif isinstance(event, yaml.CollectionEndEvent):
                depth -= 1
                opened, start = open_.pop()
                if opened is not None:
                    sizes[opened] = total - start + 1
            if total > MAX_NODES:
                raise _fail(_mark_loc(path, event.start_mark),
                            f"the spec has more than {MAX_NODES} values; a spec describes one "
                            "operator")
    except yaml.MarkedYAMLError as exc:  # libyaml's own bound (1000 flow levels) came first
        if "nesting depth" in str(exc.problem) and exc.problem_mark is not None:
            raise _fail(_mark_loc(path, exc.problem_mark), _too_deep()) from None
    except yaml.YAMLError:
        return


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
        if node.tag == _INT_TAG and len(node.value) > MAX_INT_DIGITS:  # int() would refuse
            raise _fail(_mark_loc(self.doc.path, start), f"integer with {len(node.value)} "
                        f"characters; opgen reads integers of at most {MAX_INT_DIGITS}")
        self.doc.styles[where] = ScalarStyle(
            single_line=start.line == end.line and node.style in (None, "", "'", '"'),
            quote_width=1 if node.style in ("'", '"') else 0,
        )
        try:
            value = self.loader.construct_object(node, deep=True)
        except yaml.constructor.ConstructorError:
            raise
        except Exception:  # an explicit tag on text it cannot read: `!!int ''`, `!!binary x`
            raise _fail(_mark_loc(self.doc.path, start), f"invalid YAML value: "
                        f"'{_clip(escape_text(node.value))}' is not a valid {node.tag}") from None
        if (node.tag == _FLOAT_TAG and isinstance(value, float) and math.isinf(value)
                and "inf" not in node.value.lower()):
            raise _fail(_mark_loc(self.doc.path, start), f"number {_clip(node.value)} is out "
                        "of range (beyond float64, about 1.8e308)")
        return value


def _clip(text: str, width: int = 40) -> str:
    return text if len(text) <= width else f"{text[:width - 3]}..."


def load_text(text: str, path: str) -> Document:
    """Parse YAML (or JSON, which is checked by the JSON parser first for its own errors)."""
    _check_text(text, path)
    if path.endswith(".json"):
        _check_json_depth(text, path)
        try:  # syntax only: numbers are not converted (a 5000-digit int is the YAML pass's)
            json.loads(text, parse_int=len, parse_float=len, parse_constant=len)
        except json.JSONDecodeError as exc:
            loc = SourceLoc(path, exc.lineno, exc.colno)
            raise _fail(loc, f"invalid JSON: {exc.msg}") from None
    node, loader = _compose_fast(text) or _compose(text, path)
    builder = _Builder(path, loader)
    try:
        builder.doc.data = builder.build(node, ())
    except yaml.constructor.ConstructorError as exc:
        mark = exc.problem_mark
        loc = _mark_loc(path, mark) if mark is not None else SourceLoc(path, 1, 1)
        raise _fail(loc, f"invalid YAML value: {exc.problem}") from None
    return builder.doc


# Text this short cannot hold MAX_NODES values (each takes a character or two) unless aliases
# repeat them, and without an `&` there is no anchor to repeat.
_FAST_COMPOSE_CHARS = MAX_NODES // 4


def _compose_fast(text: str) -> tuple[yaml.Node, Any] | None:
    """The node of a spec that _check_events would pass, composed without that scan (one
    pass instead of two); None when it must run (an anchor, long text, a composing error or
    nesting past MAX_DEPTH), so that every error is the scan's or the composer's as before.
    With the node, its loader (whose constructor builds the values)."""
    if "&" in text or len(text) > _FAST_COMPOSE_CHARS:
        return None
    loader = _Loader(text)
    try:
        node = loader.get_single_node()
    except yaml.YAMLError:
        return None
    finally:
        loader.dispose()
    if not isinstance(node, yaml.Node):
        return None
    pending: list[tuple[yaml.Node, int]] = [(node, 0)]
    while pending:
        item, depth = pending.pop()
        if isinstance(item, yaml.MappingNode):
            depth += 1
            if depth > MAX_DEPTH:
                return None
            for key, value in item.value:
                pending.append((key, depth))
                pending.append((value, depth))
        elif isinstance(item, yaml.SequenceNode):
            depth += 1
            if depth > MAX_DEPTH:
                return None
            pending.extend((child, depth) for child in item.value)
    return node, loader


def _compose(text: str, path: str) -> tuple[yaml.Node, Any]:
    """The scan for size and depth (_check_events), then the node or a located error."""
    scan = _Loader(text)
    try:
        _check_events(scan, path)
    finally:
        scan.dispose()
    loader = _Loader(text)
    try:
        node = loader.get_single_node()
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        loc = _mark_loc(path, mark) if mark is not None else SourceLoc(path, 1, 1)
        problem = exc.problem or exc.context or "malformed YAML"
        context = f" ({exc.context})" if exc.context and exc.problem else ""
        raise _fail(loc, f"invalid YAML: {problem}{context}") from None
    except yaml.reader.ReaderError as exc:  # a character YAML refuses (checked above too)
        loc = text_loc(path, text, min(max(exc.position, 0), len(text)))
        raise _fail(loc, f"invalid YAML: {exc.reason}") from None
    except yaml.YAMLError as exc:  # pragma: no cover - other unmarked errors
        raise _fail(SourceLoc(path, 1, 1), f"invalid YAML: {' '.join(str(exc).split())}") from None
    finally:
        loader.dispose()
    if node is None:
        raise _fail(SourceLoc(path, 1, 1), "the file is empty; expected an operator spec mapping")
    return node, loader


def load_file(path: Path | str, display: str | None = None) -> Document:
    """Read and parse a spec file; `display` is the path used in messages (as the user typed it)."""
    shown = display if display is not None else str(path)
    try:
        with open(path, "rb") as f:
            if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
                raise _fail(SourceLoc(shown, 1, 1), "not a regular file (a device, pipe or "
                            "directory); a spec is a YAML or JSON file")
            data = f.read(MAX_SPEC_BYTES + 1)
    except FileNotFoundError:
        raise _fail(SourceLoc(shown), "no such file") from None
    except OSError as exc:
        raise _fail(SourceLoc(shown), f"cannot read: {exc.strerror}") from None
    if len(data) > MAX_SPEC_BYTES:
        raise _fail(bytes_loc(shown, data, MAX_SPEC_BYTES), f"the file is larger than "
                    f"{MAX_SPEC_BYTES} bytes, the limit for a spec; a spec describes one operator")
    return load_text(decode_utf8(data, shown), shown)


