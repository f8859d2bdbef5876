// opgen host runtime: the op_host side of CANN's tiling-data classes (BEGIN_TILING_DATA_DEF,
// TILING_DATA_FIELD_DEF(_ARR|_STRUCT), END_TILING_DATA_DEF, REGISTER_TILING_DATA_CLASS).
// The serialised layout is CANN's: each field at the next multiple of its element size (a nested
// tiling struct at a multiple of 8), the whole padded to 8 bytes. That is the layout of the plain
// struct the kernel side of the same header declares (opgen_sim/tiling.h), so GET_TILING_DATA
// reads what SaveToBuffer wrote.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "ge_types.h"
#include "host_log.h"


namespace optiling {

class TilingDef {
public:
    TilingDef() = default;
    TilingDef(const TilingDef& o) : size_(o.size_), class_name_(o.class_name_) {
        data_ = new uint8_t[size_ == 0 ? 1 : size_]();
        if (o.data_ != nullptr && size_ != 0) std::memcpy(data_, o.data_, size_);
    }
    TilingDef& operator=(const TilingDef& o) {
        if (this != &o && o.data_ != nullptr && data_ != nullptr && o.size_ == size_) {
            std::memcpy(data_, o.data_, size_);
        }
        return *this;
    }
    virtual ~TilingDef() {
        if (owned_) delete[] data_;
    }
    void SaveToBuffer(void* pdata, size_t capacity) {
        if (pdata == nullptr || capacity < size_) {
            opgen_host::LogRecord(opgen_host::kLogError,
                                  std::string(class_name_) + "::SaveToBuffer: the buffer holds " +
                                      std::to_string(capacity) + " bytes, the tiling data " +
                                      std::to_string(size_) + "; nothing was saved");
            return;
        }
        if (pdata != data_) std::memcpy(pdata, data_, size_);
    }
    size_t GetDataSize() const { return size_; }
    const char* GetTilingClassName() const { return class_name_; }
    void SetDataPtr(void* ptr) {
        if (owned_) delete[] data_;
        owned_ = false;
        data_ = static_cast<uint8_t*>(ptr);
        for (auto& child : children_) child.first->SetDataPtr(data_ + child.second);
    }

protected:
    size_t OpgenField(size_t type_size, size_t count) {
        OpgenAlign(type_size);
        const size_t offset = size_;
        size_ += type_size * count;
        return offset;
    }
    size_t OpgenStructField(TilingDef* child) {
        OpgenAlign(8);
        const size_t offset = size_;
        size_ += child->GetDataSize();
        children_.emplace_back(child, offset);
        return offset;
    }
    void OpgenFinish(const char* name) {
        class_name_ = name;
        OpgenAlign(8);
        data_ = new uint8_t[size_ == 0 ? 1 : size_]();
        owned_ = true;
        for (auto& child : children_) child.first->SetDataPtr(data_ + child.second);
    }
    void OpgenAlign(size_t n) {
        if (n != 0 && size_ % n != 0) size_ += n - size_ % n;
    }
    uint8_t* data_ = nullptr;
    size_t size_ = 0;
    bool owned_ = false;
    const char* class_name_ = "";
    std::vector<std::pair<TilingDef*, size_t>> children_;
};

using TilingDataConstructor = std::shared_ptr<TilingDef> (*)();

class CTilingDataClassFactory {
public:
    static CTilingDataClassFactory& GetInstance() {
        static CTilingDataClassFactory* f = new CTilingDataClassFactory();
        return *f;
    }
    void RegisterTilingData(const char* op_type, TilingDataConstructor make) {
        makers_[op_type] = make;
    }
    std::shared_ptr<TilingDef> CreateTilingDataInstance(const char* op_type) {
        auto it = makers_.find(op_type);
        return it == makers_.end() || it->second == nullptr ? nullptr : it->second();
    }

private:
    std::map<std::string, TilingDataConstructor> makers_;
};

}  // namespace optiling

#define BEGIN_TILING_DATA_DEF(class_name)                       \
    class class_name : public ::optiling::TilingDef {            \
    public:                                                      \
        class_name() { OpgenFinish(#class_name); }               \
        explicit class_name(void* ptr) {                         \
            OpgenFinish(#class_name);                            \
            if (ptr != nullptr) SetDataPtr(ptr);                 \
        }

#define TILING_DATA_FIELD_DEF(data_type, field_name)                                      \
public:                                                                                   \
    void set_##field_name(data_type field_name) {                                         \
        std::memcpy(data_ + field_name##_offset_, &field_name, sizeof(data_type));        \
    }                                                                                     \
    data_type get_##field_name() const {                                                  \
        data_type value;                                                                  \
        std::memcpy(&value, data_ + field_name##_offset_, sizeof(data_type));             \
        return value;                                                                     \
    }                                                                                     \
                                                                                          \
private:                                                                                  \
    size_t field_name##_offset_ = OpgenField(sizeof(data_type), 1);

#define TILING_DATA_FIELD_DEF_ARR(arr_type, arr_size, field_name)                         \
public:                                                                                   \
    void set_##field_name(const arr_type* field_name) {                                   \
        if (reinterpret_cast<const uint8_t*>(field_name) == data_ + field_name##_offset_) \
            return;                                                                       \
        std::memcpy(data_ + field_name##_offset_, field_name, sizeof(arr_type) * (arr_size)); \
    }                                                                                     \
    arr_type* get_##field_name() {                                                        \
        return reinterpret_cast<arr_type*>(data_ + field_name##_offset_);                 \
    }                                                                                     \
                                                                                          \
private:                                                                                  \
    size_t field_name##_offset_ = OpgenField(sizeof(arr_type), (arr_size));

#define TILING_DATA_FIELD_DEF_STRUCT(struct_type, field_name) \
public:                                                       \
    struct_type field_name;                                   \
                                                              \
private:                                                      \
    size_t field_name##_offset_ = OpgenStructField(&field_name);

// As CANN's: the closing brace and its semicolon (sources write it with or without one more).
#define END_TILING_DATA_DEF \
    }                       \
    ;

#define REGISTER_TILING_DATA_CLASS(op_type, class_name)                                      \
    namespace {                                                                              \
    struct op_type##class_name##OpgenHelper {                                                \
        op_type##class_name##OpgenHelper() {                                                 \
            ::optiling::CTilingDataClassFactory::GetInstance().RegisterTilingData(           \
                #op_type, [] {                                                               \
                    return std::shared_ptr<::optiling::TilingDef>(std::make_shared<class_name>()); \
                });                                                                          \
        }                                                                                    \
    };                                                                                       \
    static op_type##class_name##OpgenHelper g_opgen_tiling_##op_type##class_name;            \
    }
