"""`opgen config --toolkit`: a directory shaped like a CANN toolkit install, so that CANN's
kernel-launch samples build their own main.cpp and kernel against the simulator with their
run.sh and CMake files unchanged (`bash run.sh -r cpu -v <SoC> -i "$(opgen config --toolkit)"`).

It holds bin/setenv.bash (names the toolkit and its op packages), the CPU-debug CMake package
(find_package(tikicpulib): a target tikicpulib::<SoC> per SoC and `ascendcl`), CANN's
ascendc_kernel_cmake/ascendc.cmake for `-r npu` / `-r sim` (ascendc_library compiles the kernel
files, <<<>>> launches rewritten, for the simulator, and makes each kernel's
aclrtlaunch_<kernel>.h with its launch function), and the ASC language package of
single-source projects (find_package(ASC), project(... LANGUAGES ASC)). For aclnn drivers it
has runtime/include and atc/include (opgen's headers), stub libraries to link by name, and
opp/ ($ASCEND_OPP_PATH), where `opgen build` installs the project's op package
(opgen.opp_install). It is written once per content into opgen's cache, atomically.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import sys
import tempfile
from pathlib import Path
from string import Template

from opgen.config_flags import CXX_FLAGS, include_dir
from opgen_runtime.build import ARCH_DEFINES, CPU_DEBUG_DEFINES

FORMAT = "opgen-toolkit-v1"
_NPU_OP_CMAKE = Path(__file__).parent / "data" / "npu_op.cmake"
# SoC names CANN's samples accept (run.sh's VERSION_LIST and CMake's SOC_VERSION). The simulator
# models the Unified Buffer of two: Ascend310P* get ascend310p's, every other one ascend910b's.
SOCS: tuple[str, ...] = (
    "Ascend910A", "Ascend910B", "Ascend910ProA", "Ascend910ProB", "Ascend910PremiumA",
    "Ascend910B1", "Ascend910B2", "Ascend910B2C", "Ascend910B3", "Ascend910B4", "Ascend910B4-1",
    "Ascend910_9391", "Ascend910_9381", "Ascend910_9372", "Ascend910_9392", "Ascend910_9382",
    "Ascend910_9362", "Ascend310B1", "Ascend310B2", "Ascend310B3", "Ascend310B4",
    "Ascend310P1", "Ascend310P3", "Ascend310P5", "Ascend310P7",
)

_SETENV = """\
# opgen simulator toolkit: sourced by CANN samples' run.sh. The simulator needs no environment;
# this names the toolkit and its op packages (ASCEND_OPP_PATH), as CANN's setenv does.
export ASCEND_TOOLKIT_HOME="$toolkit"
export ASCEND_HOME_PATH="$toolkit"
export ASCEND_OPP_PATH="$toolkit/opp"
export PATH="$toolkit/bin:$toolkit/compiler/ccec_compiler/bin:$$PATH"
# aclnn drivers load the installed op package's libcust_opapi.so (`opgen build` installs it).
export LD_LIBRARY_PATH="$toolkit/opp/vendors/customize/op_api/lib\
$${LD_LIBRARY_PATH:+:$$LD_LIBRARY_PATH}"
"""

# set_env.sh of single-source projects: find_package(ASC) and find_package(tikicpulib) work.
_SET_ENV = _SETENV + """\
export CMAKE_PREFIX_PATH="$toolkit/lib/cmake:$toolkit/tools/tikicpulib/lib/cmake\\
$${CMAKE_PREFIX_PATH:+:$$CMAKE_PREFIX_PATH}"
"""

# find_package(tikicpulib): header-only simulator targets. _GLIBCXX_USE_CXX11_ABI=0 matches the
# samples' main.cpp flags, so that the kernel library and the driver share one std::string ABI.
_TIKICPULIB = """\
# opgen simulator toolkit: CANN's CPU-debug package. tikicpulib::<SoC> compiles kernels and
# drivers against opgen's simulator headers; `ascendcl` gives host programs acl/acl.h.
include_guard(GLOBAL)
find_package(Threads REQUIRED)
set(tikicpulib_FOUND TRUE)
set(_opgen_include "$include")
set(_opgen_defines $defines _GLIBCXX_USE_CXX11_ABI=0)
# lib64 of this toolkit (tools/tikicpulib/lib/cmake/tikicpulib/ -> lib64): drivers link CANN's
# host libraries by name (-lgraph_base -ltiling_api ...), which are empty stubs here.
get_filename_component(_opgen_lib64 "$${CMAKE_CURRENT_LIST_DIR}/../../../../../lib64" ABSOLUTE)
foreach(_soc $socs)
  if(NOT TARGET tikicpulib::$${_soc})
    add_library(tikicpulib::$${_soc} INTERFACE IMPORTED GLOBAL)
    set(_opgen_soc_defines $${_opgen_defines})
    if(_soc MATCHES "^Ascend310P")
      list(APPEND _opgen_soc_defines OPGEN_SIM_DEFAULT_SOC=ascend310p
           __NPU_ARCH__=2002 __CCE_AICORE__=200)
    elseif(_soc MATCHES "^Ascend910B|^Ascend910_93")
      list(APPEND _opgen_soc_defines $arch)
    endif()
    set_target_properties(tikicpulib::$${_soc} PROPERTIES
      INTERFACE_INCLUDE_DIRECTORIES "$${_opgen_include}"
      INTERFACE_COMPILE_DEFINITIONS "$${_opgen_soc_defines}"
      INTERFACE_COMPILE_OPTIONS "$cxxflags"
      INTERFACE_LINK_DIRECTORIES "$${_opgen_lib64}"
      INTERFACE_LINK_LIBRARIES Threads::Threads)
  endif()
