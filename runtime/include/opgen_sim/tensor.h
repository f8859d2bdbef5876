// opgen NPU simulator: GlobalTensor, LocalTensor, TPipe, TQue/TQueBind and TBuf.
#pragma once

#include <atomic>
#include <cstdio>
#include <unordered_map>

#include "../opgen_host/data_format.h"
#include "core.h"
#include "cube_mem.h"
#include "deferred.h"
#include "image_gm.h"

namespace opgen_sim {

enum class SlotState : uint8_t { Free, Allocated, Enqueued, Dequeued, Permanent };

// One physical buffer of a queue or TBuf. LocalTensors remember the generation they were
// allocated in, so a tensor used after FreeTensor is detected.
struct Slot {
    uint32_t gen = 0;
    SlotState state = SlotState::Free;
    uint8_t* addr = nullptr;
    uint32_t bytes = 0;
};

inline uint64_t RoundUp(uint64_t v, uint64_t m) { return (v + m - 1) / m * m; }

// Checks that elements [0, count) of `elem` bytes at `ptr` are inside the buffer given to
// SetGlobalBuffer (`base`, `base_size` elements) and inside one of the GM buffers passed to the
// kernel (GlobalTensor::CheckRange).
OPGEN_SIM_OUTLINE void CheckGmRangeOn(const Core& c, const void* base, const void* ptr, uint64_t base_size,
                                      uint64_t count, uint32_t elem, const char* type_name, const char* api)
#if OPGEN_SIM_OUTLINE_BODIES
{
    if (base == nullptr) {
        Fail(ErrorKind::GlobalMemoryOutOfBounds, api,
                        "GlobalTensor<" + std::string(type_name) +
                            "> has a null address: SetGlobalBuffer was not called, or it was "
                            "given an absent optional input (nullptr)");
    }
    // The hardware bounds an access only by the device allocation (the region checks
    // below); the size given to SetGlobalBuffer is a bound in strict mode.
    const int64_t off = (static_cast<const uint8_t*>(ptr) - static_cast<const uint8_t*>(base)) /
                        static_cast<int64_t>(elem);
    const bool known = base_size != std::numeric_limits<uint64_t>::max();
    if (c.strict_gm && (off < 0 || (known && static_cast<uint64_t>(off) + count > base_size))) {
        Fail(ErrorKind::GlobalMemoryOutOfBounds, api,
                        "elements [" + std::to_string(off) + ", " +
                            std::to_string(off + static_cast<int64_t>(count)) +
                            ") are outside the GlobalTensor<" + type_name +
                            "> of " + Str(base_size) +
                            " elements given to SetGlobalBuffer");
    }
    const uint8_t* b = static_cast<const uint8_t*>(ptr);
    const uint64_t bytes = count * elem;
    // Buffers may be adjacent (one's end is the next one's start): an access is fine if
    // any region holds all of it; only then report against the region it starts in.
    for (int32_t i = 0; i < c.num_regions; ++i) {
        const GmRegion& r = c.regions[i];
        if (r.begin != nullptr && b >= r.begin && b + bytes <= r.begin + r.size) return;
    }
    for (int32_t i = 0; i < c.num_regions; ++i) {
        const GmRegion& r = c.regions[i];
        if (r.begin != nullptr && b >= r.begin && b <= r.begin + r.size) {
            Fail(ErrorKind::GlobalMemoryOutOfBounds, api,
                            "bytes [" + Str(static_cast<uint64_t>(b - r.begin)) +
                                ", " + Str(static_cast<uint64_t>(b - r.begin) + bytes) +
                                ") run past the end of GM buffer '" + r.name + "' (" +
                                Str(r.size) + " bytes)");
        }
    }
    // Static data of the kernel's own binary (a `__gm__` table compiled into the kernel) is
    // GM on the device; here it is a region of its own (image_gm.h).
    ImageData img;
    if (FindImageData(b, &img)) {
        if (b + bytes <= img.begin + img.size) return;
        Fail(ErrorKind::GlobalMemoryOutOfBounds, api,
                        "bytes [" + Str(static_cast<uint64_t>(b - img.begin)) + ", " +
                            Str(static_cast<uint64_t>(b - img.begin) + bytes) +
                            ") run past the end of the kernel's static data '" + img.name + "' (" +
                            Str(img.size) + " bytes)");
    }
    Fail(ErrorKind::GlobalMemoryOutOfBounds, api,
                    c.icpu ? "address is not inside any buffer allocated with AscendC::GmAlloc"
                           : "address is not inside any GM buffer passed to the kernel");
}
#else
;
#endif
inline void CheckGmRange(const void* base, const void* ptr, uint64_t base_size, uint64_t count,
                         uint32_t elem, const char* type_name, const char* api) {
    CheckGmRangeOn(CurrentCore(), base, ptr, base_size, count, elem, type_name, api);
}

// CheckLocalLive's passing case, inline (every operand of every API is checked): a buffer, not
// one freed since, inside the Unified Buffer; false sends the caller to CheckLocalLive's report.
inline bool LocalLive(const void* ptr, const Slot* slot, uint32_t gen, uint64_t bytes, const Core* c) {
    if (ptr == nullptr || (slot != nullptr && (slot->gen != gen || slot->state == SlotState::Free))) {
        return false;
    }
    if (c == nullptr) return true;
    // outside the reserved part of UB (below it, the offset wraps past ub_used), or ending
    // inside the buffer
    const uint64_t off = reinterpret_cast<uintptr_t>(ptr) - reinterpret_cast<uintptr_t>(c->ub);
    return off >= c->ub_used || off + bytes <= c->ub_capacity;
}

// The first use of a tensor after its FreeTensor in this process: one line on stderr.
inline void WarnUsedAfterFree(const char* api, uint64_t ub_offset) {
    static std::atomic<bool> warned{false};
    if (warned.exchange(true)) return;
    std::fprintf(stderr,
                 "[WARNING][opgen-sim] %s: a LocalTensor is used after FreeTensor (its queue buffer at "
                 "UB offset %llu was released): it reads the buffer as it is, as the NPU does, until "
                 "AllocTensor hands the buffer out again; OPGEN_SIM_STRICT=1 makes this an error\n",
                 api, static_cast<unsigned long long>(ub_offset));
}

// Checks that a LocalTensor (`bytes` at `ptr`, allocated in generation `gen` of `slot`) may be
// used: it has a buffer and lies inside the Unified Buffer (LocalTensor::CheckLive); one freed
// since is a warning, or in strict mode an error.
OPGEN_SIM_OUTLINE void CheckLocalLive(const void* ptr, const Slot* slot, uint32_t gen, uint64_t bytes,
                                      const char* type_name, const char* api)
#if OPGEN_SIM_OUTLINE_BODIES
{
    if (ptr == nullptr) {
        Fail(ErrorKind::Queue, api,
             "LocalTensor has no buffer: get it from TQue::AllocTensor, "
             "TQue::DeQue or TBuf::Get before use");
    }
    const Core* c = tls_core;
    const auto* p = static_cast<const uint8_t*>(ptr);
    const uint64_t ub_offset = c == nullptr ? 0 : static_cast<uint64_t>(p - c->ub);
    if (slot != nullptr && (slot->gen != gen || slot->state == SlotState::Free)) {
        // The NPU has no notion of a tensor's owner: a tensor used after FreeTensor reads (and
        // writes) its buffer as it is, which is what a later AllocTensor's owner, if any, left
        // there (CANN's ops-nn rms_norm and add_rms_norm read their rstd and x a little after
        // CopyOut freed them). Strict mode refuses it; by default it is a warning, once.
        if (c != nullptr && c->strict_gm) {
            Fail(ErrorKind::Queue, api,
                 "LocalTensor used after FreeTensor (its queue buffer at UB offset " + Str(ub_offset) +
                     " was released; strict mode): keep a tensor only until FreeTensor");
        }
        WarnUsedAfterFree(api, ub_offset);
    }
    if (c != nullptr && p >= c->ub && p < c->ub + c->ub_used && ub_offset + bytes > c->ub_capacity) {
        Fail(ErrorKind::UnifiedBufferOverflow, api,
             "LocalTensor<" + std::string(type_name) + "> at UB bytes [" + Str(ub_offset) + ", " +
                 Str(ub_offset + bytes) + ") lies past the Unified Buffer of " + Str(c->ub_capacity) +
                 " bytes: TPipe::InitBuffer reserved more than the buffer holds (" + Str(c->ub_used) +
                 " bytes); the hardware accepts that InitBuffer, not this access");
    }
}
#else
;
#endif

// The queue and buffer calls' messages with numbers in them, built out of line (tensor.h's
// TQue and TBuf are inlined into every kernel).
[[noreturn]] OPGEN_SIM_OUTLINE void FailQueueFull(int32_t num)
#if OPGEN_SIM_OUTLINE_BODIES
{
    Fail(ErrorKind::Queue, "TQue::AllocTensor",
         "all " + std::to_string(num) +
             " buffers of the queue are in use: more live tensors than the queue holds "
             "(InitBuffer(que, " + std::to_string(num) +
             ", len)); FreeTensor a tensor before allocating another");
}
#else
;
#endif

[[noreturn]] OPGEN_SIM_OUTLINE void FailQueueDepth(int32_t count, int32_t depth)
#if OPGEN_SIM_OUTLINE_BODIES
{
    Fail(ErrorKind::Queue, "TQue::EnQue",
         "the queue already holds " + std::to_string(count) + " tensors, its depth is " +
             std::to_string(depth) + "; DeQue before EnQue-ing another");
}
#else
;
#endif

[[noreturn]] OPGEN_SIM_OUTLINE void FailTBufRange(uint64_t size, const char* type_name,
                                                 uint64_t offset, uint64_t bytes)
#if OPGEN_SIM_OUTLINE_BODIES
{
    Fail(ErrorKind::LocalMemoryOutOfBounds, "TBuf::Get",
         "requested " + Str(size) + " x " + type_name + " at byte offset " + Str(offset) +
             " but the TBuf holds " + Str(bytes) + " bytes");
}
#else
;
#endif

[[noreturn]] OPGEN_SIM_OUTLINE void FailIndex(uint64_t i, uint64_t size, const char* type_name, const char* api)
#if OPGEN_SIM_OUTLINE_BODIES
{
    Fail(ErrorKind::LocalMemoryOutOfBounds, api,
         "index " + Str(i) + " is outside the LocalTensor<" + type_name + "> of " + Str(size) + " elements");
}
#else
;
#endif

// The whole-tensor operator form `dst = a + b` (vector.h): the right side is this expression,
// which the assignment runs over dst's length.
template <typename T, typename Op>
struct WholeTensorBinary;

}  // namespace opgen_sim

