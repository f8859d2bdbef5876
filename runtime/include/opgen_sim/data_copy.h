// opgen NPU simulator: DataCopy and DataCopyPad between Global Memory and the Unified Buffer.
#pragma once

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

enum class PaddingMode : uint8_t { Normal = 0, Compact };

}  // namespace AscendC

namespace opgen_sim {

template <typename T>
inline void CheckUbAligned(const AscendC::LocalTensor<T>& t, const char* api, const char* what) {
    t.Check(api);
    if ((reinterpret_cast<uintptr_t>(t.ptr_) & (kBlockBytes - 1)) != 0) {
        Fail(ErrorKind::Alignment, api,
             std::string(what) + " LocalTensor starts at UB offset " + Str(t.UbOffset()) +
                 ", which is not 32-byte aligned (offset % 32 = " + Str(t.UbOffset() % 32) +
                 "); UB operands must start on a 32-byte boundary");
    }
}

template <typename T>
inline void CheckUbExtent(const AscendC::LocalTensor<T>& t, uint64_t bytes, const char* api,
                          const char* what) {
    if (bytes > static_cast<uint64_t>(t.size_) * sizeof(T)) {
        Fail(ErrorKind::LocalMemoryOutOfBounds, api,
             std::string(what) + " access of " + Str(bytes) + " bytes overruns the LocalTensor<" +
                 TypeName<T>() + "> of " + Str(t.size_) + " elements (" +
                 Str(static_cast<uint64_t>(t.size_) * sizeof(T)) + " bytes)");
    }
}

// Length rule of DataCopy: the hardware moves whole 32-byte blocks and rounds down silently.
template <typename T>
inline uint64_t DataCopyBytes(uint32_t count, const char* api) {
    const uint64_t bytes = static_cast<uint64_t>(count) * sizeof(T);
    if (bytes % kBlockBytes == 0) return bytes;
    if (CurrentCore().strict_datacopy) {
        Fail(ErrorKind::Alignment, api,
             "DataCopy of " + Str(count) + " x " + TypeName<T>() + " = " + Str(bytes) +
                 " bytes is not a multiple of 32 bytes; the hardware silently copies only " +
                 Str(bytes / kBlockBytes * kBlockBytes) +
                 " bytes. Use DataCopyPad for unaligned lengths (or launch with "
                 "strict_datacopy=False to simulate the hardware's rounding)");
    }
    return bytes / kBlockBytes * kBlockBytes;
}

}  // namespace opgen_sim

