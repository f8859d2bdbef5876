"""Op names that are global in a process — torch's `<namespace>::<op>`, TensorFlow's op types
(`<Prefix>><Op>`) — claimed per generated package before its library is built or loaded.

Both frameworks register op names in C++, and a second registration of a name aborts the process
(torch: "Tried to register an operator (...) multiple times" thrown from a static initializer of
the loaded library). So every generated package claims the names it is about to register here
first: a name another package claimed, or one the framework already knows, is refused with
OpNameClashError, a Python exception naming both packages and the fix. The namespace (torch) and
op prefix (TensorFlow) default to the package name (`[tool.opgen] namespace`), so packages with
the same op names load side by side (docs/pytorch.md, "Namespaces").
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass


class OpNameClashError(RuntimeError):
    """A generated package would register an op name that another package (or something else
    in the process) already registered."""


@dataclass(frozen=True)
class _Owner:
    package: str
    where: str  # the package's directory, for the message


_LOCK = threading.Lock()
_CLAIMS: dict[tuple[str, str], _Owner] = {}  # (framework, op name) -> the package holding it


def owner(framework: str, name: str) -> str | None:
    """The package that claimed `name` in this process, if any."""
    with _LOCK:
        found = _CLAIMS.get((framework, name))
    return None if found is None else found.package


def claim(framework: str, package: str, where: str, names: Sequence[str], *,
          exists: Callable[[str], bool], key: str) -> None:
    """Claim every name of `names` for `package` (all or none). `exists(name)` says whether the
    framework already has the name registered; `key` is the `[tool.opgen]` key that renames
    them (namespace)."""
    with _LOCK:
        clashes: list[tuple[str, _Owner | None]] = []
        for name in names:
            found = _CLAIMS.get((framework, name))
            if found is not None:
                if found.package != package:
                    clashes.append((name, found))
            elif exists(name):
                clashes.append((name, None))
        if clashes:
            raise OpNameClashError(_message(framework, package, where, clashes, key))
        for name in names:
            _CLAIMS[(framework, name)] = _Owner(package, where)


def _message(framework: str, package: str, where: str,
             clashes: Sequence[tuple[str, _Owner | None]], key: str) -> str:
    name, first = clashes[0]
    more = [n for n, o in clashes[1:] if o == first]
    also = f" (and {', '.join(more)})" if more else ""
    if first is None:
        by = ("by something else in this process (not an opgen package: another extension "
              "or a library that registered it)")
        other = "the other library"
    else:
        by = f"by package '{first.package}' (loaded from {first.where})"
        other = f"'{first.package}'"
    return (f"package '{package}' (at {where}) cannot register its {framework} ops: {name}{also} "
            f"is already registered in this process {by}. {framework} op names are global in a "
            f"process, so two packages must not share them: give '{package}' (or {other}) a "
            f"{key} of its own — `{key} = \"{package}\"` under [tool.opgen] in its "
            "pyproject.toml (the default is the package name) — and run `opgen generate`.")