endforeach()
if(NOT TARGET ascendcl)
  add_library(ascendcl INTERFACE IMPORTED GLOBAL)
  set_target_properties(ascendcl PROPERTIES
    INTERFACE_INCLUDE_DIRECTORIES "$${_opgen_include}"
    INTERFACE_LINK_LIBRARIES Threads::Threads)
endif()
"""

# ascendc.cmake of `-r npu` / `-r sim` builds: the kernels of ascendc_library run on the simulator.
_ASCENDC = """\
# opgen simulator toolkit: CANN's ascendc_library for NPU builds of kernel-launch samples. The
# kernel files are compiled for the simulator, their host wrappers' <<<>>> launches rewritten
# and an aclrtlaunch_<kernel> launch function made per kernel (opgen cxx --rewrite); host_intf_pub
# gives main.cpp acl/acl.h. Programs run on the CPU.
include_guard(GLOBAL)
find_package(Threads REQUIRED)
set(_opgen_include "$include")
# lib64 of this toolkit (compiler/tikcpp/ascendc_kernel_cmake/ -> lib64): the samples' host
# programs link CANN's host libraries by name (graph_base, tiling_api, ...), stubs there.
get_filename_component(_opgen_lib64 "$${CMAKE_CURRENT_LIST_DIR}/../../../lib64" ABSOLUTE)
if(NOT TARGET host_intf_pub)
  add_library(host_intf_pub INTERFACE IMPORTED GLOBAL)
  set_target_properties(host_intf_pub PROPERTIES
    INTERFACE_INCLUDE_DIRECTORIES "$${_opgen_include}"
    INTERFACE_LINK_DIRECTORIES "$${_opgen_lib64}"
    INTERFACE_LINK_LIBRARIES Threads::Threads)
