"""`opgen run --profile` and `opgen profile --exec`: the profile of a whole program's launches.

A program built against the simulator (an `opgen run` .asc program, a CMake or run.sh build of
CANN's samples, any driver using ICPU_RUN_KF) launches its kernels itself. With
OPGEN_SIM_PROFILE naming a file, each of its launches runs with `opgen profile`'s launch detail
and appends a record to that file (opgen_sim/icpu.h, IcpuWriteProfile); this module runs the
program with it set and turns the records into a ProfileSession: the same tables and advice as
`opgen profile OP`.
"""

from __future__ import annotations

import os
import signal
import subprocess
import tempfile
from collections.abc import Sequence
from pathlib import Path

from opgen.asc_run import program_env
from opgen_runtime.profile import (
    LANE_THRESHOLD,
    NUM_COUNTERS,
    LaunchDetail,
    LaunchProfile,
    ProfileSession,
)

PROFILE_ENV = "OPGEN_SIM_PROFILE"
TIMELINE_ENV = "OPGEN_SIM_PROFILE_TIMELINE"


class ProfileRecordError(ValueError):
    """A profile file that is not what the simulator writes."""


def parse_records(text: str, session: ProfileSession) -> None:
    """Adds each launch record of `text` (launch, counters, buffer..., detail lines, end) to
    `session`, in the order the program made them."""
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        head = lines[i].split("\t")
        if head[0] != "launch" or len(head) != 7:
            raise ProfileRecordError(f"line {i + 1}: expected a launch record, got {lines[i]!r}")
        kernel, form, soc = head[1], head[2], head[3]
        ub, block_dim, wall = int(head[4]), int(head[5]), int(head[6])
        counters = lines[i + 1].split("\t") if i + 1 < len(lines) else []
        want = block_dim * NUM_COUNTERS
        if not counters or counters[0] != "counters" or len(counters) - 1 != want:
            raise ProfileRecordError(f"line {i + 2}: expected {want} "
                                     f"counters of kernel {kernel!r}")
        names: list[str] = []
        addresses: list[int] = []
        sizes: list[int] = []
        body: list[str] = []
        j = i + 2
        while j < len(lines) and lines[j] != "end":
            f = lines[j].split("\t")
            if f[0] == "buffer" and len(f) == 5:
                names.append(f[4])
                addresses.append(int(f[2]))
                sizes.append(int(f[3]))
            else:
                body.append(lines[j])
            j += 1
        if j == len(lines):
            raise ProfileRecordError(f"the record of kernel {kernel!r} (line {i + 1}) has no end")
        prof = LaunchProfile(f"{kernel} ({form})", soc, ub, block_dim,
                             [int(v) for v in counters[1:]], wall)
        prof.detail = LaunchDetail.parse("\n".join(body), names, addresses, sizes)
        session.record(prof)
        i = j + 1


def profile_program(cmd: Sequence[str], *, timeline: bool = False,
                    lane_threshold: float = LANE_THRESHOLD,
                    cwd: Path | None = None) -> tuple[int, ProfileSession]:
    """Runs `cmd` (its output goes where opgen's goes) with every launch profiled; returns its
    exit status and the session of its launches. A program killed by a signal keeps the
    launches it finished."""
    session = ProfileSession(timeline, lane_threshold)
    fd, name = tempfile.mkstemp(prefix="opgen-profile-", suffix=".txt")
    os.close(fd)
    try:
        env = {**program_env(), PROFILE_ENV: name, TIMELINE_ENV: "1" if timeline else "0"}
        try:
            proc = subprocess.run(list(cmd), env=env, cwd=cwd, check=False)
        except OSError as exc:
            raise ProfileRecordError(f"{cmd[0]}: cannot run it: {exc.strerror}") from None
        parse_records(Path(name).read_text(encoding="utf-8", errors="replace"), session)
    finally:
        os.unlink(name)
    return proc.returncode, session


def exit_note(program: str, code: int) -> str:
    """How the program ended, for the line above its report."""
    if code < 0:
        return f"{program} was killed by {signal.Signals(-code).name}"
    return f"{program} exited with status {code}"
