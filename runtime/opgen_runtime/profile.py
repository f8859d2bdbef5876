"""Launch profile: per-block counters of a simulated launch and their text table, and the
advice `opgen profile` gives from a launch's detail (docs/performance.md): vectorise (lanes a
vector API leaves idle), align (GM accesses off 32 bytes) and fuse (launches that pass a buffer
through GM)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from typing import Any
from xml.sax.saxutils import escape as _xml_escape

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

    __slots__ = ("_blocks", "_raw", "block_dim", "detail", "kernel", "soc", "ub_capacity",
                 "wall_ns")

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
        # set by a launch inside profile_session(): per-API lanes, GM accesses, phases
        self.detail: LaunchDetail | None = None

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


# ---- launch detail (opgen_sim/detail.h) --------------------------------------------------------

PHASE_KINDS: tuple[str, ...] = ("copy_in", "vector", "copy_out")
_NOT_DATA = ("workspace", "tiling")  # regions the launcher appends to every launch


@dataclass(frozen=True)
class ApiLanes:
    """Lanes of one vector API at one lane count (lanes per 256-byte repeat) and form."""

    api: str
    lanes: int  # per repeat: 64 for 32-bit, 128 for 16-bit, 256 for 8-bit elements
    masked: bool  # mask/repeat form (else the count form)
    calls: int
    repeats: int
    used: int
    total: int
    worst_used: int  # the call with the lowest utilisation: active lanes,
    worst_total: int  # lanes,
    worst_repeats: int  # and repeats

    @property
    def utilisation(self) -> float:
        return self.used / self.total if self.total else 1.0


@dataclass(frozen=True)
class UnalignedAccess:
    """A DataCopy/DataCopyPad whose GM offset, burst length or stride is off 32 bytes."""

    api: str
    region: str  # the GM argument's name ("?" outside the launch's buffers)
    to_gm: bool
    offset: int  # bytes from the start of the region (the first such access)
    length: int  # bytes of one burst
    stride: int  # bytes between bursts (0: one burst)
    count: int  # accesses like it (same API, region, length, stride, offset mod 32)


@dataclass(frozen=True)
class RegionTraffic:
    """One GM argument of a launch: where it is and the bytes the kernel moved through it."""

    name: str
    address: int
    nbytes: int
    read: int  # GM -> UB bytes
    written: int  # UB -> GM bytes


@dataclass(frozen=True)
class PhaseSpan:
    """A coarse phase of one block: from its first copy (or vector instruction) to the next
    event of another kind, in ns since the launch started."""

    block: int
    kind: str  # copy_in, vector, copy_out
    t0_ns: int
    t1_ns: int


@dataclass
class LaunchDetail:
    apis: list[ApiLanes] = field(default_factory=list)
    unaligned: list[UnalignedAccess] = field(default_factory=list)
    regions: list[RegionTraffic] = field(default_factory=list)
    phases: list[PhaseSpan] = field(default_factory=list)
    dropped_phases: dict[int, int] = field(default_factory=dict)
    scalar_ub: int = 0  # elements the scalar unit read or wrote one at a time in UB
    scalar_gm: int = 0  # and in GM (GetValue/SetValue/operator() of the tensors)

    @classmethod
    def parse(cls, text: str, names: Sequence[str], addresses: Sequence[int],
              sizes: Sequence[int]) -> LaunchDetail:
        """Reads opgen_sim_last_detail's lines; names/addresses/sizes describe the regions."""
        d = cls()

        def name(i: int) -> str:
            return names[i] if 0 <= i < len(names) else "?"

        for line in text.splitlines():
            f = line.split("\t")
            tag = f[0]
            if tag == "scalar" and len(f) == 3:
                d.scalar_ub, d.scalar_gm = int(f[1]), int(f[2])
            elif tag == "api" and len(f) == 11:
                api = f[1].split("<", 1)[0]  # a template's name without its arguments
                d.apis.append(ApiLanes(api, int(f[2]), f[3] == "1", *map(int, f[4:])))
            elif tag == "unaligned" and len(f) == 8:
                d.unaligned.append(UnalignedAccess(f[1], name(int(f[2])), f[3] == "1",
                                                   int(f[4]), int(f[5]), int(f[6]), int(f[7])))
            elif tag == "region" and len(f) == 4:
                i = int(f[1])
                if i < len(names) and addresses[i]:
                    d.regions.append(RegionTraffic(names[i], addresses[i], sizes[i], int(f[2]),
                                                   int(f[3])))
            elif tag == "phase" and len(f) == 5:
                kind = int(f[2])
                d.phases.append(PhaseSpan(int(f[1]), PHASE_KINDS[kind] if 0 <= kind < 3 else "?",
                                          int(f[3]), int(f[4])))
            elif tag == "dropped" and len(f) == 3:
                d.dropped_phases[int(f[1])] = int(f[2])
        return d


