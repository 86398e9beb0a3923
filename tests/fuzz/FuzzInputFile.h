#pragma once

// For the targets whose reader takes a path: each input goes through one file of this process, in
// memory-backed /dev/shm when there is one.
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>
#include <unistd.h>

namespace ts::fuzz {

inline std::filesystem::path writeInputFile(const char* stem, const char* extension, const std::uint8_t* data,
                                            std::size_t size) {
    const std::filesystem::path path =
        (std::filesystem::exists("/dev/shm") ? std::filesystem::path("/dev/shm")
                                             : std::filesystem::temp_directory_path()) /
        (std::string(stem) + "-" + std::to_string(getpid()) + extension);
    if (std::FILE* file = std::fopen(path.c_str(), "wb")) {
        if (size > 0 && std::fwrite(data, 1, size, file) != size)
            std::perror("tunescope fuzz: cannot write the input file");
        std::fclose(file);
    }
    return path;
}

} // namespace ts::fuzz