// CANN declares event_t (the compiler's event id type) and GetTPipePtr() outside AscendC, and
// samples name both unqualified; AscendC re-exports them, so either spelling names one entity.
using event_t = int32_t;

namespace AscendC {

// int4b_t: asc-devkit's 4-bit signed integer, two to a byte. Kernels name it (a branch a template
// kernel does not take still names it), so it is declared; a tensor of it is not simulated yet:
// ReinterpretCast to it stops the build with a message saying so.
struct int4b_t {
    uint8_t storage = 0;
};

enum class TPosition : uint8_t {
    GM,
    A1,
    A2,
    B1,
    B2,
    C1,
    C2,
    CO1,
    CO2,
    VECIN,
    VECOUT,
    VECCALC,
    LCM = VECCALC,
    SPM,
    SHM = SPM,
    TSCM,
    C2PIPE2GM,
    C2PIPE2LOCAL,
    MAX,
};
using QuePosition = TPosition;
enum class Hardware : uint8_t { GM, UB, L1, L0A, L0B, L0C, BIAS, FIXBUF, MAX };
}  // namespace AscendC

namespace opgen_sim {
// The cube memory a position lies in on the Atlas A2/A3 (cube_mem.h), or -1 for the Unified
// Buffer and GM: A1/B1/C1 (and TSCM) are L1, A2 L0A, B2 L0B, CO1 L0C, C2 the bias table,
// C2PIPE2GM the fixpipe buffer.
constexpr int32_t CubeBufOfPos(AscendC::TPosition p) {
    using P = AscendC::TPosition;
    return p == P::A1 || p == P::B1 || p == P::C1 || p == P::TSCM ? kCubeL1
           : p == P::A2                                           ? kCubeL0A
           : p == P::B2                                           ? kCubeL0B
           : p == P::CO1                                          ? kCubeL0C
           : p == P::C2                                           ? kCubeBias
           : p == P::C2PIPE2GM                                    ? kCubeFb
                                                                  : -1;
}
// Where a queue's buffers lie: its source position, or its destination when it comes from GM.
constexpr int32_t CubeBufOfQue(AscendC::TPosition src, AscendC::TPosition dst) {
    return CubeBufOfPos(src == AscendC::TPosition::GM ? dst : src);
}
}  // namespace opgen_sim