# ---- advice -----------------------------------------------------------------------------------

LANE_THRESHOLD = 0.5


@dataclass(frozen=True)
class Advice:
    """One finding: kind is "vectorise", "align" or "fuse"; launches are indices into the
    session's launches."""

    kind: str
    kernel: str
    launches: tuple[int, ...]
    message: str
    data: dict[str, Any]

    def as_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "kernel": self.kernel, "launches": list(self.launches),
                "message": self.message, **self.data}


def _elem_bits(lanes: int) -> int:
    return 256 * 8 // lanes if lanes else 0


# A launch is reported as an element loop on the scalar unit when it reads or writes more
# elements one at a time than it issues vector repeats, and at least this many: one repeat
# processes 256 bytes in about a cycle, a scalar access one element in a cycle or more, so past
# that point the scalar unit, not the vector unit, sets the launch's time.
SCALAR_MIN_ACCESSES = 1024


def scalar_advice(prof: LaunchProfile, index: int = 0) -> list[Advice]:
    """A launch whose tensors are read or written element by element (GetValue/SetValue/
    operator()) more often than it issues vector repeats."""
    detail = prof.detail
    if detail is None:
        return []
    scalar = detail.scalar_ub + detail.scalar_gm
    repeats = prof.vector_repeats
    if scalar < SCALAR_MIN_ACCESSES or scalar <= repeats:
        return []
    where = " and ".join(part for part in (
        f"{detail.scalar_ub} in UB (LocalTensor)" if detail.scalar_ub else "",
        f"{detail.scalar_gm} in GM (GlobalTensor)" if detail.scalar_gm else "") if part)
    msg = (f"{scalar} elements read or written one at a time by GetValue/SetValue/operator() "
           f"({where}) against {repeats} vector repeat{'s' if repeats != 1 else ''}: a loop "
           "over elements runs on the scalar unit, one element per step; copy the data to UB "
           "with DataCopy and process each tile with one vector API call (Add, Muls, Cast, ...) "
           "over its whole count")
    return [Advice("vectorise", prof.kernel, (index,), msg,
                   {"scalar_ub": detail.scalar_ub, "scalar_gm": detail.scalar_gm,
                    "vector_repeats": repeats})]


def vectorise_advice(prof: LaunchProfile, index: int = 0,
                     threshold: float = LANE_THRESHOLD) -> list[Advice]:
    """Element loops on the scalar unit (scalar_advice), then vector APIs whose lanes are used
    below ``threshold``, the worst first."""
    out: list[Advice] = scalar_advice(prof, index)
    detail = prof.detail
    if detail is None:
        return out
    for a in sorted(detail.apis, key=lambda a: a.utilisation):
        if a.total == 0 or a.utilisation >= threshold:
            continue
        bits = _elem_bits(a.lanes)
        if a.masked:
            per_repeat = a.worst_used // a.worst_repeats if a.worst_repeats else a.worst_used
            how = (f"mask of {per_repeat} of {a.lanes} lanes per repeat "
                   f"({a.worst_repeats} repeat{'s' if a.worst_repeats != 1 else ''})")
            fix = (f"widen the mask to {a.lanes} lanes (or use the count form over the whole "
                   "tile) so one instruction covers a full 256-byte repeat")
        else:
            how = (f"count {a.worst_used} fills {a.worst_used} of {a.worst_total} lanes "
                   f"({a.worst_repeats} repeat{'s' if a.worst_repeats != 1 else ''})")
            fix = (f"process whole tiles: a count that is a multiple of {a.lanes} "
                   f"({bits}-bit elements) fills every repeat")
        msg = (f"{a.api} ({bits}-bit, {a.lanes} lanes/repeat) uses {100 * a.utilisation:.1f}% of "
               f"its lanes over {a.calls} call{'s' if a.calls != 1 else ''}: worst call's {how}; "
               f"{fix}")
        out.append(Advice("vectorise", prof.kernel, (index,), msg,
                          {"api": a.api, "lanes_per_repeat": a.lanes, "element_bits": bits,
                           "masked": a.masked, "calls": a.calls, "utilisation": a.utilisation,
                           "worst_active_lanes": a.worst_used, "worst_lanes": a.worst_total,
                           "worst_repeats": a.worst_repeats}))
    return out


