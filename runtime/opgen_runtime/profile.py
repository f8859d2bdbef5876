"""Launch profile: per-block counters of a simulated launch and their text table."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

# Order of the per-block counters written by opgen_sim_launch (opgen_sim::Counter).
COUNTER_NAMES: tuple[str, ...] = (
    "gm_to_ub_bytes",
    "ub_to_gm_bytes",
    "vector_instructions",
    "vector_repeats",
    "lanes_used",
    "lanes_total",
    "peak_ub_bytes",
    "time_ns",
)
NUM_COUNTERS = len(COUNTER_NAMES)


@dataclass(frozen=True)
class BlockCounters:
    """What one simulated core did in a launch."""

    block: int
    gm_to_ub_bytes: int
    ub_to_gm_bytes: int
    vector_instructions: int
    vector_repeats: int
    lanes_used: int
    lanes_total: int
    peak_ub_bytes: int
    time_ns: int

    @property
    def lane_utilisation(self) -> float:
        return self.lanes_used / self.lanes_total if self.lanes_total else 0.0


class LaunchProfile:
    """Counters of one launch. Built from the raw counter array; blocks are decoded lazily so
    that a launch pays nothing for a profile nobody reads."""

    __slots__ = ("_blocks", "_raw", "block_dim", "kernel", "soc", "ub_capacity", "wall_ns")

    def __init__(
        self,
        kernel: str,
        soc: str,
        ub_capacity: int,
        block_dim: int,
        raw: Iterable[int],
        wall_ns: int,
    ) -> None:
        self.kernel = kernel
        self.soc = soc
        self.ub_capacity = ub_capacity
        self.block_dim = block_dim
        self.wall_ns = wall_ns
        self._raw = raw
        self._blocks: tuple[BlockCounters, ...] | None = None

    @property
    def blocks(self) -> tuple[BlockCounters, ...]:
        if self._blocks is None:
            raw = list(self._raw)
            n = NUM_COUNTERS
            self._blocks = tuple(
                BlockCounters(b, *raw[b * n : (b + 1) * n]) for b in range(self.block_dim)
            )
        return self._blocks

    def _sum(self, name: str) -> int:
        return sum(getattr(b, name) for b in self.blocks)

    @property
    def gm_to_ub_bytes(self) -> int:
        return self._sum("gm_to_ub_bytes")

    @property
    def ub_to_gm_bytes(self) -> int:
        return self._sum("ub_to_gm_bytes")

    @property
    def vector_instructions(self) -> int:
        return self._sum("vector_instructions")

    @property
    def vector_repeats(self) -> int:
        return self._sum("vector_repeats")

    @property
    def lane_utilisation(self) -> float:
        total = self._sum("lanes_total")
        return self._sum("lanes_used") / total if total else 0.0

    @property
    def peak_ub_bytes(self) -> int:
        return max((b.peak_ub_bytes for b in self.blocks), default=0)

    @property
    def block_times_ns(self) -> tuple[int, ...]:
        return tuple(b.time_ns for b in self.blocks)

    def as_dict(self) -> dict[str, object]:
        return {
            "kernel": self.kernel,
            "soc": self.soc,
            "block_dim": self.block_dim,
            "wall_ns": self.wall_ns,
            "gm_to_ub_bytes": self.gm_to_ub_bytes,
            "ub_to_gm_bytes": self.ub_to_gm_bytes,
            "vector_instructions": self.vector_instructions,
            "vector_repeats": self.vector_repeats,
            "lane_utilisation": self.lane_utilisation,
            "peak_ub_bytes": self.peak_ub_bytes,
            "block_times_ns": list(self.block_times_ns),
        }

    def table(self) -> str:
        """A plain-text table: one row per block and a total row."""
        head = (
            "block",
            "GM->UB B",
            "UB->GM B",
            "vec instr",
            "repeats",
            "lanes %",
            "peak UB B",
            "time us",
        )
        rows: list[tuple[str, ...]] = []
        for b in self.blocks:
            rows.append(
                (
                    str(b.block),
                    str(b.gm_to_ub_bytes),
                    str(b.ub_to_gm_bytes),
                    str(b.vector_instructions),
                    str(b.vector_repeats),
                    f"{100 * b.lane_utilisation:.1f}",
                    str(b.peak_ub_bytes),
                    f"{b.time_ns / 1e3:.1f}",
                )
            )
        rows.append(
            (
                "total",
                str(self.gm_to_ub_bytes),
                str(self.ub_to_gm_bytes),
                str(self.vector_instructions),
                str(self.vector_repeats),
                f"{100 * self.lane_utilisation:.1f}",
                str(self.peak_ub_bytes),
                f"{sum(self.block_times_ns) / 1e3:.1f}",
            )
        )
        widths = [max(len(r[i]) for r in [head, *rows]) for i in range(len(head))]

        def fmt(r: tuple[str, ...]) -> str:
            return "  ".join(c.rjust(w) for c, w in zip(r, widths, strict=True))

        title = (
            f"kernel {self.kernel} on {self.soc} (UB {self.ub_capacity} B), "
            f"blockDim {self.block_dim}, wall {self.wall_ns / 1e3:.1f} us"
        )
        lines = [title, fmt(head), "  ".join("-" * w for w in widths)]
        lines += [fmt(r) for r in rows]
        return "\n".join(lines) + "\n"

    def __repr__(self) -> str:
        return (
            f"LaunchProfile(kernel={self.kernel!r}, block_dim={self.block_dim}, "
            f"gm_to_ub_bytes={self.gm_to_ub_bytes}, ub_to_gm_bytes={self.ub_to_gm_bytes}, "
            f"vector_instructions={self.vector_instructions})"
        )
