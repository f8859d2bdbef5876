// opgen NPU simulator: DataCopy and DataCopyPad between Global Memory and the Unified Buffer.
#pragma once

#include "copy_bytes.h"
#include "tensor.h"

namespace AscendC {

constexpr uint16_t DEFAULT_DATA_COPY_NBURST = 1;
constexpr uint16_t DEFAULT_DATA_COPY_STRIDE = 0;

struct DataCopyParams {
    DataCopyParams() {}
    DataCopyParams(const uint16_t count, const uint16_t len, const uint16_t srcStrideIn,
                   const uint16_t dstStrideIn)
        : blockCount(count), blockLen(len), srcStride(srcStrideIn), dstStride(dstStrideIn) {}
    uint16_t blockCount = DEFAULT_DATA_COPY_NBURST;
    uint16_t blockLen = 0;
    uint16_t srcStride = DEFAULT_DATA_COPY_STRIDE;
    uint16_t dstStride = DEFAULT_DATA_COPY_STRIDE;
};

struct DataCopyExtParams {
    DataCopyExtParams() {}
    DataCopyExtParams(const uint16_t count, const uint32_t len, const uint32_t srcStrideIn,
                      const uint32_t dstStrideIn, const uint32_t rsvIn)
        : blockCount(count), blockLen(len), srcStride(srcStrideIn), dstStride(dstStrideIn),
          rsv(rsvIn) {}
    uint16_t blockCount = DEFAULT_DATA_COPY_NBURST;
    uint32_t blockLen = 0;
    uint32_t srcStride = DEFAULT_DATA_COPY_STRIDE;
    uint32_t dstStride = DEFAULT_DATA_COPY_STRIDE;
    uint32_t rsv = 0;
};

struct DataCopyPadParams {
    DataCopyPadParams() {}
    DataCopyPadParams(const bool isPadValue, const uint8_t leftPadValue,
                      const uint8_t rightPadValue, const uint64_t padValue)
        : isPad(isPadValue), leftPadding(leftPadValue), rightPadding(rightPadValue),
          paddingValue(padValue) {}
    bool isPad = false;
    uint8_t leftPadding = 0;
    uint8_t rightPadding = 0;
    uint64_t paddingValue = 0;
};

template <typename T>
struct DataCopyPadExtParams {
    DataCopyPadExtParams() {}
    DataCopyPadExtParams(const bool isPadValue, const uint8_t leftPadValue,
                         const uint8_t rightPadValue, T padValue)
        : isPad(isPadValue), leftPadding(leftPadValue), rightPadding(rightPadValue),
          paddingValue(padValue) {}
    bool isPad = false;
    uint8_t leftPadding = 0;
    uint8_t rightPadding = 0;
    T paddingValue = 0;
};

// ND -> NZ copies (GM or UB to L1, the cube core's input buffer): the parameters, with the A2/A3
// field widths; the copy itself is opgen_sim/cube.h's.
struct Nd2NzParams {
    Nd2NzParams() {}
    Nd2NzParams(const uint16_t ndNumIn, const uint16_t nValueIn, const uint16_t dValueIn,
                const uint16_t srcNdMatrixStrideIn, const uint16_t srcDValueIn,
                const uint16_t dstNzC0StrideIn, const uint16_t dstNzNStrideIn,
                const uint16_t dstNzMatrixStrideIn)
        : ndNum(ndNumIn), nValue(nValueIn), dValue(dValueIn),
          srcNdMatrixStride(srcNdMatrixStrideIn), srcDValue(srcDValueIn),
          dstNzC0Stride(dstNzC0StrideIn), dstNzNStride(dstNzNStrideIn),
          dstNzMatrixStride(dstNzMatrixStrideIn) {}
    uint16_t ndNum = 0;
    uint16_t nValue = 0;
    uint16_t dValue = 0;
    uint16_t srcNdMatrixStride = 0;
    uint16_t srcDValue = 0;
    uint16_t dstNzC0Stride = 0;
    uint16_t dstNzNStride = 0;
    uint16_t dstNzMatrixStride = 0;
};

enum class PaddingMode : uint8_t { Normal = 0, Compact };

}  // namespace AscendC

