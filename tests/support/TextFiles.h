#pragma once

#include <QString>

#include <fstream>
#include <sstream>
#include <string>

namespace ts::test {

// The bytes of a file ("" when it cannot be read).
inline std::string readText(const QString& path) {
    std::ifstream in(path.toStdString(), std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

// Replaces a file's bytes.
inline void writeText(const QString& path, const std::string& text) {
    std::ofstream out(path.toStdString(), std::ios::binary | std::ios::trunc);
    out << text;
}

} // namespace ts::test
