#pragma once

#include <filesystem>
#include <system_error>

// A benchmark's own folder (build cache, databases), created empty and removed however the run ends.
class ScratchFolder {
public:
    explicit ScratchFolder(std::filesystem::path path) : m_path(std::move(path)) {
        std::filesystem::remove_all(m_path);
        std::filesystem::create_directories(m_path);
    }
    ~ScratchFolder() {
        std::error_code ec;
        std::filesystem::remove_all(m_path, ec);
    }
    ScratchFolder(const ScratchFolder&) = delete;
    ScratchFolder& operator=(const ScratchFolder&) = delete;
    const std::filesystem::path& path() const { return m_path; }

private:
    std::filesystem::path m_path;
};