endif()
# Each kernel's aclrtlaunch_<kernel>.h goes where CANN puts it, include/<target> of the build
# tree, on the library's interface include path; its definition is in the rewritten source. The
# kernel frontend reads the file with the library's include directories and definitions.
function(ascendc_library target type)
  set(_sources)
  set(_headers "$${CMAKE_BINARY_DIR}/include/$${target}")
  file(MAKE_DIRECTORY "$${_headers}")
  set(_incs "$$<TARGET_PROPERTY:$${target},INCLUDE_DIRECTORIES>")
  set(_defs "$$<TARGET_PROPERTY:$${target},COMPILE_DEFINITIONS>")
  foreach(_src $${ARGN})
    get_filename_component(_abs "$${_src}" ABSOLUTE)
    get_filename_component(_name "$${_src}" NAME_WE)
    set(_out "$${CMAKE_CURRENT_BINARY_DIR}/opgen_asc/$${target}/$${_name}.cpp")
    add_custom_command(OUTPUT "$${_out}"
      COMMAND "$python" -m opgen cxx --rewrite "$${_abs}" -o "$${_out}"
        --aclrtlaunch "$${_headers}"
        "$$<$$<BOOL:$${_incs}>:-I$$<JOIN:$${_incs},;-I>>"
        "$$<$$<BOOL:$${_defs}>:-D$$<JOIN:$${_defs},;-D>>"
      DEPENDS "$${_abs}" VERBATIM COMMAND_EXPAND_LISTS)
    list(APPEND _sources "$${_out}")
    get_filename_component(_dir "$${_abs}" DIRECTORY)
    list(APPEND _dirs "$${_dir}")
  endforeach()
  add_library($${target} $${type} $${_sources})
  target_include_directories($${target} PRIVATE $${_dirs} "$${_opgen_include}")
  target_compile_definitions($${target} PRIVATE _GLIBCXX_USE_CXX11_ABI=0)
  target_compile_options($${target} PRIVATE $cxxflags -O2)
  target_link_libraries($${target} PUBLIC Threads::Threads)
  target_include_directories($${target} INTERFACE "$${_headers}")
  set_target_properties($${target} PROPERTIES POSITION_INDEPENDENT_CODE ON)
  install(TARGETS $${target} LIBRARY DESTINATION lib ARCHIVE DESTINATION lib)
  install(DIRECTORY "$${_headers}/" DESTINATION include/$${target} FILES_MATCHING PATTERN "*.h")
endfunction()
function(ascendc_compile_definitions target)
  target_compile_definitions($${target} $${ARGN})
endfunction()
function(ascendc_compile_options target)
  target_compile_options($${target} $${ARGN})
endfunction()
function(ascendc_include_directories target)
  target_include_directories($${target} $${ARGN})
endfunction()
"""

# find_package(ASC) + project(... LANGUAGES ASC): .asc sources compile with `opgen cxx`.
_ASC_CONFIG = """\
# opgen simulator toolkit: the ASC language of single-source projects. .asc files compile with
# `opgen cxx` (their <<<>>> launches run on the simulator), whatever CMAKE_ASC_RUN_MODE says.
set(ASC_FOUND TRUE)
list(APPEND CMAKE_MODULE_PATH "$${CMAKE_CURRENT_LIST_DIR}/modules")
# CANN 9's op-package functions (npu_op_package ...): opgen npu-op builds the package
include("$${CMAKE_CURRENT_LIST_DIR}/npu_op.cmake")
"""

# `make package` of a TYPE RUN op package (CPack's External generator): the .run installer.
_NPU_OP_RUN = """\
# opgen simulator toolkit: CPack's script for npu_op_package(... TYPE RUN).
execute_process(COMMAND "$${CPACK_OPGEN_NPU_OP}" make-run "$${CPACK_TEMPORARY_DIRECTORY}"
                        "$${CPACK_OPGEN_RUN}" "$${CPACK_OPGEN_VENDOR}" RESULT_VARIABLE result)
if(NOT result EQUAL 0)
  message(FATAL_ERROR "opgen: making $${CPACK_OPGEN_RUN} failed")
endif()
"""

_ASC_DETERMINE = """\
set(CMAKE_ASC_COMPILER "$${CMAKE_CURRENT_LIST_DIR}/../../../../bin/opgen-cxx")
get_filename_component(CMAKE_ASC_COMPILER "$${CMAKE_ASC_COMPILER}" ABSOLUTE)
set(CMAKE_ASC_COMPILER_ID "opgen")
set(CMAKE_ASC_SOURCE_FILE_EXTENSIONS asc)
configure_file("$${CMAKE_CURRENT_LIST_DIR}/CMakeASCCompiler.cmake.in"
  "$${CMAKE_PLATFORM_INFO_DIR}/CMakeASCCompiler.cmake" @ONLY)
