// opgen NPU simulator: deferred work, the simulator's way of not moving data no one reads.
#pragma once

#include <cstring>

#include "copy_bytes.h"
#include "core.h"

namespace opgen_sim {

// ---- Deferred work ---------------------------------------------------------------------------
// DataCopy(GM->UB) records the copy instead of moving the data. The element-wise vector
// instructions (Binary/Unary in vector.h) read a source that lies inside one recorded copy
// straight from GM, and are recorded in turn as a program of steps (a Pending entry) when their
// sources are recorded copies, recorded programs of their element type, or UB ranges no entry
// produces (at least one of them recorded): an instruction whose source is a recorded program's
// result appends its step to that program (in place: its dst is the program's range) or to a
// copy of it at its dst (the program stays recorded, for whoever reads its range later). A
// DataCopy(UB->GM) of a program's result computes it straight into GM, the whole chain at once,
// chunk by chunk; FreeTensor drops whatever is still recorded in the freed buffer. So the usual
// CopyIn -> Compute -> CopyOut kernel reads each input and writes each output once, as a CPU loop
// does, however many instructions its Compute issues, instead of moving every byte through the
// Unified Buffer once per instruction. Everything else applies the entries it could observe
// first: LocalTensor::Check (run by every API on its UB operands, and by GetValue/SetValue)
// applies those producing the tensor's range and those reading it (their UB operands must not
// change under them), a GM write by the core (DataCopy/DataCopyPad to GM, atomics,
// InitGlobalMemory, GlobalTensor::SetValue) applies those reading the written range, and
// GlobalTensor::GetPhyAddr applies all. Every cross-core call (sync.h) applies all before
// other cores may go on, so a copy holds GM as of its issue whatever another core writes after
// the synchronisation; an API handing out a reference or a raw address stops deferral for the
// block (StopDeferring), and a program whose source stores through raw pointers defers nothing
// (raw_gm_scan.h). Invariants: the UB ranges of entries never overlap one another, and no entry
// reads a UB range an entry produces (or its own), so entries can be applied in any order. UB
// and GM therefore always read as if every instruction had run when issued; the simulator only
// skips moving data no one reads.
inline bool Overlaps(const uint8_t* a, uint64_t an, const uint8_t* b, uint64_t bn) {
    return a < b + bn && b < a + an;
}

// A program of several steps is evaluated over chunks of this many bytes, each chunk through all
// its steps while it stays in the host's L1 cache. A program of one step runs over its whole
// range in one loop, as a plain loop would (element_add on 1M floats, one thread, AMD EPYC:
// 210 -> 200 us against the 1 KiB chunks).
constexpr uint64_t kChunkBytes = 4096;

// A copy still to be done (not a program).
inline bool IsCopy(const Pending& p) { return p.nsteps == 0 && p.cast.run == nullptr; }

// The bytes of each of a program's operands (its GM source, the steps' other operands).
inline uint64_t OperandBytes(const Pending& p) { return p.in_bytes; }

// Elements [first, first + n) of program p's result into `out`.
inline void EvalProgram(const Pending& p, uint8_t* out, uint64_t first, uint64_t n) {
    if (p.cast.run != nullptr) {  // the chain in in_elem-sized elements, then the conversion
        alignas(64) uint8_t tmp[kChunkBytes];
        const uint64_t chunk = kChunkBytes / (p.in_elem > p.elem ? p.in_elem : p.elem);
        for (uint64_t i = 0; i < n; i += chunk) {
            const uint64_t k = n - i < chunk ? n - i : chunk;
            const uint8_t* x = p.gm + (first + i) * p.in_elem;
            if (p.nsteps > 0) {
                p.steps[0].run(p.steps[0], tmp, x, first + i, k);
                for (int32_t s = 1; s < p.nsteps; ++s) p.steps[s].run(p.steps[s], tmp, tmp, first + i, k);
                x = tmp;
            }
            p.cast.run(p.cast, out + i * p.elem, x, first + i, k);
        }
        return;
    }
    const uint64_t chunk = p.nsteps == 1 ? n : kChunkBytes / p.elem;
    for (uint64_t i = 0; i < n; i += chunk) {
        const uint64_t k = n - i < chunk ? n - i : chunk;
        uint8_t* d = out + i * p.elem;
        p.steps[0].run(p.steps[0], d, p.gm + (first + i) * p.elem, first + i, k);
        for (int32_t s = 1; s < p.nsteps; ++s) p.steps[s].run(p.steps[s], d, d, first + i, k);
    }
}

// Copies entry s into slot d: its fields and the steps it uses (an entry is some 340 bytes, most
// of them unused steps; moving whole entries was 40% of DiscardUb's time on a kernel that
// records a program per row). Every field of Pending (core.h) is copied here.
inline void MoveEntry(Pending& d, const Pending& s) {
    static_assert(sizeof(Pending) == offsetof(Pending, cast) + sizeof(Step),
                  "Pending gained a field after `cast`: copy it in MoveEntry");
    if (&d == &s) return;
    d.ub = s.ub;
    d.bytes = s.bytes;
    d.gm = s.gm;
    d.type = s.type;
    d.elem = s.elem;
    d.nsteps = s.nsteps;
    for (int32_t k = 0; k < s.nsteps; ++k) d.steps[k] = s.steps[k];
    d.in_elem = s.in_elem;
    d.in_bytes = s.in_bytes;
    d.cast = s.cast;
}

// A copy between GM and UB of core c. The last (or only) copy of its instruction (`last`): where
// CopyBytes would prefetch the n bytes after its GM end during the copy, that prefetch is planned
// over the vector instructions to come instead when they are many enough (PlanPrefetch, core.h);
// the copies before it prefetch the next during the copy, as CopyBytes does.
inline void CopyAndPlan(Core& c, void* dst, const void* src, uint64_t n, GmSide gm, bool last = true) {
    bool now = true;
    if (last && gm != GmSide::kStreamedDestination && LoopCopies(n, c.stream_copies)) {
        const bool in = gm == GmSide::kSource;
        const uint8_t* end = static_cast<const uint8_t*>(in ? src : dst) + n;
        now = !PlanPrefetch(c, in ? c.pf_read : c.pf_write, end, n);
    }
    CopyBytes(dst, src, n, c.stream_copies, gm, now);
}

// Does the work of entry q of core c: its copy, or its program into its range.
inline void EvalOrCopy(Core& c, const Pending& q) {
    if (!IsCopy(q)) {
        EvalProgram(q, q.ub, 0, q.bytes / q.elem);
    } else {
        CopyAndPlan(c, q.ub, q.gm, q.bytes, GmSide::kSource);
    }
}
// Does entry i and removes it, moving the last entry into its place (so loops that apply
// entries walk the list downwards).
inline void ApplyPending(Core& c, int32_t i) {
    EvalOrCopy(c, c.pending[i]);
    if (i != c.npending - 1) MoveEntry(c.pending[i], c.pending[c.npending - 1]);
    --c.npending;
}

// Entry e narrowed to its elements [first, first + n): the same work over a part of its range
// (its operands moved by as many elements; a cast program's chain runs in in_elem-sized elements,
// and its final conversion reads no other operand).
inline void Narrow(Pending& e, uint64_t first, uint64_t n) {
    const uint64_t in_off = first * e.in_elem;
    e.ub += first * e.elem;
    e.bytes = n * e.elem;
    e.gm += in_off;
    e.in_bytes = n * e.in_elem;
    for (int32_t s = 0; s < e.nsteps; ++s) {
        if (e.steps[s].other != nullptr) e.steps[s].other += in_off;
    }
}

// Entry i, part of whose range a write of UB [b, b + bytes) is about to cover, keeps the rest: the
// part before b and the part after, each still recorded (the second in a new entry, or done now
// when the list is full); nothing is computed or copied for them until someone reads them. A
// program whose range the write cuts inside an element runs whole now. So a tile shorter than
// the last one in the same buffer (a block's last tile) costs its own bytes, not the earlier
// tile's leftover work, which nobody reads: element_add on 1M floats has 48 blocks of three
// tiles, and each block did 11 KiB of copies twice and 11 KiB of Adds for nothing (through
// torch, four alternating runs: 127-149 -> 107-114 us).
inline void KeepOutside(Core& c, int32_t i, const uint8_t* b, uint64_t bytes) {
    Pending& q = c.pending[i];
    const uint8_t* lo = b > q.ub ? b : q.ub;
    const uint8_t* hi = b + bytes < q.ub + q.bytes ? b + bytes : q.ub + q.bytes;
    const uint64_t head = static_cast<uint64_t>(lo - q.ub);
    const uint64_t tail = static_cast<uint64_t>(q.ub + q.bytes - hi);
    if (head % q.elem != 0 || tail % q.elem != 0) {
        ApplyPending(c, i);
        return;
    }
    const uint64_t total = q.bytes / q.elem;
    if (head > 0 && tail > 0) {
        Pending rest;  // the part after the write
        MoveEntry(rest, q);
        Narrow(rest, total - tail / q.elem, tail / q.elem);
        if (c.npending < kMaxPending) {
            MoveEntry(c.pending[c.npending++], rest);
        } else {
            EvalOrCopy(c, rest);
        }
    }
    if (head > 0) {
        Narrow(q, 0, head / q.elem);
    } else {
        Narrow(q, total - tail / q.elem, tail / q.elem);
    }
}

// Whether entry p reads [b, b + bytes) (GM, or UB: a program's operands may lie in either).
inline bool Reads(const Pending& p, const uint8_t* b, uint64_t bytes) {
    const uint64_t operand = OperandBytes(p);
    if (Overlaps(p.gm, operand, b, bytes)) return true;
    for (int32_t s = 0; s < p.nsteps; ++s) {
        if (p.steps[s].other != nullptr && Overlaps(p.steps[s].other, operand, b, bytes)) return true;
    }
    return false;
}

// Applies the entries producing UB [p, p + bytes), and unless `readers` is false those reading
// it (before an API that may write it runs).
__attribute__((noinline)) inline void FlushUbEntries(Core* c, const void* p, uint64_t bytes, bool readers) {
    const auto* b = static_cast<const uint8_t*>(p);
    for (int32_t i = c->npending - 1; i >= 0; --i) {
        const Pending& q = c->pending[i];
        if (Overlaps(q.ub, q.bytes, b, bytes) || (readers && Reads(q, b, bytes))) {  // (a copy's
            // source is GM: Reads is false for it here, as in DiscardUb)
            ApplyPending(*c, i);
        }
    }
}
// (inline: most calls find nothing recorded, and return before a call)
inline void FlushUb(Core* c, const void* p, uint64_t bytes, bool readers = true) {
    if (c != nullptr && c->npending != 0) FlushUbEntries(c, p, bytes, readers);
}
inline void FlushUb(const void* p, uint64_t bytes, bool readers = true) {
    FlushUb(tls_core, p, bytes, readers);
}

// Applies the entries that read GM [p, p + bytes), before the core writes there.
OPGEN_SIM_OUTLINE void FlushGmOf(Core* c, const void* p, uint64_t bytes)
#if OPGEN_SIM_OUTLINE_BODIES
{
    const auto* b = static_cast<const uint8_t*>(p);
    for (int32_t i = c->npending - 1; i >= 0; --i) {
        if (Reads(c->pending[i], b, bytes)) ApplyPending(*c, i);
    }
}
#else
;
#endif
inline void FlushGm(Core* c, const void* p, uint64_t bytes) {
    if (c != nullptr && c->npending != 0) FlushGmOf(c, p, bytes);
}
inline void FlushGm(const void* p, uint64_t bytes) { FlushGm(tls_core, p, bytes); }
// A scalar access of one GM element (GlobalTensor::GetValue/SetValue/operator()), counted for
// `opgen profile`.
inline void NoteScalarGm() {
    Core* c = tls_core;
    if (c != nullptr && c->detail != nullptr) ++c->detail->scalar_gm;
}

inline void FlushAll() {
    Core* c = tls_core;
    while (c != nullptr && c->npending > 0) ApplyPending(*c, c->npending - 1);
}

// The core's non-temporal stores to GM (CopyStream) made visible to every other thread.
inline void FenceStreamedStores(Core& c) {
    if (!c.stores_unfenced) return;
#if defined(OPGEN_SIM_COPY_LOOP)
    _mm_sfence();
#endif
    c.stores_unfenced = false;
}

// Where another core may go on to read what this one wrote (a cross-core synchronisation):
// everything recorded applied, and the streamed stores fenced.
inline void PublishGm() {
    FlushAll();
    if (tls_core != nullptr) FenceStreamedStores(*tls_core);
}

// A raw GM pointer leaves the simulator's sight (GlobalTensor::address_): everything recorded is
// applied now, and nothing is recorded for the rest of the block, so a store through the pointer,
// whenever it happens, can neither be overwritten by nor hidden from recorded work.
inline void StopDeferring() {
    FlushAll();
    if (tls_core != nullptr) tls_core->raw_gm = true;
}

// The type of GlobalTensor::address_: converts to the element pointer (so `gm.address_ + i`,
// `*gm.address_` and `gm.address_[i]` are raw pointer expressions, as in CANN), stopping the
// deferral first. Trivial, so it shares storage with GlobalTensor's pointer (tensor.h).
template <typename T>
struct RawGmAddress {
    T* p;
    operator T*() const {
        StopDeferring();
        return p;
    }
    RawGmAddress& operator=(T* q) {
        p = q;
        return *this;
    }
};

// UB [p, p + bytes) is about to be overwritten whole, or its data is dead (FreeTensor): entries
// inside it are dropped, entries reading it are applied, and entries sticking out of it have
// their part outside it kept (KeepOutside).
OPGEN_SIM_OUTLINE void DiscardUbOf(Core* c, const void* p, uint64_t bytes)
#if OPGEN_SIM_OUTLINE_BODIES
{
    const auto* b = static_cast<const uint8_t*>(p);
    for (int32_t i = c->npending - 1; i >= 0; --i) {
        const Pending& q = c->pending[i];
        if (q.ub >= b && q.ub + q.bytes <= b + bytes) {
            MoveEntry(c->pending[i], c->pending[--c->npending]);
        } else if (Reads(q, b, bytes)) {  // (a copy's source is GM: Reads is false for it
            // here, without a look at its cast step)
            ApplyPending(*c, i);
        } else if (Overlaps(q.ub, q.bytes, b, bytes)) {  // sticking out: the rest still counts
            KeepOutside(*c, i, b, bytes);
        }
    }
}
#else
;
#endif
// DiscardUbOf on core c (the calling thread's): nothing to do, without a call, when c has no
// entries.
inline void DiscardUb(Core* c, const void* p, uint64_t bytes) {
    if (c != nullptr && c->npending != 0) DiscardUbOf(c, p, bytes);
}

// DataCopy(GM->UB) of `bytes` (already checked): recorded, or done at once if the list is full.
inline void DeferLoad(Core& c, void* ub, const void* gm, uint64_t bytes) {
    if (bytes == 0) return;
    DiscardUb(&c, ub, bytes);
    if (c.npending == kMaxPending || c.raw_gm) {
        CopyAndPlan(c, ub, gm, bytes, GmSide::kSource);
        return;
    }
    Pending& e = c.pending[c.npending++];
    e.ub = static_cast<uint8_t*>(ub);
    e.bytes = bytes;
    e.gm = static_cast<const uint8_t*>(gm);
    e.type = nullptr;
    e.elem = 1;
    e.nsteps = 0;
    e.in_elem = 1;
    e.in_bytes = bytes;
    e.cast.run = nullptr;
}

// Where to read n elements of a UB source at p: in GM if they lie inside one deferred copy,
// else in UB (after applying the entries producing them).
template <typename T>
inline const T* LazySource(Core* c, const T* p, uint64_t n) {
    if (c == nullptr || c->npending == 0) return p;
    const auto* b = reinterpret_cast<const uint8_t*>(p);
    const uint64_t bytes = n * sizeof(T);
    for (int32_t i = 0; i < c->npending; ++i) {
        const Pending& q = c->pending[i];
        if (IsCopy(q) && b >= q.ub && b + bytes <= q.ub + q.bytes) {
            return reinterpret_cast<const T*>(q.gm + (b - q.ub));
        }
    }
    FlushUb(c, p, bytes, false);
    return p;
}

// DataCopy(UB->GM) of UB [src, src + bytes) to GM dst (checked, no atomic mode): if a recorded
// program produces the whole range, computes it straight into GM and returns true.
inline bool StoreDeferred(Core* c, uint8_t* dst, const uint8_t* src, uint64_t bytes) {
    if (c == nullptr || c->npending == 0 || c->atomic_op != 0 || bytes == 0) return false;
    FlushGm(c, dst, bytes);  // entries reading the GM about to change run first
    // The programs covering the range whole, in order: one (a CopyIn -> Compute -> CopyOut
    // tile), or several laid end to end (a tile computed by one instruction per row, say). Each
    // runs straight into its part of GM.
    int32_t order[kMaxPending];
    int32_t n = 0;
    for (const uint8_t* at = src; at < src + bytes;) {
        int32_t found = -1;
        for (int32_t i = 0; i < c->npending; ++i) {
            const Pending& q = c->pending[i];
            if (!IsCopy(q) && at >= q.ub && at < q.ub + q.bytes) {
                found = i;
                break;
            }
        }
        if (found < 0 || n == kMaxPending) return false;
        const Pending& q = c->pending[found];
        const uint8_t* end = std::min<const uint8_t*>(src + bytes, q.ub + q.bytes);
        if ((at - q.ub) % q.elem != 0 || (end - at) % q.elem != 0) return false;
        order[n++] = found;
        at = end;
    }
    const uint8_t* at = src;
    for (int32_t k = 0; k < n; ++k) {
        const Pending& q = c->pending[order[k]];
        const uint8_t* end = std::min<const uint8_t*>(src + bytes, q.ub + q.bytes);
        EvalProgram(q, dst + (at - src), static_cast<uint64_t>(at - q.ub) / q.elem,
                    static_cast<uint64_t>(end - at) / q.elem);
        at = end;
    }
    return true;
}

// ---- Recording element-wise instructions ---------------------------------------------------
// One address per element type, told apart by the programs (a program's result is extended only
// by instructions of its own type; a reinterpreted view applies it).
template <typename T>
inline constexpr char kTypeTag = 0;
template <typename T>
inline const void* TypeTag() { return &kTypeTag<T>; }

// How a step reads its operands (Step::run is chosen by form): x is the running result.
enum StepForm : int { kStepUnary = 0, kStepAccOther, kStepOtherAcc, kStepAccAcc, kStepForms };
using StepRun = void (*)(const Step&, uint8_t*, const uint8_t*, uint64_t, uint64_t);

// Where an element-wise instruction's source [p, p + bytes) stands.
struct SourceAt {
    enum Kind { kUb, kGm, kProgram, kNone } kind = kNone;
    const uint8_t* ptr = nullptr;  // kUb: p; kGm: its copy's GM
    int32_t entry = -1;            // kProgram: the entry producing it
    uint64_t offset = 0;           // kProgram: bytes from the entry's start
};

inline SourceAt Locate(const Core& c, const uint8_t* p, uint64_t bytes, const void* type, uint32_t elem) {
    SourceAt r;
    for (int32_t i = 0; i < c.npending; ++i) {
        const Pending& q = c.pending[i];
        if (!Overlaps(q.ub, q.bytes, p, bytes)) continue;
        if (p < q.ub || p + bytes > q.ub + q.bytes) return r;  // straddles entries: kNone
        if (IsCopy(q)) {
            r.kind = SourceAt::kGm;
            r.ptr = q.gm + (p - q.ub);
        } else if (q.cast.run == nullptr && q.type == type && q.elem == elem &&
                   static_cast<uint64_t>(p - q.ub) % elem == 0) {  // a cast ends its program
            r.kind = SourceAt::kProgram;
            r.entry = i;
            r.offset = static_cast<uint64_t>(p - q.ub);
        }
        return r;
    }
    r.kind = SourceAt::kUb;
    r.ptr = p;
    return r;
}

// A copy of program q taken from `off` bytes into its range on, producing UB [d, d + bytes)
// (its operands moved by the same offset): the program continued at another dst.
inline Pending ContinuedAt(const Pending& q, uint64_t off, uint8_t* d, uint64_t bytes) {
    Pending e = q;
    e.ub = d;
    e.bytes = bytes;
    e.in_bytes = bytes;
    e.gm += off;
    for (int32_t s = 0; s < e.nsteps; ++s) {
        if (e.steps[s].other != nullptr) e.steps[s].other += off;
    }
    return e;
}

// Records the element-wise instruction writing UB [d, d + bytes) from the nsrc (1 or 2) UB
// sources src, each `bytes` long, with lane function fn (fn_size bytes) and runs[form] as its
// step's code; false (nothing changed but entries applied) when it must run now: no source is
// recorded, a source straddles entries or is another type's program, two program sources
// differ, dst partly overlaps a source, overlaps the program it extends without being its whole
// range, or overlaps a UB operand of the program it would join, the program is full, the list
// is full, or deferral is off.
OPGEN_SIM_OUTLINE bool DeferElementwise(Core* c, uint8_t* d, uint64_t bytes, const uint8_t* const* src,
                                         int nsrc, const void* type, uint32_t elem, const StepRun* runs,
                                         const void* fn, size_t fn_size)
#if OPGEN_SIM_OUTLINE_BODIES
{
    if (c == nullptr || c->raw_gm || c->npending == kMaxPending || bytes == 0 || c->npending == 0) {
        return false;
    }
    SourceAt at[2];
    int program = -1;
    bool both = false;
    bool recorded = false;
    for (int k = 0; k < nsrc; ++k) {
        if (src[k] != d && Overlaps(src[k], bytes, d, bytes)) return false;
        at[k] = Locate(*c, src[k], bytes, type, elem);
        if (at[k].kind == SourceAt::kNone) return false;
        if (at[k].kind == SourceAt::kGm) recorded = true;
        if (at[k].kind != SourceAt::kProgram) continue;
        if (program < 0) {
            program = k;
        } else if (at[k].entry == at[program].entry && at[k].offset == at[program].offset) {
            both = true;
        } else {
            return false;
        }
    }
    Step step{};
    std::memcpy(step.fn, fn, fn_size);
    if (program >= 0) {
        Pending& q = c->pending[at[program].entry];
        if (q.nsteps == kMaxSteps) return false;
        const int other = nsrc == 2 && !both ? 1 - program : -1;
        step.run = runs[nsrc == 1 ? kStepUnary : both ? kStepAccAcc : program == 0 ? kStepAccOther : kStepOtherAcc];
        step.other = other >= 0 ? at[other].ptr : nullptr;
        if (other >= 0 && at[other].kind == SourceAt::kUb && Overlaps(step.other, bytes, d, bytes)) return false;
        if (d == q.ub && bytes == q.bytes) {  // in place: the program's range, extended
            q.steps[q.nsteps++] = step;
            return true;
        }
        if (Overlaps(q.ub, q.bytes, d, bytes) || Reads(q, d, bytes)) return false;
        Pending e = ContinuedAt(q, at[program].offset, d, bytes);  // q stays for its readers
        e.steps[e.nsteps++] = step;
        DiscardUb(c, d, bytes);
        MoveEntry(c->pending[c->npending++], e);
        return true;
    }
    if (!recorded) return false;
    for (int k = 0; k < nsrc; ++k) {
        if (at[k].kind == SourceAt::kUb && Overlaps(at[k].ptr, bytes, d, bytes)) return false;
    }
    step.run = runs[nsrc == 1 ? kStepUnary : kStepAccOther];
    step.other = nsrc == 2 ? at[1].ptr : nullptr;
    DiscardUb(c, d, bytes);
    Pending& e = c->pending[c->npending++];
    e.ub = d;
    e.bytes = bytes;
    e.gm = at[0].ptr;
    e.type = type;
    e.elem = elem;
    e.nsteps = 1;
    e.steps[0] = step;
    e.in_elem = elem;
    e.in_bytes = bytes;
    e.cast.run = nullptr;
    return true;
}
#else
;
#endif

// Records Cast writing UB [d, d + bytes) (elements of out_elem bytes) from the UB source src
// (as many elements of in_elem bytes, of type in_type) with `run` (the conversion, its round mode
// in fn) as the program's last step: the source must be a recorded copy, or a recorded program
// of its type that does not end in a cast (the Cast ends it; an instruction reading the result
// applies it); false (nothing changed but entries applied) when it must run now, as for
// DeferElementwise. A DataCopy(UB->GM) of the result then converts straight into GM.
OPGEN_SIM_OUTLINE bool DeferCast(Core* c, uint8_t* d, uint64_t bytes, uint32_t out_elem, const void* out_type,
                                 const uint8_t* src, uint32_t in_elem, const void* in_type, StepRun run,
                                 const void* fn, size_t fn_size)
#if OPGEN_SIM_OUTLINE_BODIES
{
    if (c == nullptr || c->raw_gm || c->npending == kMaxPending || bytes == 0 || c->npending == 0) {
        return false;
    }
    const uint64_t in_bytes = bytes / out_elem * in_elem;
    if (Overlaps(src, in_bytes, d, bytes)) return false;
    const SourceAt at = Locate(*c, src, in_bytes, in_type, in_elem);
    Pending e{};
    if (at.kind == SourceAt::kProgram) {
        const Pending& q = c->pending[at.entry];
        if (Overlaps(q.ub, q.bytes, d, bytes) || Reads(q, d, bytes)) return false;
        e = ContinuedAt(q, at.offset, d, bytes);  // q stays for whoever reads its range
    } else if (at.kind == SourceAt::kGm) {
        e.gm = at.ptr;
        e.nsteps = 0;
    } else {
        return false;
    }
    e.ub = d;
    e.bytes = bytes;
    e.type = out_type;
    e.elem = out_elem;
    e.in_elem = in_elem;
    e.in_bytes = in_bytes;
    e.cast = Step{};
    e.cast.run = run;
    std::memcpy(e.cast.fn, fn, fn_size);
    DiscardUb(c, d, bytes);
    MoveEntry(c->pending[c->npending++], e);
    return true;
}
#else
;
#endif

}  // namespace opgen_sim