namespace opgen_sim {

[[noreturn]] OPGEN_SIM_OUTLINE void FailUbUnaligned(uint64_t ub_offset, const char* api, const char* what)
#if OPGEN_SIM_OUTLINE_BODIES
{
    Fail(ErrorKind::Alignment, api,
         std::string(what) + " LocalTensor starts at UB offset " + Str(ub_offset) +
             ", which is not 32-byte aligned (offset % 32 = " + Str(ub_offset % 32) +
             "); UB operands must start on a 32-byte boundary");
}
#else
;
#endif

// The tensor's start on a 32-byte boundary of UB (its liveness checked first).
template <typename T>
inline void CheckUbStart(const Core* c, const AscendC::LocalTensor<T>& t, const char* api,
                         const char* what) {
    if ((reinterpret_cast<uintptr_t>(t.ptr_) & (kBlockBytes - 1)) != 0) {
        FailUbUnaligned(t.UbOffset(c), api, what);
    }
}
// CheckUbAligned without applying deferred work, on the calling thread's core `c`.
template <typename T>
inline void CheckUbAlignedLive(const Core* c, const AscendC::LocalTensor<T>& t, const char* api,
                               const char* what) {
    t.CheckLive(api, c);
    CheckUbStart(c, t, api, what);
}
// CheckUbAligned on the calling thread's core `c`, applying the deferred work in the tensor.
template <typename T>
inline void CheckUbAlignedOn(Core* c, const AscendC::LocalTensor<T>& t, const char* api,
                             const char* what) {
    t.Check(api, c);
    CheckUbStart(c, t, api, what);
}

template <typename T>
inline void CheckUbAligned(const AscendC::LocalTensor<T>& t, const char* api, const char* what,
                           bool apply_pending = true) {
    Core* c = tls_core;
    if (apply_pending) {
        CheckUbAlignedOn(c, t, api, what);
    } else {
        CheckUbAlignedLive(c, t, api, what);
    }
}

[[noreturn]] OPGEN_SIM_OUTLINE void FailUbExtent(uint64_t bytes, uint64_t size, uint32_t elem,
                                                 const char* type_name, const char* api,
                                                 const char* what)
#if OPGEN_SIM_OUTLINE_BODIES
{
    Fail(ErrorKind::LocalMemoryOutOfBounds, api,
         std::string(what) + " access of " + Str(bytes) + " bytes overruns the LocalTensor<" +
             type_name + "> of " + Str(size) + " elements (" + Str(size * elem) + " bytes)");
}
#else
;
#endif

template <typename T>
inline void CheckUbExtent(const AscendC::LocalTensor<T>& t, uint64_t bytes, const char* api,
                          const char* what) {
    if (bytes > static_cast<uint64_t>(t.size_) * sizeof(T)) {
        FailUbExtent(bytes, t.size_, sizeof(T), TypeName<T>(), api, what);
    }
}

[[noreturn]] OPGEN_SIM_OUTLINE void FailDataCopyLength(uint64_t count, uint32_t elem,
                                                       const char* type_name, const char* api)
#if OPGEN_SIM_OUTLINE_BODIES
{
    const uint64_t bytes = count * elem;
    Fail(ErrorKind::Alignment, api,
         "DataCopy of " + Str(count) + " x " + type_name + " = " + Str(bytes) +
             " bytes is not a multiple of 32 bytes; the hardware silently copies only " +
             Str(bytes / kBlockBytes * kBlockBytes) +
             " bytes. Use DataCopyPad for unaligned lengths (or launch with "
             "strict_datacopy=False to simulate the hardware's rounding)");
}
#else
;
#endif

// Length rule of DataCopy: the hardware moves whole 32-byte blocks and rounds down silently.
template <typename T>
inline uint64_t DataCopyBytes(uint32_t count, const char* api) {
    const uint64_t bytes = static_cast<uint64_t>(count) * sizeof(T);
    if (bytes % kBlockBytes == 0) return bytes;
    if (CurrentCore().strict_datacopy) FailDataCopyLength(count, sizeof(T), TypeName<T>(), api);
    return bytes / kBlockBytes * kBlockBytes;
}

// Read-modify-write of one GM element as a single atomic step (CAS on its bits), so blocks on
// concurrent threads that SetAtomicAdd into overlapping GM never lose an update.
template <typename T, typename Op>
inline void AtomicUpdate(T* addr, T v, Op op) {
    using U = std::conditional_t<sizeof(T) == 1, uint8_t,
              std::conditional_t<sizeof(T) == 2, uint16_t,
              std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>>>;
    static_assert(sizeof(U) == sizeof(T), "atomic element size");
    U* p = reinterpret_cast<U*>(addr);
    U old = __atomic_load_n(p, __ATOMIC_RELAXED);
    for (;;) {
        T cur;
        std::memcpy(static_cast<void*>(&cur), &old, sizeof(T));  // (T may be a class: half, bfloat16_t)
        using A = std::conditional_t<std::is_same_v<T, half> || std::is_same_v<T, bfloat16_t>,
                                     float, T>;
        const T next = static_cast<T>(op(static_cast<A>(cur), static_cast<A>(v)));
        U bits;
        std::memcpy(&bits, &next, sizeof(T));
        if (__atomic_compare_exchange_n(p, &old, bits, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
            return;
        }
    }
}

[[noreturn]] OPGEN_SIM_OUTLINE void FailAtomicType(const char* set, const char* moved, const char* api)
#if OPGEN_SIM_OUTLINE_BODIES
{
    Fail(ErrorKind::Generic, api,
         std::string("the atomic mode was set for ") + set + " (SetAtomic...<" + set +
             ">) but this copy moves " + moved +
             "; set the atomic type of the data copied, or SetAtomicNone()");
}
#else
;
#endif

// Stores n elements to GM, applying the core's atomic mode (SetAtomicAdd<T>...) if one is set.
// `last`: the instruction's last (or only) store, whose next lines may be planned (CopyAndPlan).
template <typename T>
inline void GmStore(Core& c, T* dst, const T* src, uint64_t n, const char* api, bool last = true) {
    FlushGm(&c, dst, n * sizeof(T));
    if (c.atomic_op == kAtomicNone) {
        CopyAndPlan(c, dst, src, n * sizeof(T),
                    c.stream_stores ? GmSide::kStreamedDestination : GmSide::kDestination, last);
        c.stores_unfenced |= c.stream_stores;
        return;
    }
    if (std::strcmp(c.atomic_type, TypeName<T>()) != 0) FailAtomicType(c.atomic_type, TypeName<T>(), api);
    if constexpr (std::is_same_v<T, double> || sizeof(T) > 8) {
        Fail(ErrorKind::Generic, api, std::string("atomic copies of ") + TypeName<T>() +
                                          " are not supported");
    } else {
        switch (c.atomic_op) {
            case kAtomicAdd:
                for (uint64_t i = 0; i < n; ++i) AtomicUpdate(dst + i, src[i], [](auto a, auto b) { return a + b; });
                break;
            case kAtomicMax:
                for (uint64_t i = 0; i < n; ++i) AtomicUpdate(dst + i, src[i], [](auto a, auto b) { return a > b ? a : b; });
                break;
            default:
                for (uint64_t i = 0; i < n; ++i) AtomicUpdate(dst + i, src[i], [](auto a, auto b) { return a < b ? a : b; });
                break;
        }
    }
}
template <typename T>
inline void GmStore(T* dst, const T* src, uint64_t n, const char* api) {
    GmStore(CurrentCore(), dst, src, n, api);
}

// Launch detail (detail.h): the GM bytes per region and the unaligned accesses of a copy.
inline void NoteGmCopy(const Core& c, const char* api, const void* gm, uint64_t len, uint64_t count,
                       uint64_t stride, bool to_gm) {
    if (c.detail != nullptr) {
        NoteGm(*c.detail, c.regions, c.num_regions, api, gm, len, count, stride, to_gm);
    }
}
inline void NoteGmCopy(const char* api, const void* gm, uint64_t len, uint64_t count,
                       uint64_t stride, bool to_gm) {
    NoteGmCopy(CurrentCore(), api, gm, len, count, stride, to_gm);
}

template <typename T>
inline void SetAtomic(int32_t op) {
    Core& c = CurrentCore();
    c.atomic_op = op;
    c.atomic_type = TypeName<T>();
}

}  // namespace opgen_sim

namespace AscendC {

// ---- atomic mode of copies to GM -----------------------------------------------------------
template <typename T>
inline void SetAtomicAdd() { opgen_sim::SetAtomic<T>(opgen_sim::kAtomicAdd); }
template <typename T>
inline void SetAtomicMax() { opgen_sim::SetAtomic<T>(opgen_sim::kAtomicMax); }
template <typename T>
inline void SetAtomicMin() { opgen_sim::SetAtomic<T>(opgen_sim::kAtomicMin); }
template <typename T>
inline void SetAtomicType() { opgen_sim::CurrentCore().atomic_type = opgen_sim::TypeName<T>(); }
inline void SetAtomicNone() {
    opgen_sim::Core& c = opgen_sim::CurrentCore();
    c.atomic_op = opgen_sim::kAtomicNone;
    c.atomic_type = nullptr;
}
inline void DisableDmaAtomic() { SetAtomicNone(); }

// InitGlobalMemory: fills `size` elements of GM from the tensor's address with `value` (0 when
// left out, as in CANN's older two-argument form). `Fill` is its current name and `InitOutput`
// the deprecated one; all three share one implementation and CANN's check that `size` does not
// exceed the GlobalTensor's size (when SetGlobalBuffer was given one).
}  // namespace AscendC

namespace opgen_sim {
template <typename T>
inline void FillGm(const char* api, const AscendC::GlobalTensor<T>& gm, uint64_t size, T value) {
    const bool known = gm.base_size_ != std::numeric_limits<uint64_t>::max();
    if (known && gm.ptr_ != nullptr && size > gm.GetSize()) {
        Fail(ErrorKind::GlobalMemoryOutOfBounds, api,
             "size " + Str(size) + " exceeds the GlobalTensor<" + std::string(TypeName<T>()) + "> of " +
                 Str(gm.GetSize()) + " elements (from SetGlobalBuffer)");
    }
    gm.CheckRange(size, api);
    T* d = gm.ptr_;
    FlushGm(d, size * sizeof(T));
    for (uint64_t i = 0; i < size; ++i) d[i] = value;
    CurrentCore().counters[kUbToGmBytes] += static_cast<int64_t>(size * sizeof(T));
}
}  // namespace opgen_sim

namespace AscendC {

template <typename T>
inline void InitGlobalMemory(GlobalTensor<T>& gmWorkspaceAddr, const uint64_t size,
                             const typename opgen_sim::Id<T>::type value = 0) {
    opgen_sim::FillGm<T>("InitGlobalMemory", gmWorkspaceAddr, size, static_cast<T>(value));
}
template <typename T>
inline void Fill(GlobalTensor<T>& gmWorkspaceAddr, const uint64_t size,
                 const typename opgen_sim::Id<T>::type value) {
    opgen_sim::FillGm<T>("Fill", gmWorkspaceAddr, size, static_cast<T>(value));
}
template <typename T>
inline void InitOutput(GlobalTensor<T> gmWorkspaceAddr, uint32_t size,
                       const typename opgen_sim::Id<T>::type value = 0) {
    opgen_sim::FillGm<T>("InitOutput", gmWorkspaceAddr, size, static_cast<T>(value));
}

// ---- DataCopy, contiguous ------------------------------------------------------------------
template <typename T>
OPGEN_SIM_API void DataCopy(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const uint32_t count) {
    constexpr const char* api = "DataCopy(GM->UB)";
    opgen_sim::Core& core = opgen_sim::CurrentCore();
    opgen_sim::CheckUbAlignedLive(&core, dst, api, "destination");
    const uint64_t bytes = opgen_sim::DataCopyBytes<T>(count, api);
    opgen_sim::CheckUbExtent(dst, bytes, api, "destination");
    src.CheckRange(core, bytes / sizeof(T), api);
    opgen_sim::DeferLoad(core, dst.ptr_, src.ptr_, bytes);
    core.counters[opgen_sim::kGmToUbBytes] += static_cast<int64_t>(bytes);
    opgen_sim::NoteGmCopy(core, api, src.ptr_, bytes, 1, 0, false);
}

template <typename T>
OPGEN_SIM_API void DataCopy(const GlobalTensor<T>& dst, const LocalTensor<T>& src, const uint32_t count) {
    constexpr const char* api = "DataCopy(UB->GM)";
    opgen_sim::Core& core = opgen_sim::CurrentCore();
    opgen_sim::CheckUbAlignedLive(&core, src, api, "source");
    const uint64_t bytes = opgen_sim::DataCopyBytes<T>(count, api);
    opgen_sim::CheckUbExtent(src, bytes, api, "source");
    dst.CheckRange(core, bytes / sizeof(T), api);
    if (!opgen_sim::StoreDeferred(&core, reinterpret_cast<uint8_t*>(dst.ptr_),
                                  reinterpret_cast<const uint8_t*>(src.ptr_), bytes)) {
        opgen_sim::FlushUb(&core, src.ptr_, static_cast<uint64_t>(src.size_) * sizeof(T));
        opgen_sim::GmStore(core, dst.ptr_, src.ptr_, bytes / sizeof(T), api);
    }
    core.counters[opgen_sim::kUbToGmBytes] += static_cast<int64_t>(bytes);
    opgen_sim::NoteGmCopy(core, api, dst.ptr_, bytes, 1, 0, true);
}

template <typename T>
OPGEN_SIM_API void DataCopy(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint32_t count) {
    constexpr const char* api = "DataCopy(UB->UB)";
    opgen_sim::CheckUbAligned(dst, api, "destination");
    opgen_sim::CheckUbAligned(src, api, "source");
    const uint64_t bytes = opgen_sim::DataCopyBytes<T>(count, api);
    opgen_sim::CheckUbExtent(dst, bytes, api, "destination");
    opgen_sim::CheckUbExtent(src, bytes, api, "source");
    std::memmove(dst.ptr_, src.ptr_, bytes);
}

// ---- DataCopy with DataCopyParams: blockCount bursts of blockLen 32-byte blocks ------------
template <typename T>
OPGEN_SIM_API void DataCopy(const LocalTensor<T>& dst, const GlobalTensor<T>& src,
                     const DataCopyParams& p) {
    constexpr const char* api = "DataCopy(GM->UB, DataCopyParams)";
    opgen_sim::CheckUbAligned(dst, api, "destination");
    const uint64_t len = static_cast<uint64_t>(p.blockLen) * 32;
    const uint64_t sstep = len + static_cast<uint64_t>(p.srcStride) * 32;
    const uint64_t dstep = len + static_cast<uint64_t>(p.dstStride) * 32;
    if (p.blockCount == 0) return;
    opgen_sim::CheckUbExtent(dst, (p.blockCount - 1) * dstep + len, api, "destination");
    src.CheckRange(((p.blockCount - 1) * sstep + len) / sizeof(T), api);
    const uint8_t* s = reinterpret_cast<const uint8_t*>(src.ptr_);
    uint8_t* d = reinterpret_cast<uint8_t*>(dst.ptr_);
    opgen_sim::Core& c = opgen_sim::CurrentCore();
    for (uint16_t i = 0; i < p.blockCount; ++i) {
        opgen_sim::CopyAndPlan(c, d + i * dstep, s + i * sstep, len, opgen_sim::GmSide::kSource,
                               i + 1 == p.blockCount);
    }
    c.counters[opgen_sim::kGmToUbBytes] +=
        static_cast<int64_t>(len * p.blockCount);
    opgen_sim::NoteGmCopy(api, src.ptr_, len, p.blockCount, sstep, false);
}

template <typename T>
OPGEN_SIM_API void DataCopy(const GlobalTensor<T>& dst, const LocalTensor<T>& src,
                     const DataCopyParams& p) {
    constexpr const char* api = "DataCopy(UB->GM, DataCopyParams)";
    opgen_sim::CheckUbAligned(src, api, "source");
    const uint64_t len = static_cast<uint64_t>(p.blockLen) * 32;
    const uint64_t sstep = len + static_cast<uint64_t>(p.srcStride) * 32;
    const uint64_t dstep = len + static_cast<uint64_t>(p.dstStride) * 32;
    if (p.blockCount == 0) return;
    opgen_sim::CheckUbExtent(src, (p.blockCount - 1) * sstep + len, api, "source");
    dst.CheckRange(((p.blockCount - 1) * dstep + len) / sizeof(T), api);
    const uint8_t* s = reinterpret_cast<const uint8_t*>(src.ptr_);
    uint8_t* d = reinterpret_cast<uint8_t*>(dst.ptr_);
    opgen_sim::Core& c = opgen_sim::CurrentCore();
    for (uint16_t i = 0; i < p.blockCount; ++i) {
        opgen_sim::GmStore(c, reinterpret_cast<T*>(d + i * dstep),
                           reinterpret_cast<const T*>(s + i * sstep), len / sizeof(T), api,
                           i + 1 == p.blockCount);
    }
    c.counters[opgen_sim::kUbToGmBytes] += static_cast<int64_t>(len * p.blockCount);
    opgen_sim::NoteGmCopy(api, dst.ptr_, len, p.blockCount, dstep, true);
}

}  // namespace AscendC
namespace opgen_sim::cube {
// The cube memories' local moves (L1 -> bias table), cube_more.h: true when it took the call.
template <typename T>
bool CubeLocalCopy(const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& src,
                   const AscendC::DataCopyParams& p);
}  // namespace opgen_sim::cube
namespace AscendC {

template <typename T>
inline void DataCopy(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                     const DataCopyParams& p) {
    constexpr const char* api = "DataCopy(UB->UB, DataCopyParams)";
    if (opgen_sim::cube::CubeLocalCopy(dst, src, p)) return;
    opgen_sim::CheckUbAligned(dst, api, "destination");
    opgen_sim::CheckUbAligned(src, api, "source");
    const uint64_t len = static_cast<uint64_t>(p.blockLen) * 32;
    const uint64_t sstep = len + static_cast<uint64_t>(p.srcStride) * 32;
    const uint64_t dstep = len + static_cast<uint64_t>(p.dstStride) * 32;
    if (p.blockCount == 0) return;
    opgen_sim::CheckUbExtent(src, (p.blockCount - 1) * sstep + len, api, "source");
    opgen_sim::CheckUbExtent(dst, (p.blockCount - 1) * dstep + len, api, "destination");
    const uint8_t* s = reinterpret_cast<const uint8_t*>(src.ptr_);
    uint8_t* d = reinterpret_cast<uint8_t*>(dst.ptr_);
    for (uint16_t i = 0; i < p.blockCount; ++i) std::memmove(d + i * dstep, s + i * sstep, len);
}

// ---- DataCopyPad: byte-exact bursts; each burst occupies whole 32-byte blocks in UB ---------
// What DataCopyPad(GM->UB) puts around each block's data (reference "DataCopyPad", GM->UB,
// DataCopyPadExtParams, and "SetPadValue(ISASI)"): leftPadding elements before it and
// rightPadding after it, whatever isPad says, then dummy elements up to the next 32 bytes. They
// hold paddingValue with isPad; with isPad false, the value of SetPadValue once it was called in
// this block; else, with no left or right padding, the dummy elements repeat the block's first
// element; else they are unspecified (the simulator leaves the Unified Buffer's bytes).
template <typename T, TPosition pos = TPosition::MAX>
inline void SetPadValue(T paddingValue) {
    opgen_sim::Core& c = opgen_sim::CurrentCore();
    c.pad_bits = 0;
    std::memcpy(&c.pad_bits, &paddingValue, sizeof(T) < 8 ? sizeof(T) : 8);
    c.pad_set = true;
}

namespace copy_pad_detail {
// The fill of a block's padding (see SetPadValue), or false where it is unspecified.
template <typename T>
inline bool Fill(const opgen_sim::Core& c, const DataCopyPadExtParams<T>& pad, const T& first, T* value) {
    if (pad.isPad) {
        *value = pad.paddingValue;
        return true;
    }
    if (c.pad_set) {
        std::memcpy(value, &c.pad_bits, sizeof(T) < 8 ? sizeof(T) : 8);
        return true;
    }
    if (pad.leftPadding == 0 && pad.rightPadding == 0) {
        *value = first;
        return true;
    }
    return false;
}
}  // namespace copy_pad_detail

template <typename T, PaddingMode mode = PaddingMode::Normal>
OPGEN_SIM_API void DataCopyPad(const LocalTensor<T>& dst, const GlobalTensor<T>& src,
                        const DataCopyExtParams& p, const DataCopyPadExtParams<T>& pad) {
    constexpr const char* api = "DataCopyPad(GM->UB)";
    opgen_sim::Core& core = opgen_sim::CurrentCore();
    opgen_sim::CheckUbAlignedOn(&core, dst, api, "destination");
    if (p.blockLen % sizeof(T) != 0) {
        opgen_sim::Fail(opgen_sim::ErrorKind::Alignment, api,
                        "blockLen " + opgen_sim::Str(p.blockLen) +
                            " bytes is not a whole number of " + opgen_sim::TypeName<T>() +
                            " elements");
    }
    if (p.blockCount == 0 || p.blockLen == 0) return;
    const uint64_t left = pad.leftPadding * sizeof(T);
    const uint64_t right = pad.rightPadding * sizeof(T);
    const uint64_t row = opgen_sim::RoundUp(left + p.blockLen + right, 32);
    const uint64_t dstep = row + static_cast<uint64_t>(p.dstStride) * 32;
    const uint64_t sstep = static_cast<uint64_t>(p.blockLen) + p.srcStride;
    opgen_sim::CheckUbExtent(dst, (p.blockCount - 1) * dstep + row, api, "destination");
    src.CheckRange(core, ((p.blockCount - 1) * sstep + p.blockLen) / sizeof(T), api);
    const uint8_t* s = reinterpret_cast<const uint8_t*>(src.ptr_);
    for (uint16_t i = 0; i < p.blockCount; ++i) {
        uint8_t* d = reinterpret_cast<uint8_t*>(dst.ptr_) + i * dstep;
        opgen_sim::CopyAndPlan(core, d + left, s + i * sstep, p.blockLen, opgen_sim::GmSide::kSource,
                               i + 1 == p.blockCount);
        T* e = reinterpret_cast<T*>(d);
        const uint64_t data_begin = left / sizeof(T);
        const uint64_t data_end = (left + p.blockLen) / sizeof(T);
        T value;
        if (data_end - data_begin < row / sizeof(T) &&
            copy_pad_detail::Fill(core, pad, e[data_begin], &value)) {
            const uint64_t n = row / sizeof(T);
            for (uint64_t k = 0; k < data_begin; ++k) e[k] = value;
            for (uint64_t k = data_end; k < n; ++k) e[k] = value;
        }
    }
    core.counters[opgen_sim::kGmToUbBytes] +=
        static_cast<int64_t>(static_cast<uint64_t>(p.blockLen) * p.blockCount);
    opgen_sim::NoteGmCopy(core, api, src.ptr_, p.blockLen, p.blockCount, sstep, false);
}

template <typename T, PaddingMode mode = PaddingMode::Normal>
OPGEN_SIM_API void DataCopyPad(const GlobalTensor<T>& dst, const LocalTensor<T>& src,
                        const DataCopyExtParams& p) {
    constexpr const char* api = "DataCopyPad(UB->GM)";
    // one burst: a recorded program producing it is computed straight into GM, as by DataCopy
    const bool plain = p.blockCount == 1;
    opgen_sim::Core& core = opgen_sim::CurrentCore();
    if (plain) {
        opgen_sim::CheckUbAlignedLive(&core, src, api, "source");
    } else {
        opgen_sim::CheckUbAlignedOn(&core, src, api, "source");
    }
    if (p.blockLen % sizeof(T) != 0) {
        opgen_sim::Fail(opgen_sim::ErrorKind::Alignment, api,
                        "blockLen " + opgen_sim::Str(p.blockLen) +
                            " bytes is not a whole number of " + opgen_sim::TypeName<T>() +
                            " elements");
    }
    if (p.blockCount == 0 || p.blockLen == 0) return;
    const uint64_t row = opgen_sim::RoundUp(p.blockLen, 32);
    const uint64_t sstep = row + static_cast<uint64_t>(p.srcStride) * 32;
    const uint64_t dstep = static_cast<uint64_t>(p.blockLen) + p.dstStride;
    opgen_sim::CheckUbExtent(src, (p.blockCount - 1) * sstep + p.blockLen, api, "source");
    dst.CheckRange(core, ((p.blockCount - 1) * dstep + p.blockLen) / sizeof(T), api);
    uint8_t* d = reinterpret_cast<uint8_t*>(dst.ptr_);
    const uint8_t* s = reinterpret_cast<const uint8_t*>(src.ptr_);
    if (plain && !opgen_sim::StoreDeferred(&core, d, s, p.blockLen)) {
        opgen_sim::FlushUb(&core, src.ptr_, static_cast<uint64_t>(src.size_) * sizeof(T));
        opgen_sim::GmStore(core, reinterpret_cast<T*>(d), reinterpret_cast<const T*>(s),
                           p.blockLen / sizeof(T), api);
    }
    for (uint16_t i = 0; i < p.blockCount && !plain; ++i) {
        opgen_sim::GmStore(core, reinterpret_cast<T*>(d + i * dstep),
                           reinterpret_cast<const T*>(s + i * sstep), p.blockLen / sizeof(T), api,
                           i + 1 == p.blockCount);
    }
    core.counters[opgen_sim::kUbToGmBytes] +=
        static_cast<int64_t>(static_cast<uint64_t>(p.blockLen) * p.blockCount);
    opgen_sim::NoteGmCopy(core, api, dst.ptr_, p.blockLen, p.blockCount, dstep, true);
}

// Older DataCopyParams/DataCopyPadParams forms (blockLen in bytes, as for DataCopyPad).
template <typename T>
inline void DataCopyPad(const LocalTensor<T>& dst, const GlobalTensor<T>& src,
                        const DataCopyParams& p, const DataCopyPadParams& pad) {
    DataCopyPadExtParams<T> ext(pad.isPad, pad.leftPadding, pad.rightPadding,
                                static_cast<T>(pad.paddingValue));
    DataCopyPad(dst, src, DataCopyExtParams(p.blockCount, p.blockLen, p.srcStride, p.dstStride, 0),
                ext);
}

template <typename T>
inline void DataCopyPad(const GlobalTensor<T>& dst, const LocalTensor<T>& src,
                        const DataCopyParams& p) {
    DataCopyPad(dst, src, DataCopyExtParams(p.blockCount, p.blockLen, p.srcStride, p.dstStride, 0));
}

}  // namespace AscendC