set(CMAKE_ASC_COMPILER_ENV_VAR "")
"""

_ASC_COMPILER_IN = """\
set(CMAKE_ASC_COMPILER "@CMAKE_ASC_COMPILER@")
set(CMAKE_ASC_COMPILER_ID "opgen")
set(CMAKE_ASC_COMPILER_LOADED 1)
set(CMAKE_ASC_SOURCE_FILE_EXTENSIONS asc)
set(CMAKE_ASC_OUTPUT_EXTENSION .o)
set(CMAKE_ASC_COMPILER_ENV_VAR "")
set(CMAKE_ASC_LINKER_PREFERENCE 40)
"""

_ASC_INFORMATION = """\
# --npu-arch=... and other NPU compiler options mean nothing to g++: they are dropped.
set(CMAKE_ASC_OUTPUT_EXTENSION .o)
set(CMAKE_INCLUDE_FLAG_ASC "-I")
set(CMAKE_ASC_COMPILE_OBJECT
  "<CMAKE_ASC_COMPILER> <DEFINES> <INCLUDES> <FLAGS> -o <OBJECT> -c <SOURCE>")
# lib64 of this toolkit (lib/cmake/ASC/modules/ -> lib64) is on every ASC link's library path,
# as CANN's ASC package puts its own: the host libraries a program names (tiling_api, register,
# platform, graph_base, ascendcl...) are found there.
get_filename_component(_opgen_asc_lib64 "$${CMAKE_CURRENT_LIST_DIR}/../../../../lib64" ABSOLUTE)
set(CMAKE_ASC_LINK_FLAGS "-L$${_opgen_asc_lib64}")
set(CMAKE_ASC_LINK_EXECUTABLE "<CMAKE_ASC_COMPILER> <FLAGS> <CMAKE_ASC_LINK_FLAGS> <LINK_FLAGS> \\
<OBJECTS> -o <TARGET> <LINK_LIBRARIES>")
set(CMAKE_ASC_CREATE_SHARED_LIBRARY "<CMAKE_ASC_COMPILER> -shared <LANGUAGE_COMPILE_FLAGS> \\
<CMAKE_ASC_LINK_FLAGS> <LINK_FLAGS> <SONAME_FLAG><TARGET_SONAME> -o <TARGET> <OBJECTS> \\
<LINK_LIBRARIES>")
set(CMAKE_SHARED_LIBRARY_ASC_FLAGS "-fPIC")
set(CMAKE_SHARED_LIBRARY_SONAME_ASC_FLAG "-Wl,-soname,")
# a program linked against a shared library of the build tree finds it there when it runs, as
# CMake's own languages arrange (the build tree's RPATH)
set(CMAKE_SHARED_LIBRARY_RUNTIME_ASC_FLAG "-Wl,-rpath,")
set(CMAKE_SHARED_LIBRARY_RUNTIME_ASC_FLAG_SEP ":")
set(CMAKE_SHARED_LIBRARY_RPATH_LINK_ASC_FLAG "-Wl,-rpath-link,")
set(CMAKE_EXECUTABLE_RUNTIME_ASC_FLAG "-Wl,-rpath,")
set(CMAKE_EXECUTABLE_RUNTIME_ASC_FLAG_SEP ":")
set(CMAKE_EXECUTABLE_RPATH_LINK_ASC_FLAG "-Wl,-rpath-link,")
# add_library(... STATIC): an archive of the objects, as for C++
set(CMAKE_ASC_ARCHIVE_CREATE "<CMAKE_AR> qc <TARGET> <LINK_FLAGS> <OBJECTS>")
set(CMAKE_ASC_ARCHIVE_APPEND "<CMAKE_AR> q <TARGET> <LINK_FLAGS> <OBJECTS>")
set(CMAKE_ASC_ARCHIVE_FINISH "<CMAKE_RANLIB> <TARGET>")
set(CMAKE_ASC_INFORMATION_LOADED 1)
"""

_ASC_TEST = """\
set(CMAKE_ASC_COMPILER_WORKS 1 CACHE INTERNAL "")
"""

# The compiler CMake runs for .asc files: `opgen cxx` without the NPU-only options (--sanitizer:
# the NPU compiler's instrumentation for msSanitizer; the simulator checks memory accesses itself).
_OPGEN_CXX = """\
#!/bin/sh
# opgen simulator toolkit: the ASC compiler of CMake projects (opgen cxx, NPU options dropped).
for a in "$$@"; do
  shift
  case "$$a" in
    --npu-arch=*|--cce-*|-arch=*|--sanitizer) ;;
    *) set -- "$$@" "$$a" ;;
  esac