namespace AscendC {

// GlobalTensor::SetL2CacheHint's modes, with CANN's values.
enum class CacheMode { CACHE_MODE_DISABLE = 0, CACHE_MODE_NORMAL = 1, CACHE_MODE_LAST = 2, CACHE_MODE_PERSISTENT = 4 };
enum class CacheRwMode { READ = 1, WRITE = 2, RW = 3 };

// The shape a LocalTensor may carry (kernel_tensor.h, "ShapeInfo"), with its DataFormat tag
// (opgen_host/data_format.h); the normalization APIs (opgen_sim/norm.h) read it.
constexpr int32_t K_MAX_SHAPE_DIM = 8;
struct ShapeInfo {
    ShapeInfo() = default;
    ShapeInfo(uint8_t dim, const uint32_t inShape[], uint8_t oriDim, const uint32_t inOriShape[], DataFormat format)
        : shapeDim(dim), originalShapeDim(oriDim), dataFormat(format) {
        if (dim > K_MAX_SHAPE_DIM || oriDim > K_MAX_SHAPE_DIM) {
            opgen_sim::Fail(opgen_sim::ErrorKind::Generic, "ShapeInfo",
                            "shapeDim " + std::to_string(dim) + " / originalShapeDim " + std::to_string(oriDim) +
                                " exceed K_MAX_SHAPE_DIM (8)");
        }
        for (uint8_t i = 0; i < dim; ++i) shape[i] = inShape[i];
        for (uint8_t i = 0; i < oriDim; ++i) originalShape[i] = inOriShape[i];
    }
    ShapeInfo(uint8_t dim, const uint32_t inShape[], DataFormat format = DataFormat::ND)
        : ShapeInfo(dim, inShape, dim, inShape, format) {}
    uint8_t shapeDim = 0;
    uint8_t originalShapeDim = 0;
    uint32_t shape[K_MAX_SHAPE_DIM] = {};
    uint32_t originalShape[K_MAX_SHAPE_DIM] = {};
    DataFormat dataFormat = DataFormat::ND;
};
}  // namespace AscendC

namespace opgen_sim {
// The ShapeInfo of each UB address a kernel set one on (LocalTensor::SetShapeInfo), for the block
// running on this thread; a new TPipe (a block's start) clears it.
inline std::unordered_map<const void*, AscendC::ShapeInfo>& ShapeInfos() {
    static thread_local std::unordered_map<const void*, AscendC::ShapeInfo> table;
    return table;
}
}  // namespace opgen_sim

namespace AscendC {
inline uint64_t GetShapeSize(const ShapeInfo& info) {
    uint64_t n = 1;
    for (uint8_t i = 0; i < info.shapeDim; ++i) n *= info.shape[i];
    return n;
}

template <typename T>
class GlobalTensor;

template <typename T>
class LocalTensor {
public:
    using PrimType = T;
    LocalTensor() = default;
    // Static-tensor programming: `tileSize` elements at byte `addr` of the Unified Buffer (CANN:
    // addr 32-byte aligned, addr + the tensor's bytes inside the buffer).
    LocalTensor(TPosition pos, uint32_t addr, uint32_t tileSize) {
        constexpr const char* api = "LocalTensor(pos, addr, tileSize)";
        opgen_sim::Core& c = opgen_sim::CurrentCore();
        const int32_t cube = opgen_sim::CubeBufOfPos(pos);
        if (cube >= 0) {  // a cube memory (cube_mem.h): addr is an offset into it
            const uint64_t cap = opgen_sim::kCubeBufBytes[cube];
            const uint64_t end = static_cast<uint64_t>(addr) + static_cast<uint64_t>(tileSize) * sizeof(T);
            if (addr % opgen_sim::kBlockBytes != 0) {
                opgen_sim::Fail(opgen_sim::ErrorKind::Alignment, api,
                                "addr " + opgen_sim::Str(addr) + " in " + opgen_sim::CubeBufName(cube) +
                                    " is not 32-byte aligned");
            }
            if (end > cap) {
                opgen_sim::Fail(opgen_sim::ErrorKind::UnifiedBufferOverflow, api,
                                "bytes [" + opgen_sim::Str(addr) + ", " + opgen_sim::Str(end) + ") run past " +
                                    opgen_sim::CubeBufName(cube) + " of " + opgen_sim::Str(cap) + " bytes");
            }
            ptr_ = reinterpret_cast<T*>(opgen_sim::CubeOf(c).base[cube] + addr);
            size_ = tileSize;
            pos_ = pos;
            return;
        }
        if (addr % opgen_sim::kBlockBytes != 0) {
            opgen_sim::Fail(opgen_sim::ErrorKind::Alignment, api,
                            "addr " + opgen_sim::Str(addr) + " is not 32-byte aligned");
        }
        const uint64_t end = static_cast<uint64_t>(addr) + static_cast<uint64_t>(tileSize) * sizeof(T);
        if (end > c.ub_capacity) {
            opgen_sim::Fail(opgen_sim::ErrorKind::UnifiedBufferOverflow, api,
                            "bytes [" + opgen_sim::Str(addr) + ", " + opgen_sim::Str(end) +
                                ") run past the Unified Buffer of " + opgen_sim::Str(c.ub_capacity) + " bytes");
        }
        ptr_ = reinterpret_cast<T*>(c.ub + addr);
        size_ = tileSize;
        pos_ = pos;
        // the profile's peak UB: the highest byte a static tensor reaches
        if (static_cast<int64_t>(end) > c.counters[opgen_sim::kPeakUbBytes]) {
            c.counters[opgen_sim::kPeakUbBytes] = static_cast<int64_t>(end);
        }
    }

    template <typename Op>
    LocalTensor& operator=(const opgen_sim::WholeTensorBinary<T, Op>& expr) {
        expr.Run(*this);
        return *this;
    }

    // Simulator internals (public so the API functions can reach them; not part of Ascend C).
    T* ptr_ = nullptr;
    uint32_t size_ = 0;  // elements
    opgen_sim::Slot* slot_ = nullptr;
    uint32_t gen_ = 0;
    TPosition pos_ = TPosition::VECCALC;
    // The shape a kernel attaches to its buffer (CANN keeps it in the tensor object); here kept
    // beside the tensors, by UB address, so every other API's copies of a LocalTensor stay small.
    void SetShapeInfo(const ShapeInfo& info) { opgen_sim::ShapeInfos()[ptr_] = info; }
    ShapeInfo GetShapeInfo() const {
        const auto& table = opgen_sim::ShapeInfos();
        const auto it = table.find(ptr_);
        return it == table.end() ? ShapeInfo{} : it->second;
    }

