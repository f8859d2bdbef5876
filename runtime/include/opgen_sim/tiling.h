// opgen NPU simulator: kernel-side tiling data (CANN's standard-C++-struct tiling style).
#pragma once

#include "core.h"

namespace opgen_sim {

// Bytes readable from p: the launch's tiling argument, else the rest of the GM buffer (or GmAlloc
// block) holding p; -1 when p is in none (e.g. a malloc'ed tiling buffer in ICPU_RUN_KF mode).
inline int64_t TilingBytesAt(const Core& c, const uint8_t* p) {
    if (c.tiling != nullptr && p == c.tiling) return static_cast<int64_t>(c.tiling_size);
    for (int32_t i = 0; i < c.num_regions; ++i) {
        const GmRegion& r = c.regions[i];
        if (r.begin != nullptr && p >= r.begin && p < r.begin + r.size) {
            return static_cast<int64_t>(r.begin + r.size - p);
        }
    }
    return -1;
}

inline void LoadTiling(void* dst, uint64_t size, const uint8_t* tiling) {
    const Core& c = CurrentCore();
    if (tiling == nullptr) {
        Fail(ErrorKind::Tiling, "GET_TILING_DATA", "the tiling argument is a null pointer");
    }
    const int64_t avail = TilingBytesAt(c, tiling);
    if (avail >= 0 && static_cast<uint64_t>(avail) < size) {
        Fail(ErrorKind::Tiling, "GET_TILING_DATA",
             "the launch passed " + Str(static_cast<uint64_t>(avail)) + " bytes of tiling data but "
             "the tiling struct is " + Str(size) + " bytes; the op_host TilingFunc must "
             "SaveToBuffer into GetRawTilingData() and SetDataSize (a tiling hook: pack the "
             "same struct)");
    }
    std::memcpy(dst, tiling, size);
}

}  // namespace opgen_sim

// convert_from_bytes<T>(bytes): the compiler builtin of the AOT guide ("AOT编译优化"): the first
// sizeof(T) bytes of a constexpr byte array as a T, at compile time (a tiling struct made a
// constant). T must be trivially copyable and hold no pointer, as a tiling struct does.
template <typename T>
constexpr T convert_from_bytes(const uint8_t* bytes) {
    static_assert(std::is_trivially_copyable_v<T>, "convert_from_bytes: T must be trivially copyable");
    struct Raw {
        uint8_t b[sizeof(T)];
    } raw{};
    for (size_t i = 0; i < sizeof(T); ++i) raw.b[i] = bytes[i];
    return __builtin_bit_cast(T, raw);
}

// REGISTER_TILING_DEFAULT(Struct) names the struct GET_TILING_DATA fills.
#define REGISTER_TILING_DEFAULT(Struct) using OpgenDefaultTilingData = Struct
#define REGISTER_TILING_FOR_TILINGKEY(cond, Struct)
#define REGISTER_NONE_TILING
// TILING_KEY_IS(k): the tiling key of this launch (launch(tiling_key=) or ICPU_SET_TILING_KEY).
#define TILING_KEY_IS(k) (::opgen_sim::CurrentCore().tiling_key == static_cast<uint64_t>(k))
#define GET_TILING_DATA(var, tiling) \
    using namespace ::optiling;      \
    OpgenDefaultTilingData var;      \
    ::opgen_sim::LoadTiling(&var, sizeof(var), reinterpret_cast<const uint8_t*>(tiling))
#define GET_TILING_DATA_WITH_STRUCT(Struct, var, tiling) \
    Struct var;                                          \
    ::opgen_sim::LoadTiling(&var, sizeof(var), reinterpret_cast<const uint8_t*>(tiling))
#define GET_TILING_DATA_PTR_WITH_STRUCT(Struct, var, tiling) \
    const Struct* var = reinterpret_cast<const Struct*>(tiling)

// The kernel side of CANN's BEGIN_TILING_DATA_DEF family (the op_host side is
// opgen_host/tiling_def.h): a plain struct with CANN's serialised field offsets, i.e. each field
// at a multiple of its size, a nested tiling struct at a multiple of 8. (CANN pads the serialised
// size to 8 bytes; the struct keeps its natural size, which is never more.)
// Host code in the same translation unit (a single-source .asc program) fills it through the
// host class's set_<field>/get_<field> and serialises it with SaveToBuffer (the struct's bytes;
// nothing when the buffer is smaller) and GetDataSize (the size padded to 8, as CANN's).
#define BEGIN_TILING_DATA_DEF(name) struct name {
#define TILING_DATA_FIELD_DEF(type, field)                \
    type field;                                           \
    void set_##field(type opgen_v) { field = opgen_v; }   \
    type get_##field() const { return field; }
#define TILING_DATA_FIELD_DEF_ARR(type, n, field)                                           \
    type field[n];                                                                          \
    void set_##field(const type* opgen_v) { std::memcpy(field, opgen_v, sizeof(field)); }  \
    type* get_##field() { return field; }
#define TILING_DATA_FIELD_DEF_STRUCT(type, field) alignas(8) type field;
// As CANN's: the closing brace and its semicolon (sources write it with or without one more).
#define END_TILING_DATA_DEF                                                                     \
    void SaveToBuffer(void* opgen_buf, size_t opgen_cap) const {                               \
        if (opgen_buf != nullptr && opgen_cap >= sizeof(*this)) std::memcpy(opgen_buf, this, sizeof(*this)); \
    }                                                                                          \
    size_t GetDataSize() const { return (sizeof(*this) + 7) / 8 * 8; }                         \
    }                                                                                          \
    ;
// An op_host tiling header registers its class inside namespace optiling; GET_TILING_DATA (above,
// a using-directive in the kernel's block) finds it there. The names of namespace optiling are
// not made visible at global scope here: a single-source program declares its host tiling class
// in optiling and may give its kernel's struct the same name at global scope (asc-devkit's
// broadcast sample), which CANN compiles. Where CANN's kernel build sees the op_host tiling
// header's classes as global names (an msopgen project's op_kernel), the build force-includes
// opgen_sim/optiling_visible.h after that header.
#define REGISTER_TILING_DATA_CLASS(op, cls) using OpgenDefaultTilingData = cls;
namespace optiling {}
