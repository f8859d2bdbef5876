"""What every emitter shares: the banner text, JSON rendering, the Jinja environment."""

from __future__ import annotations

import functools
import json
import posixpath
import re
from importlib import resources
from typing import Any

import jinja2

from opgen.emit.escape import FILTERS
from opgen.model import OpSpec
from opgen.writer import BANNER, BANNER_KEY, atomic_write


def banner_text(spec_path: str | None = None) -> str:
    source = f" from {spec_path}" if spec_path else ""
    return f"{BANNER}{source}. Do not edit: change the spec and run `opgen generate`."


def render_json(data: dict[str, Any], spec_path: str | None = None) -> str:
    """JSON output: the banner is the first key, so the file starts with it."""
    return _json({BANNER_KEY: banner_text(spec_path), **data}, "") + "\n"


def _json(value: Any, indent: str) -> str:
    """Indented JSON with lists of scalars kept on one line (short, diff-friendly)."""
    inner = indent + "  "
    if isinstance(value, dict) and value:
        items = [f"{inner}{_json_key(k)}: {_json(v, inner)}" for k, v in value.items()]
        return "{\n" + ",\n".join(items) + f"\n{indent}}}"
    if isinstance(value, list) and any(isinstance(v, (dict, list)) for v in value):
        items = [f"{inner}{_json(v, inner)}" for v in value]
        return "[\n" + ",\n".join(items) + f"\n{indent}]"
    text = _json_scalar(value)
    if text is None and type(value) is list:
        texts = [_json_scalar(v) for v in value]
        if None not in texts:
            return "[" + ", ".join(texts) + "]"  # type: ignore[arg-type]
    return text if text is not None else json.dumps(value, ensure_ascii=False,
                                                    separators=(", ", ": "))


# What json.dumps writes for the commonest values, without its call (an encoder per call with
# non-default arguments): strings, exact ints, booleans and null; None for anything else.
_ENCODE_STR = json.encoder.encode_basestring
_ENCODE_KEY = json.encoder.encode_basestring_ascii


def _json_scalar(value: Any) -> str | None:
    kind = type(value)
    if kind is str:
        return str(_ENCODE_STR(value))
    if kind is int:
        return int.__repr__(value)
    if kind is bool:
        return "true" if value else "false"
    if value is None:
        return "null"
    return None


def _json_key(key: Any) -> str:
    return str(_ENCODE_KEY(key)) if type(key) is str else json.dumps(key)


def relpath(target: str, from_dir: str) -> str:
    """Posix relative path between two project-relative paths (no absolute paths in output)."""
    return posixpath.relpath(target, from_dir)


def spec_dir(spec: OpSpec) -> str:
    return posixpath.dirname(spec.spec_path)


def kernel_source_path(spec: OpSpec) -> str:
    """The kernel file, project-relative."""
    return posixpath.normpath(posixpath.join(spec_dir(spec), spec.kernel.source))


def tiling_header_path(spec: OpSpec) -> str | None:
    """The op_host tiling header the kernel is built with, project-relative (or None)."""
    header = spec.kernel.tiling_header
    return posixpath.normpath(posixpath.join(spec_dir(spec), header)) if header else None


def op_host_paths(spec: OpSpec) -> tuple[str, ...]:
    """The op's own op_host sources, project-relative."""
    return tuple(posixpath.normpath(posixpath.join(spec_dir(spec), p))
                 for p in spec.kernel.op_host)


def include_dir_paths(spec: OpSpec) -> tuple[str, ...]:
    """The extra include directories of the op_host and kernel builds, project-relative."""
    return tuple(posixpath.normpath(posixpath.join(spec_dir(spec), p))
                 for p in spec.kernel.include_dirs)


def user_tiling(spec: OpSpec) -> str:
    """The Python tiling hook that tiles the op, for messages in generated code ("" when the
    C++ glue can tile it: the default policy, or the op's own op_host); control characters are
    dropped so the text is one line."""
    if spec.kernel.tiling_hook is None:
        return ""
    text = f"the Python hook {spec.kernel.tiling_hook}"
    return "".join(ch for ch in text if ch.isprintable())


@functools.cache
def _blank_run(max_blank: int) -> re.Pattern[str]:
    return re.compile("\n{" + str(max_blank + 2) + ",}")


def _finalize(text: str, max_blank: int = 1) -> str:
    """One post-processing pass for all templates: no trailing blanks, at most `max_blank`
    (at least 1) blank lines in a row (2 for Python, as PEP 8 separates top-level
    definitions), one final newline."""
    # not splitlines(): U+2028 is text
    joined = "\n".join([line.rstrip() for line in text.split("\n")])
    # the regex only when there is a run to collapse: scanning for one with it costs 20 us a
    # file (of 28 for the whole pass; no template's output of 1,000 specs had such a run)
    if "\n" * (max_blank + 2) in joined:
        joined = _blank_run(max_blank).sub("\n" * (max_blank + 1), joined)
    return joined.strip("\n") + "\n"


class _TemplateCache(jinja2.BytecodeCache):
    """Compiled templates in opgen's cache directory (<cache root>/templates), written
    atomically: compiling every template costs more than a small project's generate. Jinja
    checks each entry against its template's source and recompiles a stale one; an unreadable
    or unwritable cache only costs the compile. An entry the user cache lacks is read from the
    install's prebuilt layer (`opgen prebuild` compiles every template into it)."""

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        from opgen_runtime.cachedir import cache_root, prebuilt

        entry = cache_root() / "templates" / f"{bucket.key}.cache"
        for path in (entry, prebuilt(entry)):
            if path is None:
                continue
            try:
                with open(path, "rb") as f:
                    bucket.load_bytecode(f)
            except (OSError, ValueError, EOFError):
                bucket.reset()
            if bucket.code is not None:
                return

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        import contextlib
        import io

        from opgen_runtime.cachedir import cache_root

        buf = io.BytesIO()
        bucket.write_bytecode(buf)
        with contextlib.suppress(OSError):
            atomic_write(cache_root() / "templates" / f"{bucket.key}.cache", buf.getvalue())


@functools.cache
def environment() -> jinja2.Environment:
    return _new_environment()


def _new_environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(resources.files("opgen.templates"))),
        bytecode_cache=_TemplateCache(),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,
        # the templates are part of the installed opgen: not stat'ed again on every render
        auto_reload=False,
    )
    env.filters.update(FILTERS)  # every spec-derived value goes through one (escape.py)
    return env


def precompile_templates() -> int:
    """Compile every template into the bytecode cache of the current cache root (`opgen
    prebuild` points it at the prebuilt layer); the number compiled."""
    env = _new_environment()  # not the process's: a template it holds would not be written
    names = env.list_templates(filter_func=lambda n: n.endswith(".j2"))
    for name in names:
        env.get_template(name)
    return len(names)


def render(template: str, **context: Any) -> str:
    max_blank = 2 if template.endswith(".py.j2") else 1
    return _finalize(environment().get_template(template).render(**context), max_blank)