    // Checks the tensor is live and applies the deferred work producing it (deferred.h).
    void Check(const char* api) const { Check(api, opgen_sim::tls_core); }
    void Check(const char* api, opgen_sim::Core* c) const {
        CheckLive(api, c);
        opgen_sim::FlushUb(c, ptr_, static_cast<uint64_t>(size_) * sizeof(T));
    }
    void CheckLive(const char* api) const { CheckLive(api, opgen_sim::tls_core); }
    // The same, on the calling thread's core `c` (read once by the API calling this).
    void CheckLive(const char* api, const opgen_sim::Core* c) const {
        const uint64_t bytes = static_cast<uint64_t>(size_) * sizeof(T);
        if (opgen_sim::LocalLive(ptr_, slot_, gen_, bytes, c)) return;
        opgen_sim::CheckLocalLive(ptr_, slot_, gen_, bytes, opgen_sim::TypeName<T>(), api);
    }
    uint64_t UbOffset() const { return UbOffset(opgen_sim::tls_core); }
    uint64_t UbOffset(const opgen_sim::Core* c) const {
        if (c == nullptr || ptr_ == nullptr) return 0;
        return static_cast<uint64_t>(reinterpret_cast<const uint8_t*>(ptr_) - c->ub);
    }
    // A scalar access of element i (GetValue, SetValue, operator()), counted for `opgen profile`.
    void CheckIndex(uint64_t i, const char* api) const {
        opgen_sim::Core* c = opgen_sim::tls_core;
        Check(api, c);
        if (i >= size_) opgen_sim::FailIndex(i, size_, opgen_sim::TypeName<T>(), api);
        if (c != nullptr && c->detail != nullptr) ++c->detail->scalar_ub;
    }

    T GetValue(uint32_t i) const {
        CheckIndex(i, "LocalTensor::GetValue");
        return ptr_[i];
    }
    template <typename U>
    void SetValue(uint32_t i, U v) const {
        CheckIndex(i, "LocalTensor::SetValue");
        ptr_[i] = static_cast<T>(v);
    }
    // A reference into UB may be read or written at any later time, unseen: deferral stops for
    // the block (deferred.h, StopDeferring).
    T& operator()(uint32_t i) const {
        CheckIndex(i, "LocalTensor::operator()");
        opgen_sim::StopDeferring();
        return ptr_[i];
    }
    LocalTensor operator[](uint32_t offset) const {
        CheckLive("LocalTensor::operator[]");
        if (offset > size_) {
            opgen_sim::Fail(opgen_sim::ErrorKind::LocalMemoryOutOfBounds, "LocalTensor::operator[]",
                            "offset " + opgen_sim::Str(offset) + " is past the end of a LocalTensor<" +
                                opgen_sim::TypeName<T>() + "> of " + opgen_sim::Str(size_) +
                                " elements");
        }
        LocalTensor r = *this;
        r.ptr_ = ptr_ + offset;
        r.size_ = size_ - offset;
        return r;
    }
    uint32_t GetSize() const { return size_; }
    uint32_t GetLength() const { return size_ * static_cast<uint32_t>(sizeof(T)); }
    // The new size must stay inside the buffer the tensor came from (its TQue/TBuf buffer, else
    // the Unified Buffer): past it, the tensor would reach another buffer's bytes.
    void SetSize(uint32_t size) {
        const auto* p = reinterpret_cast<const uint8_t*>(ptr_);
        const uint64_t bytes = static_cast<uint64_t>(size) * sizeof(T);
        const opgen_sim::Core* c = opgen_sim::tls_core;
        if (slot_ != nullptr && slot_->addr != nullptr && p >= slot_->addr &&
            p + bytes > slot_->addr + slot_->bytes) {
            opgen_sim::Fail(opgen_sim::ErrorKind::LocalMemoryOutOfBounds, "LocalTensor::SetSize",
                            "size " + opgen_sim::Str(size) + " x " + opgen_sim::TypeName<T>() +
                                " = " + opgen_sim::Str(bytes) + " bytes from byte " +
                                opgen_sim::Str(static_cast<uint64_t>(p - slot_->addr)) +
                                " of its buffer runs past the buffer's " +
                                opgen_sim::Str(slot_->bytes) + " bytes");
        }
        if (c != nullptr && p >= c->ub && p < c->ub + c->ub_capacity &&
            UbOffset() + bytes > c->ub_capacity) {
            opgen_sim::Fail(opgen_sim::ErrorKind::LocalMemoryOutOfBounds, "LocalTensor::SetSize",
                            "size " + opgen_sim::Str(size) + " x " + opgen_sim::TypeName<T>() +
                                " at UB offset " + opgen_sim::Str(UbOffset()) +
                                " runs past the Unified Buffer of " +
                                opgen_sim::Str(c->ub_capacity) + " bytes");
        }
        size_ = size;
    }
    uint64_t GetPhyAddr() const {
        uint64_t off = 0;  // a tensor in a cube memory: its offset there (cube_mem.h)
        if (opgen_sim::CubeBufAt(opgen_sim::tls_core, ptr_, &off) >= 0) return off;
        opgen_sim::StopDeferring();  // an address into UB, as for operator()
        return UbOffset();
    }
    TPosition GetPosition() const { return pos_; }
    template <typename U>
    LocalTensor<U> ReinterpretCast() const {
        static_assert(!std::is_same_v<U, int4b_t>,
                      "int4b_t (4-bit) tensors are not simulated yet: this kernel needs hardware or the CANN "
                      "CPU-debug build");
        LocalTensor<U> r;
        r.ptr_ = reinterpret_cast<U*>(ptr_);
        r.size_ = static_cast<uint32_t>(static_cast<uint64_t>(size_) * sizeof(T) / sizeof(U));
        r.slot_ = slot_;
        r.gen_ = gen_;
        r.pos_ = pos_;
        return r;
    }
};

template <typename T>
class GlobalTensor {
public:
    using PrimType = T;
    GlobalTensor() = default;

    // ptr_ is the simulator's element pointer; address_ is CANN's public name for it, one
    // storage, so it always equals the tensor's address (offset by operator[]). Reading address_
    // applies all deferred work and stops deferral in the block (deferred.h, StopDeferring).
    union {
        T* ptr_ = nullptr;
        opgen_sim::RawGmAddress<T> address_;
    };
    T* base_ = nullptr;
    uint64_t base_size_ = std::numeric_limits<uint64_t>::max();  // from SetGlobalBuffer

