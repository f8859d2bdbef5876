"""The generated Python package: per-op registration modules and the package's register_all.

Layout under <output_dir>/python/<package>/ (framework modules are added by their emitters):
    __init__.py                 OPS, register_all()
    registration/<op>.py        the seed's four registration calls for one op
"""

from __future__ import annotations

import posixpath
from collections.abc import Sequence

from opgen.emit.common import banner_text, render
from opgen.emit.metadef import metadef_path
from opgen.gencache import OpRecord
from opgen.kernel_frontend import CheckedKernel
from opgen.model import OpSpec
from opgen.project import Config

PYTHON_DIR = "python"


def package_dir(config: Config) -> str:
    return f"{PYTHON_DIR}/{config.package}"


def relative_to_module(module_path: str, target: str) -> str:
    """Path of `target` relative to the directory of `module_path` (both output-relative)."""
    return posixpath.relpath(target, posixpath.dirname(module_path))


def registration_path(spec: OpSpec, config: Config) -> str:
    return f"{package_dir(config)}/registration/{spec.op_name}.py"


def emit_registration(spec: OpSpec, kernel: CheckedKernel, config: Config) -> dict[str, str]:
    path = registration_path(spec, config)
    backward = spec.backward
    return {path: render(
        "python/registration.py.j2", banner=banner_text(spec.spec_path), op_name=spec.op_name,
        kernel_name=spec.kernel.entry, metadef=relative_to_module(path, metadef_path(spec)),
        has_gradient=backward is not None and backward.grad_op is None,
        grad_op=backward.grad_op if backward is not None else None,
    )}


def emit_package(ops: Sequence[OpRecord], config: Config) -> dict[str, str]:
    base = package_dir(config)
    return {
        f"{base}/__init__.py": render("python/package_init.py.j2", banner=banner_text(),
                                      package=config.package, ops=[o.op_name for o in ops]),
        f"{base}/registration/__init__.py": render(
            "python/registration_init.py.j2", banner=banner_text(), package=config.package),
    }
