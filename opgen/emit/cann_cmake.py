"""The CANN tree's build files: op_host/ and op_kernel/ CMakeLists.txt and a CMakePresets.json.

They follow what msopgen writes into a custom-op project, so generated/cann/ drops into one: the
project keeps msopgen's top-level CMakeLists.txt, cmake/ (opbuild, add_ops_info_target, ...) and
build.sh, and takes these (docs/cann.md). The generated op_host sources are listed; the user's
own sources beside them (a tiling function for an op with a tiling hook) are globbed, leaving
out files that carry opgen's banner, so a stale generated file is not built by accident.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from opgen.emit.cann_naming import file_stem
from opgen.emit.cann_tf_plugin import TF_PLUGIN_DIR, plugin_file
from opgen.emit.common import banner_text, render
from opgen.gencache import OpRecord
from opgen.project import Config

CANN_DIR = "cann"
DEFAULT_SOC = "ascend910b"  # the spec's `soc` default (validate.py)
CANN_PACKAGE_PATH = "/usr/local/Ascend/ascend-toolkit/latest"


@dataclass(frozen=True)
class OpView:
    op_type: str
    stem: str
    host: str  # op_host/<stem>.cpp, relative to op_host/


def _socs(ops: Sequence[OpRecord]) -> list[str]:
    """Every SoC the specs name, in first-seen order (ops sorted by name)."""
    found: list[str] = []
    for op in ops:
        for soc in op.socs:
            if soc not in found:
                found.append(soc)
    return found or [DEFAULT_SOC]


def presets(socs: Sequence[str]) -> dict[str, Any]:
    """msopgen's CMakePresets.json: the variables its cmake/config.cmake reads."""
    def var(kind: str, value: str) -> dict[str, str]:
        return {"type": kind, "value": value}

    return {
        "version": 1,
        "cmakeMinimumRequired": {"major": 3, "minor": 19, "patch": 0},
        "configurePresets": [{
            "name": "default",
            "displayName": "Default Config",
            "description": "CANN custom-op package of the ops opgen generated",
            "generator": "Unix Makefiles",
            "binaryDir": "${sourceDir}/build_out",
            "cacheVariables": {
                "CMAKE_BUILD_TYPE": var("STRING", "Release"),
                "ENABLE_SOURCE_PACKAGE": var("BOOL", "True"),
                "ENABLE_BINARY_PACKAGE": var("BOOL", "True"),
                "ASCEND_COMPUTE_UNIT": var("STRING", ";".join(socs)),
                "ENABLE_TEST": var("BOOL", "True"),
                "vendor_name": var("STRING", "customize"),
                "ASCEND_CANN_PACKAGE_PATH": var("PATH", CANN_PACKAGE_PATH),
                "ASCEND_PYTHON_EXECUTABLE": var("STRING", "python3"),
                "CMAKE_INSTALL_PREFIX": var("PATH", "${sourceDir}/build_out"),
                "ENABLE_CROSS_COMPILE": var("BOOL", "False"),
                "CMAKE_CROSS_PLATFORM_COMPILER": var("PATH", "/usr/bin/aarch64-linux-gnu-g++"),
            },
        }],
    }


def emit(ops: Sequence[OpRecord], config: Config) -> dict[str, str]:
    if not ops:
        return {}
    views = [OpView(o.op_type, file_stem(o.op_type), f"{file_stem(o.op_type)}.cpp")
             for o in sorted(ops, key=lambda o: file_stem(o.op_type))]
    banner = banner_text()
    # CMake presets reject unknown top-level keys but allow "vendor": the banner goes there.
    data = {"vendor": {"opgen": banner}, **presets(_socs(ops))}
    text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    return {
        f"{CANN_DIR}/op_host/CMakeLists.txt": render("cann/cmake/op_host_CMakeLists.txt.j2",
                                                     banner=banner, ops=views),
        f"{CANN_DIR}/op_kernel/CMakeLists.txt": render("cann/cmake/op_kernel_CMakeLists.txt.j2",
                                                       banner=banner, ops=views),
        f"{CANN_DIR}/CMakePresets.json": text,
        f"{CANN_DIR}/framework/CMakeLists.txt": render("cann/cmake/framework_CMakeLists.txt.j2",
                                                       banner=banner),
        f"{TF_PLUGIN_DIR}/CMakeLists.txt": render(
            "cann/cmake/tf_plugin_CMakeLists.txt.j2", banner=banner,
            plugins=sorted(plugin_file(v.op_type) for v in views)),
    }