    void SetGlobalBuffer(__gm__ T* buffer, uint64_t bufferSize) {
        ptr_ = base_ = buffer;
        base_size_ = bufferSize;
    }
    void SetGlobalBuffer(__gm__ T* buffer) {
        ptr_ = base_ = buffer;
        base_size_ = std::numeric_limits<uint64_t>::max();
    }
    GlobalTensor operator[](uint64_t offset) const {
        GlobalTensor r = *this;
        r.ptr_ = ptr_ + offset;
        return r;
    }
    int64_t Offset() const { return ptr_ - base_; }
    // Checks that elements [0, count) from this tensor's address are inside the buffer given to
    // SetGlobalBuffer and inside one of the GM buffers passed to the kernel.
    void CheckRange(uint64_t count, const char* api) const {
        opgen_sim::CheckGmRange(base_, ptr_, base_size_, count, sizeof(T), opgen_sim::TypeName<T>(), api);
    }
    void CheckRange(const opgen_sim::Core& c, uint64_t count, const char* api) const {
        opgen_sim::CheckGmRangeOn(c, base_, ptr_, base_size_, count, sizeof(T), opgen_sim::TypeName<T>(),
                                  api);
    }
    T GetValue(uint64_t i) const {
        (*this)[i].CheckRange(1, "GlobalTensor::GetValue");
        opgen_sim::NoteScalarGm();
        return ptr_[i];
    }
    template <typename U>
    void SetValue(uint64_t i, U v) const {
        (*this)[i].CheckRange(1, "GlobalTensor::SetValue");
        opgen_sim::NoteScalarGm();
        opgen_sim::FlushGm(ptr_ + i, sizeof(T));
        ptr_[i] = static_cast<T>(v);
    }
    // A reference or a raw pointer into GM may be written through at any later time: all
    // deferred work is applied and deferral stops for the block (deferred.h, StopDeferring).
    T& operator()(uint64_t i) const {
        (*this)[i].CheckRange(1, "GlobalTensor::operator()");
        opgen_sim::NoteScalarGm();
        opgen_sim::StopDeferring();
        return ptr_[i];
    }
    __gm__ T* GetPhyAddr() const {
        opgen_sim::StopDeferring();
        return ptr_;
    }
    __gm__ T* GetPhyAddr(uint64_t offset) const {
        opgen_sim::StopDeferring();
        return ptr_ + offset;
    }
    uint64_t GetSize() const { return base_size_ - static_cast<uint64_t>(Offset()); }
    // The L2 cache hint changes how the hardware caches the tensor's lines, not what it reads
    // or writes: as in CANN's build for the A2/A3 on the CPU, the address stays as it is.
    template <CacheRwMode rwMode = CacheRwMode::RW>
    void SetL2CacheHint(CacheMode mode) {
        (void)mode;
    }
};

class TPipe;
inline thread_local TPipe* tls_pipe = nullptr;

enum class HardEvent : uint8_t {
    MTE2_MTE1, MTE1_MTE2, MTE1_M, M_MTE1, MTE2_V, V_MTE2, MTE3_V, V_MTE3, M_V, V_M, V_V,
    MTE3_MTE1, MTE1_MTE3, MTE1_V, MTE2_M, M_MTE2, V_MTE1, M_FIX, FIX_M, MTE3_MTE2, MTE2_MTE3,
    S_V, V_S, S_MTE2, MTE2_S, S_MTE3, MTE3_S, MTE2_FIX, FIX_MTE2, FIX_S, M_S, FIX_MTE3,
    MTE1_FIX, FIX_MTE1, FIX_FIX, MAX,
};
using TEventID = int8_t;
using ::event_t;

using TBufHandle = uint8_t*;  // a buffer a pool hands out (opgen_sim/buf_pool.h)

// TQueConfig (reference "TQue": a queue's mask may be a `const TQueConfig*`): the queue's
// format conversions, its buffers' length and count, its consumers, static event IDs. The
// simulator takes the pointer as the queue's template argument and reads none of it: a queue
// is sized by InitBuffer, and its pipes are the host's order (ops-nn's mse_loss_grad_v2 passes
// one with bufferNumber 1).
struct TQueConfig {
    bool nd2nz = false;
    bool nz2nd = false;
    bool scmBlockGroup = false;
    uint32_t bufferLen = 0;
    uint32_t bufferNumber = 0;
    uint32_t consumerSize = 0;
    TPosition consumer[8] = {};
    bool enableStaticEvtId = false;
    bool enableLoopQueue = false;
};

constexpr TQueConfig GetTQueConfig(bool nd2nzIn, bool nz2ndIn, bool scmBlockGroupIn, uint32_t bufferLenIn,
                                   uint32_t bufferNumberIn, uint32_t consumerSizeIn,
                                   const TPosition consumerIn[], bool enableStaticEvtIdIn = false,
                                   bool enableLoopQueueIn = false) {
    TQueConfig c{nd2nzIn, nz2ndIn, scmBlockGroupIn, bufferLenIn, bufferNumberIn, consumerSizeIn, {},
                 enableStaticEvtIdIn, enableLoopQueueIn};
    for (int i = 0; i < 8; ++i) c.consumer[i] = consumerIn[i];
    return c;
}

template <TPosition src, TPosition dst, int32_t depth, auto mask = 0>
class TQueBind {
public:
    static constexpr int32_t kMaxBuffers = 16;
    TQueBind() = default;
    TQueBind(const TQueBind&) = delete;
    TQueBind& operator=(const TQueBind&) = delete;

