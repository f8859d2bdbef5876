"""Output shapes from a metadef's shape rules (the JSON form the compiler emits)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any


class ShapeRuleError(ValueError):
    pass


def broadcast_shapes(shapes: Sequence[tuple[int, ...]]) -> tuple[int, ...]:
    """numpy broadcasting; raises ShapeRuleError naming the shapes when they do not broadcast."""
    rank = max((len(s) for s in shapes), default=0)
    out: list[int] = []
    for i in range(rank):
        size = 1
        for s in shapes:
            j = i - rank + len(s)
            d = s[j] if j >= 0 else 1
            if d == 1:
                continue
            if size not in (1, d):
                raise ShapeRuleError(f"shapes {' and '.join(map(str, shapes))} do not broadcast")
            size = d
        out.append(size)
    return tuple(out)


def infer_shape(rule: Mapping[str, Any], shapes: Mapping[str, tuple[int, ...]],
                attrs: Mapping[str, Any]) -> tuple[int, ...]:
    """Apply one `infer` rule ({"rule": "same_as" | "broadcast" | "reduce" | "explicit", ...})."""
    kind = rule["rule"]
    if kind == "same_as":
        return tuple(shapes[rule["input"]])
    if kind == "broadcast":
        return broadcast_shapes([tuple(shapes[n]) for n in rule["inputs"]])
    if kind == "reduce":
        shape = tuple(shapes[rule["input"]])
        axis = rule["axis"]
        axis = attrs[axis] if isinstance(axis, str) else axis
        keep = rule["keepdim"]
        keep = attrs[keep] if isinstance(keep, str) else keep
        rank = len(shape)
        axes_list = list(axis) if isinstance(axis, (list, tuple)) else [axis]
        for a in axes_list:
            if rank and not -rank <= int(a) < rank:
                raise ShapeRuleError(f"axis {a} is out of range for a rank-{rank} tensor")
        axes = {int(a) % rank for a in axes_list} if rank else set()
        return tuple(1 if i in axes else d for i, d in enumerate(shape) if keep or i not in axes)
    if kind == "explicit":
        dims: list[int] = []
        for d in rule["dims"]:
            if isinstance(d, Mapping):
                dims.append(shapes[d["input"]][d["index"]])
            elif isinstance(d, str):
                dims.append(int(attrs[d]))
            else:
                dims.append(int(d))
        return tuple(dims)
    raise ShapeRuleError(f"unknown shape rule {kind!r}")
