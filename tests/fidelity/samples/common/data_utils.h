// File helpers of the CANN samples' CPU-debug drivers (ReadFile / WriteFile), kept as the
// samples ship them: the driver reads ./input/*.bin and writes ./output/*.bin.
#ifndef DATA_UTILS_H
#define DATA_UTILS_H
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <string>

inline bool ReadFile(const std::string& filePath, size_t& fileSize, void* buffer, size_t bufferSize)
{
    std::ifstream file(filePath, std::ios::binary);
    if (!file.is_open()) {
        std::printf("Open file failed. path = %s\n", filePath.c_str());
        return false;
    }
    file.seekg(0, std::ios::end);
    size_t size = static_cast<size_t>(file.tellg());
    file.seekg(0, std::ios::beg);
    if (size > bufferSize) {
        std::printf("file size %zu is larger than buffer size %zu\n", size, bufferSize);
        return false;
    }
    file.read(static_cast<char*>(buffer), static_cast<std::streamsize>(size));
    fileSize = size;
    return true;
}

inline bool WriteFile(const std::string& filePath, const void* buffer, size_t size)
{
    std::ofstream file(filePath, std::ios::binary | std::ios::trunc);
    if (!file.is_open()) {
        std::printf("Open file failed. path = %s\n", filePath.c_str());
        return false;
    }
    file.write(static_cast<const char*>(buffer), static_cast<std::streamsize>(size));
    return true;
}
#endif  // DATA_UTILS_H
