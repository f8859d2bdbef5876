"""SoC profiles of the simulated Ascend chips: Unified Buffer size and vector core count."""

from __future__ import annotations

from dataclasses import dataclass

from .errors import LaunchError


@dataclass(frozen=True)
class SocProfile:
    """The hardware numbers the simulator enforces and the default tiling plans with."""

    name: str
    ub_bytes: int
    vector_cores: int
    doc: str
    cube_cores: int = 0  # 0: the vector cores are the AI Cores (no separate cube cores)
    # CANN's system workspace (RESERVED_WORKSPACE of the Ascend C headers, what
    # PlatformAscendC::GetLibApiWorkSpaceSize reports)
    system_workspace: int = 16 * 1024 * 1024


SOC_PROFILES: dict[str, SocProfile] = {
    "ascend910b": SocProfile(
        name="ascend910b",
        ub_bytes=192 * 1024,
        vector_cores=48,
        doc="Atlas A2 training (Ascend 910B1): 24 AI Cores, each with 2 AI Vector cores",
        cube_cores=24,
        system_workspace=16 * 1024 * 1024,
    ),
    "ascend310p": SocProfile(
        name="ascend310p",
        ub_bytes=256 * 1024,
        vector_cores=8,
        doc="Atlas inference series (Ascend 310P3): 8 AI Cores",
        cube_cores=8,
        system_workspace=2 * 1024 * 1024,
    ),
}

DEFAULT_SOC = "ascend910b"


def get_soc(soc: str | SocProfile) -> SocProfile:
    """Returns the profile for a SoC name (case-insensitive) or passes a profile through."""
    if isinstance(soc, SocProfile):
        return soc
    try:
        return SOC_PROFILES[soc.lower()]
    except KeyError:
        known = ", ".join(sorted(SOC_PROFILES))
        raise LaunchError(f"unknown SoC '{soc}'; known SoCs: {known}") from None
