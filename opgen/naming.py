"""Names shared by every target: identifier rules and the op_name -> op_type derivation.

Target-specific naming (CANN files, PyTorch, TensorFlow) lives beside each emitter; the
functions here are the ones validation needs too.
"""

from __future__ import annotations

import keyword
import re

# Whole-string patterns: \Z, not $ (which also matches before a final newline), so .match()
# on them accepts "leaky_relu" and refuses "leaky_relu\n".
SNAKE_RE = re.compile(r"^[a-z][a-z0-9_]*\Z")
CAMEL_RE = re.compile(r"^[A-Z][A-Za-z0-9]*\Z")
C_IDENT_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*\Z")
# CANN IR names (OpDef inputs and attrs): C identifiers starting with a letter, any case
IR_NAME_RE = re.compile(r"^[A-Za-z][A-Za-z0-9_]*\Z")
# A C++ name, possibly qualified (a tiling struct: TilingData, optiling::TilingData)
CXX_QUALIFIED_RE = re.compile(r"^(?:::)?[A-Za-z_][A-Za-z0-9_]*(?:::[A-Za-z_][A-Za-z0-9_]*)*\Z")
# A Python tiling hook: module:function, the module a dotted import path
_PY_NAME = r"[A-Za-z_][A-Za-z0-9_]*"
HOOK_RE = re.compile(rf"^{_PY_NAME}(?:\.{_PY_NAME})*:{_PY_NAME}\Z")

CPP_KEYWORDS = frozenset(
    """
alignas alignof and and_eq asm auto bitand bitor bool break case catch char char8_t char16_t
char32_t class compl concept const consteval constexpr constinit const_cast continue co_await
co_return co_yield decltype default delete do double dynamic_cast else enum explicit export
extern false float for friend goto if inline int long mutable namespace new noexcept not not_eq
nullptr operator or or_eq private protected public register reinterpret_cast requires return
short signed sizeof static static_assert static_cast struct switch template this thread_local
throw true try typedef typeid typename union unsigned using virtual void volatile wchar_t while
xor xor_eq
""".split()  # noqa: SIM905 - a word list reads better than a 100-item literal
)

PYTHON_KEYWORDS = frozenset(keyword.kwlist) | (frozenset(keyword.softkwlist) - {"_"})

# Names the generated wrappers reserve: TensorFlow's op wrappers take `name=`, every kernel
# takes `workspace` and `tiling` after the tensors, and Ascend C defines these in its headers.
GENERATED_RESERVED = frozenset({"name", "workspace", "tiling", "half", "self"})


def reserved_in(name: str) -> str | None:
    """Which language reserves `name` ('C++', 'Python', ...), or None."""
    if name in CPP_KEYWORDS:
        return "C++"
    if name in PYTHON_KEYWORDS:
        return "Python"
    if name in GENERATED_RESERVED:
        return ("the generated code (TensorFlow wrappers take name=, kernels take workspace "
                "and tiling)")
    return None


def is_dotted_identifier(text: str) -> bool:
    """A Python import path (opgen_ops, my_pkg.tiling): identifiers, no keywords."""
    parts = text.split(".")
    return all(re.fullmatch(_PY_NAME, p) and not keyword.iskeyword(p) for p in parts)


def upper_camel(snake: str) -> str:
    """leaky_relu -> LeakyRelu; conv2d -> Conv2d; element_add -> ElementAdd."""
    return "".join(part[:1].upper() + part[1:] for part in snake.split("_") if part)


def lower_camel(snake: str) -> str:
    """negative_slope -> negativeSlope."""
    camel = upper_camel(snake)
    return camel[:1].lower() + camel[1:]


def snake_from_camel(camel: str) -> str:
    """AddCustom -> add_custom; LayerNormV2 -> layer_norm_v2 (used for msopgen imports)."""
    s = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", camel)
    s = re.sub(r"(?<=[A-Z])(?=[A-Z][a-z])", "_", s)
    return s.lower()