    template <typename T>
    LocalTensor<T> AllocTensor() {
        RequireInit("TQue::AllocTensor");
        for (int32_t i = 0; i < num_; ++i) {
            opgen_sim::Slot& s = slots_[i];
            if (s.state == opgen_sim::SlotState::Free) {
                s.state = opgen_sim::SlotState::Allocated;
                return Make<T>(s);
            }
        }
        opgen_sim::FailQueueFull(num_);
    }
    template <typename T>
    bool EnQue(const LocalTensor<T>& t) {
        t.CheckLive("TQue::EnQue");
        opgen_sim::Slot* s = Own(t.slot_, "TQue::EnQue");
        // A tensor taken out by DeQue may go back in (CANN's samples DeQue, compute, EnQue
        // again); only one already in the queue may not.
        if (s->state == opgen_sim::SlotState::Enqueued) {
            opgen_sim::Fail(opgen_sim::ErrorKind::Queue, "TQue::EnQue",
                            "the tensor is already in the queue; DeQue it before EnQue-ing it "
                            "again");
        }
        if (depth > 0 && count_ >= depth) {
            opgen_sim::FailQueueDepth(count_, depth);
        }
        s->state = opgen_sim::SlotState::Enqueued;
        fifo_[(head_ + count_) % kMaxBuffers] = static_cast<int32_t>(s - slots_);
        ++count_;
        return true;
    }
    template <typename T>
    LocalTensor<T> DeQue() {
        return Make<T>(DeQueSlot());
    }
    // CANN's untyped form (kernel_tpipe.h `TBufHandle DeQue()`): takes the oldest buffer out of
    // the queue, for a caller that keeps its own LocalTensor of it (ops-nn's rms_norm EnQue-s a
    // tensor and DeQue-s it only to order the pipes).
    TBufHandle DeQue() { return DeQueSlot().addr; }
    template <typename T>
    void FreeTensor(LocalTensor<T>& t) {
        if (t.slot_ != nullptr && t.slot_->gen != t.gen_) {
            opgen_sim::Fail(opgen_sim::ErrorKind::Queue, "TQue::FreeTensor",
                            "the tensor was already freed (double FreeTensor)");
        }
        opgen_sim::Core* c = opgen_sim::tls_core;
        t.CheckLive("TQue::FreeTensor", c);
        opgen_sim::Slot* s = Own(t.slot_, "TQue::FreeTensor");
        if (s->state == opgen_sim::SlotState::Enqueued) {
            opgen_sim::Fail(opgen_sim::ErrorKind::Queue, "TQue::FreeTensor",
                            "the tensor is still in the queue; DeQue it before FreeTensor");
        }
        s->state = opgen_sim::SlotState::Free;
        ++s->gen;
        // Its data is dead to a kernel that keeps the rules, so the work nobody read is skipped;
        // by default a tensor may still be read after FreeTensor (CheckLocalLive), so the work
        // stays recorded until a new write covers it (deferred.h), or until it is read.
        if (c != nullptr && c->strict_gm) opgen_sim::DiscardUb(c, s->addr, s->bytes);
    }
    bool VacantInQue() const { return count_ < (depth > 0 ? depth : num_); }
    bool HasTensorInQue() const { return count_ > 0; }
    int32_t GetTensorCountInQue() const { return count_; }
    bool HasIdleBuffer() const {
        for (int32_t i = 0; i < num_; ++i) {
            if (slots_[i].state == opgen_sim::SlotState::Free) return true;
        }
        return false;
    }
    void FreeAllEvent() {}

    // Called by TPipe::InitBuffer.
    void Init(uint8_t* addr, int32_t num, uint32_t bytes) {
        num_ = num;
        bytes_ = bytes;
        for (int32_t i = 0; i < num; ++i) {
            slots_[i].addr = addr + static_cast<uint64_t>(i) * bytes;
            slots_[i].bytes = bytes;
            slots_[i].state = opgen_sim::SlotState::Free;
        }
        head_ = count_ = 0;
    }
    // A pool places the queue's buffers one by one (TBufPool::InitBuffer, EXTERN_IMPL_BUFPOOL
    // classes): `num` buffers of `len` bytes, then buffer `index` at UB offset `curPoolAddr`.
    void InitStartBufHandle(TBufHandle, uint8_t num, uint32_t len) {
        if (num == 0 || num > kMaxBuffers) {
            opgen_sim::Fail(opgen_sim::ErrorKind::Queue, "TQue::InitStartBufHandle",
                            "buffer count " + std::to_string(num) + " must be 1.." +
                                std::to_string(kMaxBuffers));
        }
        num_ = num;
        bytes_ = len;
        for (int32_t i = 0; i < num; ++i) {  // a tensor of the buffers' former life is stale
            slots_[i].state = opgen_sim::SlotState::Free;
            ++slots_[i].gen;
        }
        head_ = count_ = 0;
    }
    template <typename P>
    void InitBufHandle(P*, uint32_t index, TBufHandle handle, uint32_t curPoolAddr, uint32_t len) {
        if (index >= static_cast<uint32_t>(num_)) {
            opgen_sim::Fail(opgen_sim::ErrorKind::Queue, "TQue::InitBufHandle",
                            "buffer " + std::to_string(index) + " is past the " +
                                std::to_string(num_) + " InitStartBufHandle gave the queue");
        }
        slots_[index].addr = opgen_sim::CurrentCore().ub + curPoolAddr;
        slots_[index].bytes = len;
        slots_[index].state = opgen_sim::SlotState::Free;
        if (handle != nullptr) {
            auto* h = reinterpret_cast<uint32_t*>(handle);  // TBufType: address, dataLen
            h[0] = curPoolAddr;
            h[1] = len;
        }
    }

private:
    opgen_sim::Slot& DeQueSlot() {
        RequireInit("TQue::DeQue");
        if (count_ == 0) {
            opgen_sim::Fail(opgen_sim::ErrorKind::Queue, "TQue::DeQue",
                            "DeQue on an empty queue: every DeQue needs an earlier EnQue of a "
                            "tensor on the same queue");
        }
        opgen_sim::Slot& s = slots_[fifo_[head_]];
        head_ = (head_ + 1) % kMaxBuffers;
        --count_;
        s.state = opgen_sim::SlotState::Dequeued;
        return s;
    }
    void RequireInit(const char* api) const {
        if (num_ == 0) {
            opgen_sim::Fail(opgen_sim::ErrorKind::Queue, api,
                            "the queue has no buffers: call pipe.InitBuffer(que, num, len) first");
        }
    }
    opgen_sim::Slot* Own(opgen_sim::Slot* s, const char* api) {
        if (s == nullptr || s < slots_ || s >= slots_ + num_) {
            opgen_sim::Fail(opgen_sim::ErrorKind::Queue, api,
                            "the tensor does not belong to this queue");
        }
        return s;
    }
    template <typename T>
    LocalTensor<T> Make(opgen_sim::Slot& s) {
        LocalTensor<T> t;
        t.ptr_ = reinterpret_cast<T*>(s.addr);
        t.size_ = s.bytes / static_cast<uint32_t>(sizeof(T));
        t.slot_ = &s;
        t.gen_ = s.gen;
        t.pos_ = src;
        return t;
    }

    opgen_sim::Slot slots_[kMaxBuffers];
    int32_t fifo_[kMaxBuffers] = {};
    int32_t num_ = 0;
    uint32_t bytes_ = 0;
    int32_t head_ = 0;
    int32_t count_ = 0;
};

template <TPosition pos, int32_t depth, auto mask = 0>
class TQue : public TQueBind<pos, pos, depth, mask> {};

template <TPosition pos = TPosition::LCM>
class TBuf {
public:
    TBuf() = default;
    TBuf(const TBuf&) = delete;
    TBuf& operator=(const TBuf&) = delete;