done
exec "$python" -m opgen cxx "$$@"
"""


# The compiler of a program's aclrtcCompileProg (acl/acl_rt_compile.h finds it through
# ASCEND_HOME_PATH, which set_env.sh sets).
_OPGEN_RTC = """\
#!/bin/sh
# opgen simulator toolkit: aclrtc's compiler (opgen rtc-compile DIR OPTION...).
exec "$python" -m opgen rtc-compile "$$@"
"""


# The steps of CANN 9's op-package CMake functions (opgen/npu_op_package.py).
_OPGEN_NPU_OP = """\
#!/bin/sh
# opgen simulator toolkit: the op-package functions' steps (opgen npu-op codegen|build|make-run).
exec "$python" -m opgen npu-op "$$@"
"""


# atc of single-op models (atc --singleop=FILE --output=DIR, opgen/atc.py).
_ATC = """\
#!/bin/sh
# opgen simulator toolkit: atc --singleop=FILE --output=DIR (single-op models for aclopExecuteV2).
exec "$python" -m opgen atc "$$@"
"""


# ccec, the CCE compiler of older samples' CMake (project(... LANGUAGES CCE)): opgen cxx as the
# NPU build compiles, every source's <<<>>> launches rewritten.
_CCEC = """\
#!/bin/sh
# opgen simulator toolkit: ccec for CCE-language CMake projects (opgen cxx --npu-build).
exec "$python" -m opgen cxx --npu-build "$$@"
"""


# The libraries aclnn drivers link by name (-lascendcl -lnnopbase -lacl_op_compiler): the acl
# runtime is header-only here, so each is a linker script that adds nothing; the op's own
# libcust_opapi.so is the one real library (opp/vendors/customize/op_api/lib).
_STUB_LIBRARY = "/* opgen simulator toolkit: header-only on the CPU; nothing to link. */\n"
_STUB_LIBRARIES = ("libascendcl.so", "libnnopbase.so", "libacl_op_compiler.so",
                   "libopapi.so", "libruntime.so",
                   # CPU builds of kernel-launch samples (their tiling is host code opgen's
                   # headers give): graph, tiling, registration, platform and log libraries.
                   "libgraph_base.so", "libtiling_api.so", "libregister.so", "libplatform.so",
                   "libascendalog.so", "libc_sec.so", "libunified_dlog.so",
                   # the acl runtime's split libraries and the profiler, named by newer samples
                   "libacl_rt.so", "libacl_mdl.so", "libacl_op_executor.so", "libmsprofiler.so",
                   # runtime compilation (aclrtc): header-only too, its compiler is bin/opgen-rtc
                   "libacl_rtc.so",
                   # linked by aclnn programs of CANN 9's op packages
                   "librt2_registry.so", "libexe_graph.so", "libopp_registry.so", "libgraph.so",
                   "libmetadef.so", "libmmpa.so")
_STUB_DIRS = ("lib64", "acllib/lib64/stub", "atc/lib64/stub", "runtime/lib64/stub",
              "x86_64-linux/lib64", "aarch64-linux/lib64")
# Include directories the drivers' CMake files name: all are opgen's one include directory.
_INCLUDE_LINKS = ("runtime/include", "atc/include", "include")
OPP_DIR = "opp"  # $ASCEND_OPP_PATH: a link to the op packages' place in the cache


def opp_root() -> Path:
    """Where op packages are installed (<cache>/opp): outside the content-addressed toolkit, so
    an installed package outlives a change of the toolkit's files."""
    from opgen_runtime.build import cache_root

    return cache_root() / "opp"


def _links() -> dict[str, str]:
    """relative path -> symlink target."""
    links = {rel: include_dir().as_posix() for rel in _INCLUDE_LINKS}
    links[OPP_DIR] = opp_root().as_posix()
    return links


