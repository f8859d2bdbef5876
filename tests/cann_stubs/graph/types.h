// Stub of CANN graph/types.h: ge::DataType, ge::Format, graphStatus.
#pragma once
#include <cstddef>
#include <cstdint>

using UINT32 = uint32_t;

namespace ge {
using graphStatus = uint32_t;
const graphStatus GRAPH_SUCCESS = 0;
const graphStatus GRAPH_FAILED = 0xFFFFFFFF;
using Status = uint32_t;
const Status SUCCESS = 0;

enum DataType {
    DT_FLOAT = 0, DT_FLOAT16 = 1, DT_INT8 = 2, DT_INT32 = 3, DT_UINT8 = 4, DT_INT16 = 6,
    DT_UINT16 = 7, DT_UINT32 = 8, DT_INT64 = 9, DT_UINT64 = 10, DT_DOUBLE = 11, DT_BOOL = 12,
    DT_BF16 = 27, DT_UNDEFINED = 28,
};

enum Format {
    FORMAT_NCHW = 0, FORMAT_NHWC = 1, FORMAT_ND = 2, FORMAT_NC1HWC0 = 3, FORMAT_FRACTAL_Z = 4,
    FORMAT_NC1HWC0_C04 = 12, FORMAT_HWCN = 16, FORMAT_C1HWNCoC0 = 25, FORMAT_FRACTAL_NZ = 29,
    FORMAT_NCDHW = 30, FORMAT_DHWCN = 31, FORMAT_NDC1HWC0 = 32, FORMAT_FRACTAL_Z_3D = 33,
    FORMAT_CHWN = 35, FORMAT_NDHWC = 27, FORMAT_FRACTAL_ZN_LSTM = 39, FORMAT_NCL = 47,
};

inline int GetSizeByDataType(DataType data_type)
{
    switch (data_type) {
        case DT_FLOAT16: case DT_BF16: case DT_INT16: case DT_UINT16: return 2;
        case DT_INT8: case DT_UINT8: case DT_BOOL: return 1;
        case DT_INT64: case DT_UINT64: case DT_DOUBLE: return 8;
        default: return 4;
    }
}
}  // namespace ge
