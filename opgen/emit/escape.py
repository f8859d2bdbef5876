"""Escaping of spec text for every language opgen generates, and the Jinja filters built on it.

Every value that comes from a spec or a path reaches a template through one of these filters
(tests/test_template_lint.py checks the templates): a string literal of the target language, a
docstring, a comment, a TensorFlow attr default, YAML or JSON. Identifiers are checked again
when rendered (`ident`), numbers must be finite (`num`), and source fragments the emitters
build from escaped parts are marked `code` (one line, printable). A value a filter cannot
represent raises ValueError: a bug in validation, never silently wrong output.
"""

from __future__ import annotations

import json
import math
import re
import unicodedata
from typing import Any

# An identifier, optionally qualified: leaky_relu, opgen::leaky_relu, opgen_ops.tf, Opgen>Add
IDENT_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:(?:::|\.|>)[A-Za-z_][A-Za-z0-9_]*)*")
# A plain comment: printable ASCII that no language reads as anything but comment text
_PLAIN_COMMENT_RE = re.compile(r"[ -~]*")

_PY_SIMPLE = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r", "\t": "\\t"}
_CXX_SIMPLE = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _is_surrogate(ch: str) -> bool:
    return 0xD800 <= ord(ch) <= 0xDFFF


def _needs_escape(ch: str) -> bool:
    """Characters that may not appear raw in generated text: controls, line and paragraph
    separators (str.splitlines and some tools break lines at them), format characters and lone
    surrogates (not encodable as UTF-8)."""
    return not ch.isprintable() and ch != " "


def _py_escape_char(ch: str) -> str:
    code = ord(ch)
    if code < 0x100:
        return f"\\x{code:02x}"
    if code < 0x10000:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def py_str(value: Any) -> str:
    """A double-quoted Python string literal (any text, one line)."""
    text = str(value)
    if text.isprintable() and "\\" not in text and '"' not in text:  # the common case
        return f'"{text}"'
    out = []
    for ch in text:
        if ch in _PY_SIMPLE:
            out.append(_PY_SIMPLE[ch])
        elif _needs_escape(ch):
            out.append(_py_escape_char(ch))
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def py_doc(value: Any) -> str:
    """Text inside a triple-quoted Python docstring: backslashes and quotes escaped (so neither
    an escape sequence nor a closing quote can form), line breaks kept, other controls escaped."""
    out = []
    for ch in str(value):
        if ch == "\\":
            out.append("\\\\")
        elif ch == '"':
            out.append('\\"')
        elif ch == "\n":
            out.append(ch)
        elif _needs_escape(ch):
            out.append(_py_escape_char(ch))
        else:
            out.append(ch)
    return "".join(out)


def _comment(text: str, quote: Any) -> str:
    if _PLAIN_COMMENT_RE.fullmatch(text) and "\\" not in text and "*/" not in text \
            and "??" not in text:
        return text
    return str(quote(text))


def py_comment(value: Any) -> str:
    """Text after `#` (Python, CMake, YAML): itself when plain printable ASCII, else as a quoted
    Python string literal, so no line break (or anything else) can end the comment."""
    return _comment(str(value), py_str)


def cxx_str(value: Any) -> str:
    """A C++ narrow string literal holding the UTF-8 bytes of any text: non-ASCII bytes and
    controls as 3-digit octal escapes (no following digit can extend them), `??` split so no
    trigraph forms."""
    text = str(value)
    if _PLAIN_COMMENT_RE.fullmatch(text) and "\\" not in text and '"' not in text \
            and "??" not in text:  # printable ASCII with nothing to escape
        return f'"{text}"'
    out = []
    prev = ""
    for byte in text.encode("utf-8", "surrogatepass"):
        ch = chr(byte)
        if ch in _CXX_SIMPLE:
            piece = _CXX_SIMPLE[ch]
        elif 0x20 <= byte < 0x7F:
            piece = "\\?" if ch == "?" and prev == "?" else ch
        else:
            piece = f"\\{byte:03o}"
        out.append(piece)
        prev = ch
    return '"' + "".join(out) + '"'


