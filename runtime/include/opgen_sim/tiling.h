// opgen NPU simulator: kernel-side tiling data (CANN's standard-C++-struct tiling style).
#pragma once

#include "core.h"

namespace opgen_sim {

inline void LoadTiling(void* dst, uint64_t size, const uint8_t* tiling) {
    const Core& c = CurrentCore();
    if (tiling == nullptr) {
        Fail(ErrorKind::Tiling, "GET_TILING_DATA", "the tiling argument is a null pointer");
    }
    if (c.tiling_size < size) {
        Fail(ErrorKind::Tiling, "GET_TILING_DATA",
             "the launch passed " + Str(c.tiling_size) + " bytes of tiling data but the tiling "
             "struct is " + Str(size) + " bytes; pack it with the same TilingLayout");
    }
    std::memcpy(dst, tiling, size);
}

}  // namespace opgen_sim

// REGISTER_TILING_DEFAULT(Struct) names the struct GET_TILING_DATA fills.
#define REGISTER_TILING_DEFAULT(Struct) using OpgenDefaultTilingData = Struct
#define REGISTER_TILING_FOR_TILINGKEY(cond, Struct)
#define GET_TILING_DATA(var, tiling) \
    OpgenDefaultTilingData var;      \
    ::opgen_sim::LoadTiling(&var, sizeof(var), reinterpret_cast<const uint8_t*>(tiling))
#define GET_TILING_DATA_WITH_STRUCT(Struct, var, tiling) \
    Struct var;                                          \
    ::opgen_sim::LoadTiling(&var, sizeof(var), reinterpret_cast<const uint8_t*>(tiling))
#define GET_TILING_DATA_PTR_WITH_STRUCT(Struct, var, tiling) \
    const Struct* var = reinterpret_cast<const Struct*>(tiling)

// The host-side BEGIN_TILING_DATA_DEF family, so a tiling header written for CANN's op_host
// (e.g. the add_custom sample's) yields the same plain struct in the kernel.
#define BEGIN_TILING_DATA_DEF(name) struct name {
#define TILING_DATA_FIELD_DEF(type, field) type field;
#define TILING_DATA_FIELD_DEF_ARR(type, n, field) type field[n];
#define TILING_DATA_FIELD_DEF_STRUCT(type, field) type field;
#define END_TILING_DATA_DEF }
#define REGISTER_TILING_DATA_CLASS(op, cls) using OpgenDefaultTilingData = cls;
