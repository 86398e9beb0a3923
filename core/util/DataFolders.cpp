#include "util/DataFolders.h"

#include <cstdlib>

namespace ts {

std::vector<std::filesystem::path> pathListOf(const char* variable) {
    std::vector<std::filesystem::path> folders;
    const char* value = std::getenv(variable);
    if (!value)
        return folders;
    const std::string text(value);
    std::size_t start = 0;
    while (start <= text.size()) {
        const auto colon = text.find(':', start);
        const auto item = text.substr(start, colon == std::string::npos ? std::string::npos : colon - start);
        if (!item.empty())
            folders.emplace_back(item);
        if (colon == std::string::npos)
            break;
        start = colon + 1;
    }
    return folders;
}

std::filesystem::path userDataFolder(const std::string& name) {
    if (const char* data = std::getenv("XDG_DATA_HOME"); data && *data)
        return std::filesystem::path(data) / "tunescope" / name;
    if (const char* home = std::getenv("HOME"); home && *home)
        return std::filesystem::path(home) / ".local" / "share" / "tunescope" / name;
    return {};
}

} // namespace ts
