// opgen NPU simulator: deferred work, the simulator's way of not moving data no one reads.
#pragma once

#include <cstring>

#include "core.h"

namespace opgen_sim {

// ---- Deferred work ---------------------------------------------------------------------------
// DataCopy(GM->UB) records the copy instead of moving the data. The element-wise vector
// instructions (Binary/Unary in vector.h) read a source that lies inside one recorded copy
// straight from GM; when all their sources are in GM they are recorded in turn, and a
// DataCopy(UB->GM) of their result computes it straight into GM. FreeTensor drops whatever is
// still recorded in the freed buffer. So the usual CopyIn -> Compute -> CopyOut kernel reads
// each input and writes each output once, as a CPU loop does, instead of moving every byte
// through the Unified Buffer three times. Everything else applies the entries it could observe
// first: LocalTensor::Check (run by every API on its UB operands, and by GetValue/SetValue)
// applies those in the tensor's range, a GM write by the core (DataCopy/DataCopyPad to GM,
// atomics, InitGlobalMemory, GlobalTensor::SetValue) applies those reading the written range,
// and GlobalTensor::GetPhyAddr applies all. Every cross-core call (sync.h) applies all before
// other cores may go on, so a copy holds GM as of its issue whatever another core writes after
// the synchronisation; an API handing out a reference or a raw address stops deferral for the
// block (StopDeferring), and a program whose source stores through raw pointers defers nothing
// (raw_gm_scan.h). UB and GM therefore always read as if every instruction had run when issued;
// the simulator only skips moving data no one reads.
inline bool Overlaps(const uint8_t* a, uint64_t an, const uint8_t* b, uint64_t bn) {
    return a < b + bn && b < a + an;
}

// Does entry i and removes it, moving the last entry into its place (so loops that apply
// entries walk the list downwards).
inline void ApplyPending(Core& c, int32_t i) {
    const Pending p = c.pending[i];
    c.pending[i] = c.pending[--c.npending];
    if (p.eval != nullptr) {
        p.eval(p, p.ub, 0, p.bytes / p.elem);
    } else {
        std::memcpy(p.ub, p.gm, p.bytes);
    }
}

// Whether entry p reads GM [b, b + bytes).
inline bool ReadsGm(const Pending& p, const uint8_t* b, uint64_t bytes) {
    if (p.eval == nullptr) return Overlaps(p.gm, p.bytes, b, bytes);
    return Overlaps(p.src[0], p.src_bytes, b, bytes) ||
           (p.src[1] != nullptr && Overlaps(p.src[1], p.src_bytes, b, bytes));
}

// Applies the entries producing UB [p, p + bytes).
inline void FlushUb(const void* p, uint64_t bytes) {
    Core* c = tls_core;
    if (c == nullptr || c->npending == 0) return;
    const auto* b = static_cast<const uint8_t*>(p);
    for (int32_t i = c->npending - 1; i >= 0; --i) {
        if (Overlaps(c->pending[i].ub, c->pending[i].bytes, b, bytes)) ApplyPending(*c, i);
    }
}

// Applies the entries that read GM [p, p + bytes), before the core writes there.
inline void FlushGm(const void* p, uint64_t bytes) {
    Core* c = tls_core;
    if (c == nullptr || c->npending == 0) return;
    const auto* b = static_cast<const uint8_t*>(p);
    for (int32_t i = c->npending - 1; i >= 0; --i) {
        if (ReadsGm(c->pending[i], b, bytes)) ApplyPending(*c, i);
    }
}

inline void FlushAll() {
    Core* c = tls_core;
    while (c != nullptr && c->npending > 0) ApplyPending(*c, c->npending - 1);
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
// inside it are dropped, entries sticking out of it are applied.
inline void DiscardUb(const void* p, uint64_t bytes) {
    Core* c = tls_core;
    if (c == nullptr || c->npending == 0) return;
    const auto* b = static_cast<const uint8_t*>(p);
    for (int32_t i = c->npending - 1; i >= 0; --i) {
        const Pending& q = c->pending[i];
        if (!Overlaps(q.ub, q.bytes, b, bytes)) continue;
        if (q.ub >= b && q.ub + q.bytes <= b + bytes) {
            c->pending[i] = c->pending[--c->npending];
        } else {
            ApplyPending(*c, i);
        }
    }
}

// Records `entry` (whose UB range was discarded by the caller); false if the list is full.
inline bool Defer(const Pending& entry) {
    Core& c = CurrentCore();
    if (c.npending == kMaxPending || c.raw_gm) return false;
    c.pending[c.npending++] = entry;
    return true;
}

// DataCopy(GM->UB) of `bytes` (already checked): recorded, or done at once if the list is full.
inline void DeferLoad(void* ub, const void* gm, uint64_t bytes) {
    if (bytes == 0) return;
    DiscardUb(ub, bytes);
    Pending e{};
    e.ub = static_cast<uint8_t*>(ub);
    e.bytes = bytes;
    e.gm = static_cast<const uint8_t*>(gm);
    if (!Defer(e)) std::memcpy(ub, gm, bytes);
}

// Where to read n elements of a UB source at p: in GM if they lie inside one deferred copy,
// else in UB (after applying the entries overlapping them).
template <typename T>
inline const T* LazySource(const T* p, uint64_t n) {
    Core* c = tls_core;
    if (c == nullptr || c->npending == 0) return p;
    const auto* b = reinterpret_cast<const uint8_t*>(p);
    const uint64_t bytes = n * sizeof(T);
    for (int32_t i = 0; i < c->npending; ++i) {
        const Pending& q = c->pending[i];
        if (q.eval == nullptr && b >= q.ub && b + bytes <= q.ub + q.bytes) {
            return reinterpret_cast<const T*>(q.gm + (b - q.ub));
        }
    }
    FlushUb(p, bytes);
    return p;
}

// DataCopy(UB->GM) of UB [src, src + bytes) to GM dst (checked, no atomic mode): if a recorded
// instruction produces the whole range, computes it straight into GM and returns true.
inline bool StoreDeferred(uint8_t* dst, const uint8_t* src, uint64_t bytes) {
    Core* c = tls_core;
    if (c == nullptr || c->npending == 0 || c->atomic_op != 0) return false;
    FlushGm(dst, bytes);  // entries reading the GM about to change run first
    for (int32_t i = 0; i < c->npending; ++i) {
        const Pending& q = c->pending[i];
        if (q.eval != nullptr && src >= q.ub && src + bytes <= q.ub + q.bytes &&
            (src - q.ub) % q.elem == 0 && bytes % q.elem == 0) {
            q.eval(q, dst, static_cast<uint64_t>(src - q.ub) / q.elem, bytes / q.elem);
            return true;
        }
    }
    return false;
}

}  // namespace opgen_sim
