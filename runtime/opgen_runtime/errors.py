"""Errors of the NPU simulator: hardware-rule violations, crashes, build and tiling failures."""

from __future__ import annotations

from dataclasses import dataclass


class SimulatorError(Exception):
    """A kernel broke a rule of the simulated Ascend hardware, or could not be run.

    ``kernel``, ``block`` and ``api`` locate the violation (``block`` is -1 when it is not tied to
    one simulated core); ``detail`` is the message without that location prefix.
    """

    def __init__(self, detail: str, *, kernel: str = "", block: int = -1, api: str = "") -> None:
        self.kernel = kernel
        self.block = block
        self.api = api
        self.detail = detail
        where = []
        if kernel:
            where.append(f"kernel '{kernel}'")
        if block >= 0:
            where.append(f"block {block}")
        prefix = ", ".join(where)
        super().__init__(f"{prefix}: {detail}" if prefix else detail)


class UnifiedBufferOverflow(SimulatorError):
    """TPipe::InitBuffer asked for more Unified Buffer than the SoC has."""


class AlignmentError(SimulatorError):
    """A DataCopy length or a UB address is not 32-byte aligned."""


class GlobalMemoryOutOfBounds(SimulatorError):
    """A GlobalTensor access left its SetGlobalBuffer size or the GM buffer passed to the kernel."""


class LocalMemoryOutOfBounds(SimulatorError):
    """A LocalTensor access ran past the tensor's UB buffer."""


class QueueError(SimulatorError):
    """TQue/TBuf discipline: too many live tensors, DeQue on empty, use after FreeTensor..."""


class VectorCountError(SimulatorError):
    """A vector instruction count breaks a repeat rule (e.g. Compare not filling 256 bytes)."""


class KernelAssertError(SimulatorError):
    """An ASSERT in the kernel failed."""


class TilingError(SimulatorError):
    """Tiling data could not be computed, packed, or does not match the kernel's struct."""


class KernelCrash(SimulatorError):
    """A kernel raised a signal: an integer division by zero (SIGFPE), an invalid memory access
    (SIGSEGV/SIGBUS: a null or wild pointer, a raw access past the Unified Buffer), or, in an
    isolated launch, anything that killed the child process (abort...).

    ``signal_name`` names the signal. A fault inside a kernel ends only its block: ``block`` and
    the message (`... at kernel.cpp:LINE`) locate it, and the process goes on.
    """

    def __init__(self, detail: str, *, kernel: str = "", block: int = -1, api: str = "",
                 signal_name: str = "") -> None:
        self.signal_name = signal_name or api
        super().__init__(detail, kernel=kernel, block=block, api=api)


class LaunchTimeout(SimulatorError):
    """A launch ran longer than OPGEN_SIM_TIMEOUT seconds (default 600) and was stopped; the
    message names blockDim and the blocks still running. The process stays usable."""


class BuildError(SimulatorError):
    """g++ failed to compile a kernel, or the library lacks the requested entry.

    ``errors`` holds the compiler's errors, each located in the user's own source (see
    build.compile_errors), so a command line can print them as `file:line:col: error: ...`.
    """

    def __init__(self, detail: str, *, errors: tuple[CompileError, ...] = ()) -> None:
        self.errors = errors
        super().__init__(detail)


@dataclass(frozen=True)
class CompileError:
    """One compiler error: where it is in the user's files, and what the compiler said."""

    path: str
    line: int
    col: int
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.col}: error: {self.message}"


class LaunchError(SimulatorError):
    """The launch arguments do not fit the kernel library (types, counts, blockDim...)."""


# Error kinds reported by the C++ side (opgen_sim::ErrorKind in include/opgen_sim/core.h).
ERROR_KINDS: dict[int, type[SimulatorError]] = {
    1: SimulatorError,
    2: UnifiedBufferOverflow,
    3: AlignmentError,
    4: GlobalMemoryOutOfBounds,
    5: QueueError,
    6: VectorCountError,
    7: LocalMemoryOutOfBounds,
    8: KernelAssertError,
    9: TilingError,
    20: KernelCrash,
    21: LaunchTimeout,
}
# The C side's kind of a launch stopped by SIGINT: re-raised as KeyboardInterrupt.
INTERRUPTED_KIND = 22