def align_advice(prof: LaunchProfile, index: int = 0) -> list[Advice]:
    """GM accesses whose offset, burst length or stride is not a multiple of 32 bytes: one
    finding per API, tensor and direction."""
    out: list[Advice] = []
    if prof.detail is None:
        return out
    groups: dict[tuple[str, str, bool], list[UnalignedAccess]] = {}
    for u in prof.detail.unaligned:
        groups.setdefault((u.api, u.region, u.to_gm), []).append(u)
    for (api, region, to_gm), us in groups.items():
        off = sorted(us, key=lambda u: (u.offset % 32 == 0, u.offset))
        first = off[0]
        count = sum(u.count for u in us)
        lengths = sorted({u.length for u in us})
        strides = sorted({u.stride for u in us if u.stride % 32})
        what = []
        if first.offset % 32:
            what.append(f"byte offset {first.offset} is {first.offset % 32} past a 32-byte "
                        "boundary")
        else:
            what.append(f"first at byte offset {first.offset}")
        odd = [n for n in lengths if n % 32]
        if odd:
            what.append(f"burst length {', '.join(map(str, odd))} B is not a multiple of 32")
        if strides:
            what.append(f"stride {', '.join(map(str, strides))} B is not a multiple of 32")
        verb = "writes" if to_gm else "reads"
        msg = (f"{api} {verb} {region} off 32 bytes ({count} access{'es' if count != 1 else ''}"
               f"): {'; '.join(what)}; pad rows to 32 bytes or tile so that every burst starts "
               "and ends on a 32-byte boundary")
        out.append(Advice("align", prof.kernel, (index,), msg,
                          {"api": api, "tensor": region, "to_gm": to_gm, "offset": first.offset,
                           "offsets": sorted(u.offset for u in us), "lengths": lengths,
                           "strides": sorted({u.stride for u in us}), "count": count}))
    return out


def _data_regions(prof: LaunchProfile) -> list[RegionTraffic]:
    if prof.detail is None:
        return []
    return [r for r in prof.detail.regions if r.name not in _NOT_DATA and r.nbytes > 0]


def _overlap(a: RegionTraffic, b: RegionTraffic) -> bool:
    return a.address < b.address + b.nbytes and b.address < a.address + a.nbytes


def fusion_advice(launches: Sequence[LaunchProfile]) -> list[Advice]:
    """Chains of launches that pass a buffer through GM: launch k writes it, launch k+1 reads
    it, and no other launch of the sequence touches it. Each chain is reported once, with the
    bytes fusion saves (the bytes written to the buffers plus the bytes read back)."""
    regions = [_data_regions(p) for p in launches]
    links: dict[int, list[dict[str, Any]]] = {}
    for k in range(len(launches) - 1):
        for w in regions[k]:
            if w.written == 0:
                continue
            for r in regions[k + 1]:
                if r.read == 0 or r.address != w.address:
                    continue
                elsewhere = any(_overlap(w, o) for j, rs in enumerate(regions)
                                if j not in (k, k + 1) for o in rs)
                if elsewhere:
                    continue
                links.setdefault(k, []).append(
                    {"from_launch": k, "to_launch": k + 1, "output": w.name, "input": r.name,
                     "address": w.address, "nbytes": w.nbytes, "written": w.written,
                     "read_back": r.read, "saved_bytes": w.written + r.read})
    out: list[Advice] = []
    k = 0
    while k < len(launches) - 1:
        if k not in links:
            k += 1
            continue
        start = k
        buffers = []
        while k in links:
            buffers += links[k]
            k += 1
        chain = tuple(range(start, k + 1))
        saved = sum(b["saved_bytes"] for b in buffers)
        names = " -> ".join(f"{launches[i].kernel}#{i}" for i in chain)
        via = ", ".join(f"{b['output']} -> {b['input']} ({b['written']} B written, "
                        f"{b['read_back']} B read back)" for b in buffers)
        msg = (f"{names} pass intermediate results through GM: {via}; fusing the "
               f"{len(chain)} launches into one kernel keeps them in UB and saves {saved} B "
               "of GM traffic")
        out.append(Advice("fuse", launches[start].kernel, chain, msg,
                          {"kernels": [launches[i].kernel for i in chain],
                           "saved_bytes": saved, "buffers": buffers}))
    return out