# msprof, CANN's profiler, as some samples' run.sh starts their driver: it runs the application
# and writes no profile (the simulator's counters are `opgen profile`'s).
_MSPROF = """\
#!/bin/sh
# opgen simulator toolkit: msprof runs the --application and profiles nothing.
app=""
for a in "$$@"; do
  case "$$a" in
    --application=*) app="$${a#--application=}" ;;
  esac
done
if [ -z "$$app" ]; then
  echo "msprof (opgen simulator toolkit): give --application=PROGRAM" >&2
  exit 2
fi
echo "msprof (opgen simulator toolkit): running $$app; no profile is written" >&2
case "$$app" in
  */*) exec sh -c "$$app" ;;
  *) exec sh -c "./$$app" ;;
esac
"""


def _files() -> dict[str, tuple[str, bool]]:
    """relative path -> (content, executable)."""
    values = {
        "include": include_dir().as_posix(),
        "defines": " ".join(d[2:] for d in CPU_DEBUG_DEFINES),
        "arch": " ".join(d[2:] for d in ARCH_DEFINES),
        "cxxflags": ";".join(CXX_FLAGS),
        "socs": " ".join(SOCS),
        "python": sys.executable,
        "toolkit": '$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)',
    }

    def fill(text: str, **more: str) -> str:
        return Template(text).substitute(values, **more)

    asc = "lib/cmake/ASC"
    return {
        "bin/setenv.bash": (fill(_SETENV), False),
        "set_env.sh": (fill(_SET_ENV, toolkit='$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)'),
                       False),
        "tools/tikicpulib/lib/cmake/tikicpulib/tikicpulib-config.cmake": (fill(_TIKICPULIB), False),
        "compiler/tikcpp/ascendc_kernel_cmake/ascendc.cmake": (fill(_ASCENDC), False),
        f"{asc}/ASCConfig.cmake": (fill(_ASC_CONFIG), False),
        f"{asc}/npu_op.cmake": (_NPU_OP_CMAKE.read_text(encoding="utf-8"), False),
        f"{asc}/npu_op_run.cmake": (fill(_NPU_OP_RUN), False),
        "bin/opgen-npu-op": (fill(_OPGEN_NPU_OP), True),
        "bin/atc": (fill(_ATC), True),
        f"{asc}/modules/CMakeDetermineASCCompiler.cmake": (fill(_ASC_DETERMINE), False),
        f"{asc}/modules/CMakeASCCompiler.cmake.in": (_ASC_COMPILER_IN, False),
        f"{asc}/modules/CMakeASCInformation.cmake": (fill(_ASC_INFORMATION), False),
        f"{asc}/modules/CMakeTestASCCompiler.cmake": (fill(_ASC_TEST), False),
        "bin/opgen-cxx": (fill(_OPGEN_CXX), True),
        "bin/opgen-rtc": (fill(_OPGEN_RTC), True),
        "compiler/ccec_compiler/bin/ccec": (fill(_CCEC), True),
        "bin/msprof": (fill(_MSPROF), True),
        **{f"{d}/{lib}": (_STUB_LIBRARY, False) for d in _STUB_DIRS for lib in _STUB_LIBRARIES},
    }


def toolkit_dir() -> Path:
    """The toolkit directory, materialised on first use (one per content, renamed into place)."""
    from opgen_runtime.build import cache_root  # the runtime owns the cache location

    files = _files()
    links = _links()
    h = hashlib.sha256(FORMAT.encode())
    for rel, (text, executable) in sorted(files.items()):
        h.update(f"{rel}\0{executable}\0{text}\0".encode())
    for rel, target in sorted(links.items()):
        h.update(f"{rel}\0->\0{target}\0".encode())
    dest = cache_root() / f"toolkit-{h.hexdigest()[:16]}"
    if dest.is_dir():
        return dest
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(dir=dest.parent, prefix=".toolkit-"))
    for rel, (text, executable) in files.items():
        path = tmp / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        if executable:
            path.chmod(0o755)
    for empty in ("lib64", "runtime/lib64/stub", "tools/tikicpulib/lib"):
        (tmp / empty).mkdir(parents=True, exist_ok=True)
    opp_root().mkdir(parents=True, exist_ok=True)
    for rel, target in links.items():
        path = tmp / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.symlink_to(target, target_is_directory=True)
    try:
        os.rename(tmp, dest)
    except OSError:  # another process put it in place first: same content
        shutil.rmtree(tmp, ignore_errors=True)
    return dest
