// opgen host runtime: CANN's graph/utils/type_utils.h on the CPU (see ../../opgen_host/ge_types.h).
// ge::TypeUtils: element sizes and the DT_* / FORMAT_* spellings of data types and formats.
#pragma once
#include <cstdint>
#include <string>

#include "../../opgen_host/ge_types.h"

namespace ge {
class TypeUtils {
public:
    // Bytes per element of `data_type` into `length`; false (length untouched) for a type with
    // no whole-byte size. Strings count as two 64-bit words, as in CANN.
    static bool GetDataTypeLength(const DataType data_type, uint32_t& length) {
        if (data_type == DT_STRING || data_type == DT_STRING_REF) {
            length = static_cast<uint32_t>(sizeof(uint64_t) * 2U);
            return true;
        }
        const int size = GetSizeByDataType(data_type);
        if (size <= 0) return false;
        length = static_cast<uint32_t>(size);
        return true;
    }

    static std::string DataTypeToSerialString(const DataType data_type) {
        switch (data_type) {
#define OPGEN_DT_NAME(n) case n: return #n;
            OPGEN_DT_NAME(DT_FLOAT) OPGEN_DT_NAME(DT_FLOAT16) OPGEN_DT_NAME(DT_INT8)
            OPGEN_DT_NAME(DT_INT32) OPGEN_DT_NAME(DT_UINT8) OPGEN_DT_NAME(DT_INT16)
            OPGEN_DT_NAME(DT_UINT16) OPGEN_DT_NAME(DT_UINT32) OPGEN_DT_NAME(DT_INT64)
            OPGEN_DT_NAME(DT_UINT64) OPGEN_DT_NAME(DT_DOUBLE) OPGEN_DT_NAME(DT_BOOL)
            OPGEN_DT_NAME(DT_STRING) OPGEN_DT_NAME(DT_DUAL_SUB_INT8)
            OPGEN_DT_NAME(DT_DUAL_SUB_UINT8) OPGEN_DT_NAME(DT_COMPLEX64)
            OPGEN_DT_NAME(DT_COMPLEX128) OPGEN_DT_NAME(DT_QINT8) OPGEN_DT_NAME(DT_QINT16)
            OPGEN_DT_NAME(DT_QINT32) OPGEN_DT_NAME(DT_QUINT8) OPGEN_DT_NAME(DT_QUINT16)
            OPGEN_DT_NAME(DT_RESOURCE) OPGEN_DT_NAME(DT_STRING_REF) OPGEN_DT_NAME(DT_DUAL)
            OPGEN_DT_NAME(DT_VARIANT) OPGEN_DT_NAME(DT_BF16) OPGEN_DT_NAME(DT_UNDEFINED)
            OPGEN_DT_NAME(DT_INT4) OPGEN_DT_NAME(DT_UINT1) OPGEN_DT_NAME(DT_INT2)
            OPGEN_DT_NAME(DT_UINT2) OPGEN_DT_NAME(DT_COMPLEX32)
#undef OPGEN_DT_NAME
            default: return "UNDEFINED";
        }
    }
    static AscendString DataTypeToAscendString(const DataType& data_type) {
        return AscendString(DataTypeToSerialString(data_type).c_str());
    }
    // The primary format's name without its FORMAT_ prefix ("ND", "NCHW", ...), as CANN's.
    static std::string FormatToSerialString(const Format format) {
        switch (static_cast<Format>(GetPrimaryFormat(static_cast<int32_t>(format)))) {
#define OPGEN_FORMAT_NAME(n) case n: return std::string(#n).substr(7);
            OPGEN_FORMAT_NAME(FORMAT_NCHW)
            OPGEN_FORMAT_NAME(FORMAT_NHWC)
            OPGEN_FORMAT_NAME(FORMAT_ND)
            OPGEN_FORMAT_NAME(FORMAT_NC1HWC0)
            OPGEN_FORMAT_NAME(FORMAT_FRACTAL_Z)
            OPGEN_FORMAT_NAME(FORMAT_NC1C0HWPAD)
            OPGEN_FORMAT_NAME(FORMAT_NHWC1C0)
            OPGEN_FORMAT_NAME(FORMAT_FSR_NCHW)
            OPGEN_FORMAT_NAME(FORMAT_FRACTAL_DECONV)
            OPGEN_FORMAT_NAME(FORMAT_C1HWNC0)
            OPGEN_FORMAT_NAME(FORMAT_FRACTAL_DECONV_TRANSPOSE)
            OPGEN_FORMAT_NAME(FORMAT_FRACTAL_DECONV_SP_STRIDE_TRANS)
            OPGEN_FORMAT_NAME(FORMAT_NC1HWC0_C04)
            OPGEN_FORMAT_NAME(FORMAT_FRACTAL_Z_C04)
            OPGEN_FORMAT_NAME(FORMAT_CHWN)
            OPGEN_FORMAT_NAME(FORMAT_FRACTAL_DECONV_SP_STRIDE8_TRANS)
            OPGEN_FORMAT_NAME(FORMAT_HWCN)
            OPGEN_FORMAT_NAME(FORMAT_NC1KHKWHWC0)
            OPGEN_FORMAT_NAME(FORMAT_BN_WEIGHT)
            OPGEN_FORMAT_NAME(FORMAT_FILTER_HWCK)
            OPGEN_FORMAT_NAME(FORMAT_HASHTABLE_LOOKUP_LOOKUPS)
            OPGEN_FORMAT_NAME(FORMAT_HASHTABLE_LOOKUP_KEYS)
            OPGEN_FORMAT_NAME(FORMAT_HASHTABLE_LOOKUP_VALUE)
            OPGEN_FORMAT_NAME(FORMAT_HASHTABLE_LOOKUP_OUTPUT)
            OPGEN_FORMAT_NAME(FORMAT_HASHTABLE_LOOKUP_HITS)
            OPGEN_FORMAT_NAME(FORMAT_C1HWNCoC0)
            OPGEN_FORMAT_NAME(FORMAT_MD)
            OPGEN_FORMAT_NAME(FORMAT_NDHWC)
            OPGEN_FORMAT_NAME(FORMAT_FRACTAL_ZZ)
            OPGEN_FORMAT_NAME(FORMAT_FRACTAL_NZ)
            OPGEN_FORMAT_NAME(FORMAT_NCDHW)
            OPGEN_FORMAT_NAME(FORMAT_DHWCN)
            OPGEN_FORMAT_NAME(FORMAT_NDC1HWC0)
            OPGEN_FORMAT_NAME(FORMAT_FRACTAL_Z_3D)
            OPGEN_FORMAT_NAME(FORMAT_CN)
            OPGEN_FORMAT_NAME(FORMAT_NC)
            OPGEN_FORMAT_NAME(FORMAT_DHWNC)
            OPGEN_FORMAT_NAME(FORMAT_FRACTAL_Z_3D_TRANSPOSE)
            OPGEN_FORMAT_NAME(FORMAT_FRACTAL_ZN_LSTM)
            OPGEN_FORMAT_NAME(FORMAT_FRACTAL_Z_G)
            OPGEN_FORMAT_NAME(FORMAT_RESERVED)
            OPGEN_FORMAT_NAME(FORMAT_ALL)
            OPGEN_FORMAT_NAME(FORMAT_NULL)
            OPGEN_FORMAT_NAME(FORMAT_ND_RNN_BIAS)
            OPGEN_FORMAT_NAME(FORMAT_FRACTAL_ZN_RNN)
            OPGEN_FORMAT_NAME(FORMAT_NYUV)
            OPGEN_FORMAT_NAME(FORMAT_NYUV_A)
            OPGEN_FORMAT_NAME(FORMAT_NCL)
#undef OPGEN_FORMAT_NAME
            default: return "RESERVED";
        }
    }
    static AscendString FormatToAscendString(const Format& format) {
        return AscendString(FormatToSerialString(format).c_str());
    }
};
}  // namespace ge
