"""Documentation generated from the schema is current."""

from __future__ import annotations

from conftest import ROOT
from opgen.spec_reference import DOC_PATH, render_reference


def test_spec_reference_is_current() -> None:
    current = (ROOT / DOC_PATH).read_text("utf-8")
    assert current == render_reference(), (
        f"{DOC_PATH} is stale; refresh it with `make docs`")


def _error_classes() -> dict[str, str]:
    """Every exception class defined in opgen and opgen_runtime (by importing each module)."""
    import importlib
    import inspect
    import pkgutil

    import opgen
    import opgen_runtime

    found: dict[str, str] = {}
    for package in (opgen, opgen_runtime):
        for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
            if info.name.endswith("__main__"):
                continue
            module = importlib.import_module(info.name)
            for name, obj in vars(module).items():
                if (inspect.isclass(obj) and issubclass(obj, BaseException)
                        and obj.__module__ == module.__name__):
                    found[name] = module.__name__
    return found


def test_every_error_class_is_in_the_troubleshooting_page() -> None:
    page = (ROOT / "docs" / "troubleshooting.md").read_text("utf-8")
    classes = _error_classes()
    assert len(classes) >= 25
    missing = sorted(f"{module}.{name}" for name, module in classes.items()
                     if f"`{name}`" not in page)
    assert not missing, f"add these to docs/troubleshooting.md: {missing}"