    template <typename T>
    LocalTensor<T> Get() {
        return Get<T>(slot_.bytes / static_cast<uint32_t>(sizeof(T)));
    }
    template <typename T>
    LocalTensor<T> Get(uint32_t len) {
        return GetWithOffset<T>(len, 0);
    }
    template <typename T>
    LocalTensor<T> GetWithOffset(uint32_t size, uint32_t bufOffset) {
        if (slot_.addr == nullptr) {
            opgen_sim::Fail(opgen_sim::ErrorKind::Queue, "TBuf::Get",
                            "the TBuf has no buffer: call pipe.InitBuffer(buf, len) first");
        }
        if (static_cast<uint64_t>(bufOffset) + static_cast<uint64_t>(size) * sizeof(T) >
            slot_.bytes) {
            opgen_sim::FailTBufRange(size, opgen_sim::TypeName<T>(), bufOffset, slot_.bytes);
        }
        LocalTensor<T> t;
        t.ptr_ = reinterpret_cast<T*>(slot_.addr + bufOffset);
        t.size_ = size;
        t.slot_ = &slot_;
        t.gen_ = slot_.gen;
        t.pos_ = pos;
        return t;
    }
    // CANN's TBuf inherits the queue calls: AllocTensor and DeQue are Get, EnQue and FreeTensor
    // do nothing (kernels free a TBuf tensor like a queue's)
    template <typename T>
    LocalTensor<T> AllocTensor() {
        return Get<T>();
    }
    template <typename T>
    LocalTensor<T> DeQue() {
        return Get<T>();
    }
    template <typename T>
    void EnQue(const LocalTensor<T>&) {}
    template <typename T>
    void FreeTensor(const LocalTensor<T>&) {}
    void Init(uint8_t* addr, uint32_t bytes) {
        slot_.addr = addr;
        slot_.bytes = bytes;
        slot_.state = opgen_sim::SlotState::Permanent;
    }
    // A pool places the buffer (TBufPool::InitBuffer, EXTERN_IMPL_BUFPOOL classes).
    void InitStartBufHandle(TBufHandle, uint8_t, uint32_t len) { slot_.bytes = len; }
    template <typename P>
    void InitBufHandle(P*, uint32_t, TBufHandle handle, uint32_t curPoolAddr, uint32_t len) {
        Init(opgen_sim::CurrentCore().ub + curPoolAddr, len);
        if (handle != nullptr) {
            auto* h = reinterpret_cast<uint32_t*>(handle);  // TBufType: address, dataLen
            h[0] = curPoolAddr;
            h[1] = len;
        }
    }

private:
    opgen_sim::Slot slot_;
};

class TPipe {
public:
    TPipe() {
        opgen_sim::Core& c = opgen_sim::CurrentCore();
        opgen_sim::ResetSocState(c);  // as CANN's TPipe does (InitSocState)
        opgen_sim::ShapeInfos().clear();
        start_ = c.ub_used;
        tls_pipe = this;
    }
    ~TPipe() { Destroy(); }
    TPipe(const TPipe&) = delete;
    TPipe& operator=(const TPipe&) = delete;

    template <TPosition src, TPosition dst, int32_t depth, auto mask>
    bool InitBuffer(TQueBind<src, dst, depth, mask>& que, uint8_t num, uint32_t len) {
        if (num == 0 || num > TQueBind<src, dst, depth, mask>::kMaxBuffers) {
            opgen_sim::Fail(opgen_sim::ErrorKind::Queue, "TPipe::InitBuffer",
                            "buffer count " + std::to_string(num) + " must be 1.." +
                                std::to_string(TQueBind<src, dst, depth, mask>::kMaxBuffers));
        }
        const uint32_t bytes = static_cast<uint32_t>(opgen_sim::RoundUp(len, opgen_sim::kBlockBytes));
        constexpr int32_t cube = opgen_sim::CubeBufOfQue(src, dst);
        uint8_t* addr = cube >= 0 ? ReserveCube(cube, static_cast<uint64_t>(num) * bytes, num, len)
                                  : Reserve(static_cast<uint64_t>(num) * bytes, num, len);
        que.Init(addr, num, bytes);
        return true;
    }
    template <TPosition pos>
    bool InitBuffer(TBuf<pos>& buf, uint32_t len) {
        const uint32_t bytes = static_cast<uint32_t>(opgen_sim::RoundUp(len, opgen_sim::kBlockBytes));
        constexpr int32_t cube = opgen_sim::CubeBufOfPos(pos);
        buf.Init(cube >= 0 ? ReserveCube(cube, bytes, 1, len) : Reserve(bytes, 1, len), bytes);
        return true;
    }
    // Pools of the pipe's Unified Buffer (opgen_sim/buf_pool.h).
    template <class P>
    bool InitBufPool(P& bufPool, uint32_t len);
    template <class P, class U>
    bool InitBufPool(P& bufPool, uint32_t len, U& shareBuf);
    void Init() {}
    // Gives back every buffer the pipe handed out; the pipe stays the kernel's (InitBuffer again).
    void Reset() {
        opgen_sim::Core* c = opgen_sim::tls_core;
        if (c != nullptr && !destroyed_ && c->ub_used >= start_ + used_) c->ub_used -= used_;
        used_ = 0;
        ReleaseCube(c);
    }
    void Destroy() {
        opgen_sim::Core* c = opgen_sim::tls_core;
        if (c != nullptr && !destroyed_) {
            if (c->ub_used >= start_ + used_) c->ub_used -= used_;
            used_ = 0;
            ReleaseCube(c);
        }
        destroyed_ = true;
        if (tls_pipe == this) tls_pipe = nullptr;
    }
    template <HardEvent evt>
    TEventID FetchEventID() { return 0; }
    TEventID FetchEventID(HardEvent) { return 0; }
    template <HardEvent evt>
    TEventID AllocEventID() { return 0; }
    template <HardEvent evt>
    void ReleaseEventID(TEventID) {}
    uint64_t UsedBytes() const { return used_; }

private:
    uint8_t* Reserve(uint64_t bytes, uint32_t num, uint32_t len);
    // A queue's or TBuf's buffers in a cube memory (cube_mem.h), given back with the pipe's.
    uint8_t* ReserveCube(int32_t cube, uint64_t bytes, uint32_t num, uint32_t len) {
        cube_used_[cube] += bytes;
        return opgen_sim::ReserveCube(cube, bytes, num, len);
    }
    void ReleaseCube(opgen_sim::Core* c) {
        for (int32_t i = 0; i < opgen_sim::kNumCubeBufs; ++i) {
            opgen_sim::ReleaseCube(c, i, cube_used_[i]);
            cube_used_[i] = 0;
        }
    }
    uint64_t cube_used_[opgen_sim::kNumCubeBufs] = {};
    uint64_t start_ = 0;
    uint64_t used_ = 0;
    bool destroyed_ = false;
};

#if OPGEN_SIM_OUTLINE_BODIES
OPGEN_SIM_OUTLINE uint8_t* TPipe::Reserve(uint64_t bytes, uint32_t num, uint32_t len) {
    opgen_sim::Core& c = opgen_sim::CurrentCore();
    // The hardware only hands out addresses here: a buffer past the end of the UB is an
    // error when it is used (LocalTensor::CheckLive), or here in strict mode.
    if (c.ub_used + bytes > c.ub_capacity && c.strict_gm) {
        opgen_sim::Fail(
            opgen_sim::ErrorKind::UnifiedBufferOverflow, "TPipe::InitBuffer",
            "Unified Buffer overflow: InitBuffer(num=" + std::to_string(num) +
                ", len=" + std::to_string(len) + ") needs " + opgen_sim::Str(bytes) +
                " bytes, " + opgen_sim::Str(c.ub_used) + " of " +
                opgen_sim::Str(c.ub_capacity) + " bytes are already in use (" +
                opgen_sim::Str(c.ub_used + bytes) + " > " + opgen_sim::Str(c.ub_capacity) +
                "); use smaller tiles or fewer buffers (strict mode; by default only a use of "
                "such a buffer is an error, as on the hardware)");
    }
    uint8_t* addr = c.ub + c.ub_used;
    c.ub_used += bytes;
    used_ += bytes;
    if (static_cast<int64_t>(c.ub_used) > c.counters[opgen_sim::kPeakUbBytes]) {
        c.counters[opgen_sim::kPeakUbBytes] = static_cast<int64_t>(c.ub_used);
    }
    return addr;
}
#endif

}  // namespace AscendC