# A launch that moves at least this many GM bytes per block it uses, on fewer blocks than the
# SoC has vector cores, is reported: each core has its own copy engines and vector unit, so the
# other cores' share of the bandwidth and compute goes unused.
PARALLEL_MIN_BYTES_PER_BLOCK = 1 << 20


def parallelise_advice(prof: LaunchProfile, index: int = 0) -> list[Advice]:
    """A launch on fewer blocks than the SoC's vector cores that moves much data per block."""
    from .soc import SOC_PROFILES

    soc = SOC_PROFILES.get(prof.soc)
    moved = prof.gm_to_ub_bytes + prof.ub_to_gm_bytes
    if soc is None or prof.block_dim >= soc.vector_cores \
            or moved < PARALLEL_MIN_BYTES_PER_BLOCK * prof.block_dim:
        return []
    msg = (f"blockDim {prof.block_dim} runs on {prof.block_dim} of the {soc.vector_cores} vector "
           f"cores of {soc.name} while it moves {moved / (1 << 20):.1f} MiB through GM: split "
           f"the data over up to {soc.vector_cores} blocks (each takes its share by "
           "GetBlockIdx() and GetBlockNum()); every core has its own copy engines and vector "
           "unit")
    return [Advice("parallelise", prof.kernel, (index,), msg,
                   {"block_dim": prof.block_dim, "vector_cores": soc.vector_cores,
                    "gm_bytes": moved})]


def launch_advice(prof: LaunchProfile, index: int = 0,
                  threshold: float = LANE_THRESHOLD) -> list[Advice]:
    return (parallelise_advice(prof, index) + vectorise_advice(prof, index, threshold)
            + align_advice(prof, index))


# ---- sessions ---------------------------------------------------------------------------------


class ProfileSession:
    """The launches made inside ``profile_session()``, with their detail, and their advice.
    The session keeps the launches' arrays alive so that a buffer's address names one buffer
    for the whole sequence."""

    def __init__(self, timeline: bool = False, lane_threshold: float = LANE_THRESHOLD) -> None:
        self.timeline = timeline
        self.lane_threshold = lane_threshold
        self.launches: list[LaunchProfile] = []
        self._keep: list[Any] = []

    def record(self, prof: LaunchProfile, keep: Any = None) -> None:
        self.launches.append(prof)
        if keep is not None:
            self._keep.append(keep)

    def advice(self) -> list[Advice]:
        out: list[Advice] = []
        for i, p in enumerate(self.launches):
            out += launch_advice(p, i, self.lane_threshold)
        return out + fusion_advice(self.launches)

    def report(self) -> str:
        """Each launch's table, then the advice."""
        parts = []
        for i, p in enumerate(self.launches):
            parts.append(f"[launch {i}] " + p.table())
        parts.append(format_advice(self.advice(), self.lane_threshold))
        return "\n".join(parts)

    def as_dict(self) -> dict[str, Any]:
        launches = []
        for p in self.launches:
            d: dict[str, Any] = p.as_dict()
            if p.detail is not None:
                d["apis"] = [asdict(a) | {"utilisation": a.utilisation} for a in p.detail.apis]
                d["unaligned"] = [asdict(u) for u in p.detail.unaligned]
                d["regions"] = [asdict(r) for r in p.detail.regions]
                d["scalar_ub"] = p.detail.scalar_ub
                d["scalar_gm"] = p.detail.scalar_gm
            launches.append(d)
        return {"launches": launches, "lane_threshold": self.lane_threshold,
                "advice": [a.as_dict() for a in self.advice()]}

    def json(self) -> str:
        return json.dumps(self.as_dict(), indent=2)

    def svg(self) -> str:
        return timeline_svg(self.launches)


_SESSIONS: list[ProfileSession] = []
ACTIVE: ProfileSession | None = None  # read by the launcher at every launch