def cxx_comment(value: Any) -> str:
    """Text in a `//` (or `/* */`) C++ comment: itself when plain printable ASCII, else as a C++
    string literal with `/` escaped after `*`: no line break, line splice, trigraph or `*/` can
    form."""
    return _comment(str(value), lambda t: cxx_str(t).replace("*/", "*\\057"))


def json_value(value: Any) -> str:
    """A JSON (and YAML flow) value; non-finite floats are refused."""
    return json.dumps(value, ensure_ascii=True, allow_nan=False)


_YAML_PLAIN_RE = re.compile(r"[A-Za-z0-9_(\[{.\-][A-Za-z0-9_.()\[\]{}:, +\-*/=<>]*")


def yaml_str(value: Any) -> str:
    """A YAML value on one line (`opgen new` writes the command line's values into the spec):
    the text itself when it is made of name, number, list and expression characters only, else a
    JSON string (a valid YAML double-quoted scalar), so no line break or comment can form."""
    text = str(value)
    if _YAML_PLAIN_RE.fullmatch(text) and not text.startswith("- ") and " #" not in text \
            and not text.endswith((":", " ")):
        return text
    return json.dumps(text, ensure_ascii=True)


_IDENTS: set[str] = set()  # strings ident() accepted: a template uses a name many times


def ident(value: Any) -> str:
    """A validated identifier (possibly qualified with :: or .), checked again at render time."""
    if type(value) is str and value in _IDENTS:
        return value
    text = str(value)
    if not IDENT_RE.fullmatch(text):
        raise ValueError(f"not an identifier: {text!r}")
    if type(value) is str and len(_IDENTS) < 65536:
        _IDENTS.add(text)
    return text


_PATH_RE = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.\-]*(?:/[A-Za-z0-9_][A-Za-z0-9_.\-]*)*")


def path(value: Any) -> str:
    """A relative path opgen derived from validated names (an #include, a CMake source): letters,
    digits, `_ . -` and `/`, no `..` part, checked again at render time."""
    text = str(value)
    if not _PATH_RE.fullmatch(text) or ".." in text.split("/"):
        raise ValueError(f"not a plain relative path: {text!r}")
    return text


def num(value: Any) -> str:
    """An integer or finite float as source text (Python, C++ and JSON agree on it)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"not a number: {value!r}")
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError(f"not a finite number: {value!r}")
    return repr(value)


def code(value: Any) -> str:
    """A source fragment an emitter built from escaped parts: one line of printable text."""
    text = str(value)
    if text.isprintable():  # no character _needs_escape
        return text
    bad = next((ch for ch in text if _needs_escape(ch)), None)
    if bad is not None:
        raise ValueError(f"source fragment with {unicodedata.name(bad, hex(ord(bad)))}: "
                         f"{text!r}")
    return text


def py_literal(value: Any) -> str:
    """A Python literal for an attr value (str, bool, int, finite float, tuple)."""
    if isinstance(value, tuple):
        inner = ", ".join(py_literal(v) for v in value)
        return f"({inner},)" if len(value) == 1 else f"({inner})"
    if isinstance(value, str):
        text = repr(value)  # repr escapes every non-printable character
        return text
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError(f"not a finite number: {value!r}")
    return repr(value)


def tf_str(value: str) -> str:
    """A string in a TensorFlow attr default (a protobuf text-format string): UTF-8 bytes,
    non-ASCII and controls as octal escapes."""
    out = []
    for byte in value.encode("utf-8", "surrogatepass"):
        ch = chr(byte)
        if ch in "\\\"'":
            out.append("\\" + ch)
        elif 0x20 <= byte < 0x7F:
            out.append(ch)
        else:
            out.append(f"\\{byte:03o}")
    return '"' + "".join(out) + '"'


FILTERS = {
    "py_str": py_str,
    "py_doc": py_doc,
    "py_comment": py_comment,
    "cxx_str": cxx_str,
    "cxx_comment": cxx_comment,
    "json": json_value,
    "yaml_str": yaml_str,
    "ident": ident,
    "num": num,
    "path": path,
    "code": code,
}
