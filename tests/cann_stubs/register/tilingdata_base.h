// Stub of CANN register/tilingdata_base.h: the BEGIN_TILING_DATA_DEF macro family. The fields are
// plain members in declaration order, so SaveToBuffer writes the same bytes as the equivalent
// C++ struct (what the kernel's GET_TILING_DATA reads).
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "register/op_def_registry.h"

namespace optiling {
class TilingDef {
public:
    void SaveToBuffer(void* pdata, size_t capacity);
    size_t GetDataSize() const;
};
}  // namespace optiling

#define BEGIN_TILING_DATA_DEF(class_name) \
    class class_name : public TilingDef { \
    public:
#define TILING_DATA_FIELD_DEF(data_type, field_name)                   \
    void set_##field_name(data_type field_name) { field_name##_ = field_name; } \
    data_type get_##field_name() const { return field_name##_; }       \
                                                                       \
private:                                                               \
    data_type field_name##_ = 0;                                       \
                                                                       \
public:
#define TILING_DATA_FIELD_DEF_ARR(arr_type, arr_size, field_name)                     \
    void set_##field_name(const arr_type* field_name)                                 \
    {                                                                                 \
        std::memcpy(field_name##_, field_name, sizeof(arr_type) * (arr_size));       \
    }                                                                                 \
    const arr_type* get_##field_name() const { return field_name##_; }               \
                                                                                      \
private:                                                                              \
    arr_type field_name##_[arr_size] = {};                                            \
                                                                                      \
public:
#define END_TILING_DATA_DEF                                                           \
public:                                                                               \
    size_t GetDataSize() const { return sizeof(*this); }                              \
    void SaveToBuffer(void* pdata, size_t capacity) const                             \
    {                                                                                 \
        if (capacity >= sizeof(*this)) {                                              \
            std::memcpy(pdata, static_cast<const void*>(this), sizeof(*this));        \
        }                                                                             \
    }                                                                                 \
    }
#define REGISTER_TILING_DATA_CLASS(op_type, class_name) \
    class op_type##class_name##Helper {                 \
    public:                                             \
        op_type##class_name##Helper();                  \
    };