@contextmanager
def profile_session(timeline: bool = False,
                    lane_threshold: float = LANE_THRESHOLD) -> Iterator[ProfileSession]:
    """Records every in-process launch made inside it (opgen_runtime.launch, ops called through
    the registry) with its detail: per-API lane use, unaligned GM accesses, bytes per GM buffer
    and, with ``timeline``, per-block phase spans. ``session.advice()`` then names what to
    vectorise, align and fuse."""
    global ACTIVE
    session = ProfileSession(timeline, lane_threshold)
    _SESSIONS.append(session)
    ACTIVE = session
    try:
        yield session
    finally:
        _SESSIONS.remove(session)
        ACTIVE = _SESSIONS[-1] if _SESSIONS else None


_ADVICE_TITLES = {
    "parallelise": "parallelise (blocks over the vector cores)",
    "vectorise": "vectorise (lanes per instruction)",
    "align": "align (32-byte GM accesses)",
    "fuse": "fuse (GM round trips between launches)",
}


def format_advice(advice: Sequence[Advice], threshold: float = LANE_THRESHOLD) -> str:
    lines = ["advice:"]
    for kind, title in _ADVICE_TITLES.items():
        found = [a for a in advice if a.kind == kind]
        if not found:
            none = {"vectorise": f"every vector API uses >= {100 * threshold:.0f}% of its lanes"
                                 ", no element loop on the scalar unit",
                    "align": "every DataCopy/DataCopyPad GM access is 32-byte aligned",
                    "parallelise": "no launch moves over "
                                   f"{PARALLEL_MIN_BYTES_PER_BLOCK >> 20} MiB a block on fewer "
                                   "blocks than the SoC has vector cores",
                    "fuse": "no buffer passes from one launch to the next only"}[kind]
            lines.append(f"  {title}: ok, {none}")
            continue
        lines.append(f"  {title}:")
        lines += [f"    - [{','.join(map(str, a.launches))}] {a.message}" for a in found]
    return "\n".join(lines) + "\n"


# ---- timeline picture ------------------------------------------------------------------------

_PHASE_COLOURS = {"copy_in": "#4e79a7", "vector": "#59a14f", "copy_out": "#f28e2b", "?": "#999"}


def timeline_svg(launches: Sequence[LaunchProfile], width: int = 960) -> str:
    """One row per block of each launch (in launch order), its phases as coloured bars on the
    launch's own time axis: 0 is the launch's first copy or vector instruction (a first
    launch also pays for starting the simulator's threads), the longest launch fills the
    width."""
    row_h, label_w, top = 18, 150, 28
    rows: list[tuple[int, int, LaunchProfile]] = [
        (i, b, p) for i, p in enumerate(launches) for b in range(p.block_dim)]
    origin = {i: min((s.t0_ns for s in p.detail.phases), default=0) if p.detail else 0
              for i, p in enumerate(launches)}
    span = max((s.t1_ns - origin[i] for i, p in enumerate(launches) if p.detail is not None
                for s in p.detail.phases), default=0) or 1
    scale = (width - label_w - 10) / span
    height = top + row_h * len(rows) + 30
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'font-family="sans-serif" font-size="11">',
           f'<text x="4" y="16">opgen profile timeline: {len(launches)} launch(es), '
           f'full width = {span / 1e3:.1f} us</text>']
    for n, (i, b, p) in enumerate(rows):
        y = top + n * row_h
        out.append(f'<g class="row" data-launch="{i}" data-block="{b}" '
                   f'data-kernel="{_xml_escape(p.kernel)}">')
        out.append(f'<text x="4" y="{y + 12}">{_xml_escape(p.kernel)}#{i} block {b}</text>')
        if p.detail is not None:
            for s in p.detail.phases:
                if s.block != b:
                    continue
                x = label_w + (s.t0_ns - origin[i]) * scale
                w = max((s.t1_ns - s.t0_ns) * scale, 0.5)
                out.append(f'<rect class="{s.kind}" x="{x:.2f}" y="{y + 2}" width="{w:.2f}" '
                           f'height="{row_h - 4}" fill="{_PHASE_COLOURS.get(s.kind, "#999")}">'
                           f'<title>{s.kind} {s.t0_ns - origin[i]}-{s.t1_ns - origin[i]} ns'
                           f'</title></rect>')
        out.append("</g>")
    y = top + row_h * len(rows) + 16
    x = label_w
    for kind in PHASE_KINDS:
        out.append(f'<rect x="{x}" y="{y - 9}" width="10" height="10" '
                   f'fill="{_PHASE_COLOURS[kind]}"/><text x="{x + 14}" y="{y}">{kind}</text>')
        x += 90
    out.append("</svg>")
    return "\n".join(out) + "\n"