namespace AscendC {

// ---- DataCopy, contiguous ------------------------------------------------------------------
template <typename T>
inline void DataCopy(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const uint32_t count) {
    constexpr const char* api = "DataCopy(GM->UB)";
    opgen_sim::CheckUbAligned(dst, api, "destination");
    const uint64_t bytes = opgen_sim::DataCopyBytes<T>(count, api);
    opgen_sim::CheckUbExtent(dst, bytes, api, "destination");
    src.CheckRange(bytes / sizeof(T), api);
    std::memcpy(dst.ptr_, src.ptr_, bytes);
    opgen_sim::CurrentCore().counters[opgen_sim::kGmToUbBytes] += static_cast<int64_t>(bytes);
}

template <typename T>
inline void DataCopy(const GlobalTensor<T>& dst, const LocalTensor<T>& src, const uint32_t count) {
    constexpr const char* api = "DataCopy(UB->GM)";
    opgen_sim::CheckUbAligned(src, api, "source");
    const uint64_t bytes = opgen_sim::DataCopyBytes<T>(count, api);
    opgen_sim::CheckUbExtent(src, bytes, api, "source");
    dst.CheckRange(bytes / sizeof(T), api);
    std::memcpy(dst.ptr_, src.ptr_, bytes);
    opgen_sim::CurrentCore().counters[opgen_sim::kUbToGmBytes] += static_cast<int64_t>(bytes);
}

template <typename T>
inline void DataCopy(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint32_t count) {
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
inline void DataCopy(const LocalTensor<T>& dst, const GlobalTensor<T>& src,
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
    for (uint16_t i = 0; i < p.blockCount; ++i) std::memcpy(d + i * dstep, s + i * sstep, len);
    opgen_sim::CurrentCore().counters[opgen_sim::kGmToUbBytes] +=
        static_cast<int64_t>(len * p.blockCount);
}

template <typename T>
inline void DataCopy(const GlobalTensor<T>& dst, const LocalTensor<T>& src,
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
    for (uint16_t i = 0; i < p.blockCount; ++i) std::memcpy(d + i * dstep, s + i * sstep, len);
    opgen_sim::CurrentCore().counters[opgen_sim::kUbToGmBytes] +=
        static_cast<int64_t>(len * p.blockCount);
}

template <typename T>
inline void DataCopy(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                     const DataCopyParams& p) {
    constexpr const char* api = "DataCopy(UB->UB, DataCopyParams)";
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
template <typename T, PaddingMode mode = PaddingMode::Normal>
inline void DataCopyPad(const LocalTensor<T>& dst, const GlobalTensor<T>& src,
                        const DataCopyExtParams& p, const DataCopyPadExtParams<T>& pad) {
    constexpr const char* api = "DataCopyPad(GM->UB)";
    opgen_sim::CheckUbAligned(dst, api, "destination");
    if (p.blockLen % sizeof(T) != 0) {
        opgen_sim::Fail(opgen_sim::ErrorKind::Alignment, api,
                        "blockLen " + opgen_sim::Str(p.blockLen) +
                            " bytes is not a whole number of " + opgen_sim::TypeName<T>() +
                            " elements");
    }
    if (p.blockCount == 0 || p.blockLen == 0) return;
    const uint64_t left = pad.isPad ? pad.leftPadding * sizeof(T) : 0;
    const uint64_t right = pad.isPad ? pad.rightPadding * sizeof(T) : 0;
    const uint64_t row = opgen_sim::RoundUp(left + p.blockLen + right, 32);
    const uint64_t dstep = row + static_cast<uint64_t>(p.dstStride) * 32;
    const uint64_t sstep = static_cast<uint64_t>(p.blockLen) + p.srcStride;
    opgen_sim::CheckUbExtent(dst, (p.blockCount - 1) * dstep + row, api, "destination");
    src.CheckRange(((p.blockCount - 1) * sstep + p.blockLen) / sizeof(T), api);
    const uint8_t* s = reinterpret_cast<const uint8_t*>(src.ptr_);
    for (uint16_t i = 0; i < p.blockCount; ++i) {
        uint8_t* d = reinterpret_cast<uint8_t*>(dst.ptr_) + i * dstep;
        std::memcpy(d + left, s + i * sstep, p.blockLen);
        if (pad.isPad) {
            T* e = reinterpret_cast<T*>(d);
            const uint64_t n = row / sizeof(T);
            const uint64_t data_begin = left / sizeof(T);
            const uint64_t data_end = (left + p.blockLen) / sizeof(T);
            for (uint64_t k = 0; k < data_begin; ++k) e[k] = pad.paddingValue;
            for (uint64_t k = data_end; k < n; ++k) e[k] = pad.paddingValue;
        }
    }
    opgen_sim::CurrentCore().counters[opgen_sim::kGmToUbBytes] +=
        static_cast<int64_t>(static_cast<uint64_t>(p.blockLen) * p.blockCount);
}

template <typename T, PaddingMode mode = PaddingMode::Normal>
inline void DataCopyPad(const GlobalTensor<T>& dst, const LocalTensor<T>& src,
                        const DataCopyExtParams& p) {
    constexpr const char* api = "DataCopyPad(UB->GM)";
    opgen_sim::CheckUbAligned(src, api, "source");
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
    dst.CheckRange(((p.blockCount - 1) * dstep + p.blockLen) / sizeof(T), api);
    uint8_t* d = reinterpret_cast<uint8_t*>(dst.ptr_);
    const uint8_t* s = reinterpret_cast<const uint8_t*>(src.ptr_);
    for (uint16_t i = 0; i < p.blockCount; ++i) std::memcpy(d + i * dstep, s + i * sstep, p.blockLen);
    opgen_sim::CurrentCore().counters[opgen_sim::kUbToGmBytes] +=
        static_cast<int64_t>(static_cast<uint64_t>(p.blockLen) * p.blockCount);
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