inline AscendC::TPipe* GetTPipePtr() { return AscendC::tls_pipe; }

namespace AscendC {
using ::GetTPipePtr;

// LocalMemAllocator: static-tensor programming without TPipe. Each Alloc cuts the next bytes of
// its memory (no rounding, as CANN's head_ += bytes): the Unified Buffer, or a cube memory
// (Hardware::L1/L0A/L0B/L0C/BIAS/FIXBUF, cube_mem.h); the memory's capacity is enforced. Alloc without a
// position gives the memory's own: VECCALC, A1, A2, B2, CO1, C2, C2PIPE2GM.
template <Hardware hard = Hardware::UB>
class LocalMemAllocator {
    static constexpr int32_t kCube = hard == Hardware::L1    ? opgen_sim::kCubeL1
                                     : hard == Hardware::L0A ? opgen_sim::kCubeL0A
                                     : hard == Hardware::L0B ? opgen_sim::kCubeL0B
                                     : hard == Hardware::L0C ? opgen_sim::kCubeL0C
                                     : hard == Hardware::BIAS ? opgen_sim::kCubeBias
                                     : hard == Hardware::FIXBUF ? opgen_sim::kCubeFb
                                                              : -1;
    static constexpr TPosition kPos = hard == Hardware::L1    ? TPosition::A1
                                      : hard == Hardware::L0A ? TPosition::A2
                                      : hard == Hardware::L0B ? TPosition::B2
                                      : hard == Hardware::L0C ? TPosition::CO1
                                      : hard == Hardware::BIAS ? TPosition::C2
                                      : hard == Hardware::FIXBUF ? TPosition::C2PIPE2GM
                                                               : TPosition::VECCALC;

public:
    LocalMemAllocator() {
        static_assert(hard == Hardware::UB || kCube >= 0,
                      "the simulator models the Unified Buffer, L1, L0A, L0B, L0C, the bias table and the "
                      "fixpipe buffer");
    }
    uint32_t GetCurAddr() const { return head_; }
    template <TPosition pos, class DataType, uint32_t tileSize>
    LocalTensor<DataType> Alloc() { return Take<DataType>(tileSize, pos); }
    template <TPosition pos, class DataType>
    LocalTensor<DataType> Alloc(uint32_t tileSize) { return Take<DataType>(tileSize, pos); }
    template <class DataType, uint32_t tileSize>
    LocalTensor<DataType> Alloc() { return Take<DataType>(tileSize, kPos); }
    template <class DataType>
    LocalTensor<DataType> Alloc(uint32_t tileSize) { return Take<DataType>(tileSize, kPos); }
    template <class DataType>
    LocalTensor<DataType> Alloc() {
        const uint64_t cap = Capacity(opgen_sim::CurrentCore());
        const uint64_t rest = cap > head_ ? cap - head_ : 0;
        return Take<DataType>(static_cast<uint32_t>(rest / sizeof(DataType)), kPos);
    }

private:
    static uint64_t Capacity(const opgen_sim::Core& c) {
        if constexpr (kCube >= 0) {
            return opgen_sim::kCubeBufBytes[kCube];
        } else {
            return c.ub_capacity;
        }
    }
    template <class DataType>
    LocalTensor<DataType> Take(uint32_t count, TPosition pos) {
        opgen_sim::Core& c = opgen_sim::CurrentCore();
        const uint64_t bytes = static_cast<uint64_t>(count) * sizeof(DataType);
        const uint64_t cap = Capacity(c);
        if (head_ + bytes > cap) {
            opgen_sim::Fail(opgen_sim::ErrorKind::UnifiedBufferOverflow, "LocalMemAllocator::Alloc",
                            std::string(kCube >= 0 ? opgen_sim::CubeBufName(kCube) : "Unified Buffer") +
                                " overflow: Alloc of " + std::to_string(count) + " x " +
                                opgen_sim::TypeName<DataType>() + " (" + opgen_sim::Str(bytes) +
                                " bytes) at offset " + opgen_sim::Str(head_) + " needs " +
                                opgen_sim::Str(head_ + bytes) + " > " + opgen_sim::Str(cap) + " bytes");
        }
        LocalTensor<DataType> t;
        if constexpr (kCube >= 0) {
            t.ptr_ = reinterpret_cast<DataType*>(opgen_sim::CubeOf(c).base[kCube] + head_);
        } else {
            t.ptr_ = reinterpret_cast<DataType*>(c.ub + head_);
        }
        t.size_ = count;
        t.pos_ = pos;
        head_ += static_cast<uint32_t>(bytes);
        if (kCube < 0 && static_cast<int64_t>(head_) > c.counters[opgen_sim::kPeakUbBytes]) {
            c.counters[opgen_sim::kPeakUbBytes] = static_cast<int64_t>(head_);
        }
        return t;
    }
    uint32_t head_ = 0;
};

}  // namespace AscendC
