#include "formats/CsvTable.h"

#include "util/Error.h"

#include <fmt/format.h>

namespace ts {

void CsvTable::addRow(const std::vector<std::string>& fields) {
    for (std::size_t i = 0; i < fields.size(); ++i) {
        if (i > 0)
            m_text += ',';
        const std::string& field = fields[i];
        if (field.find_first_of(",\"\r\n") == std::string::npos) {
            m_text += field;
            continue;
        }
        m_text += '"';
        for (const char c : field) {
            if (c == '"')
                m_text += '"';
            m_text += c;
        }
        m_text += '"';
    }
    m_text += "\r\n";
}

std::vector<std::vector<std::string>> CsvTable::parse(std::string_view text, const std::string& source) {
    std::vector<std::vector<std::string>> rows;
    std::vector<std::string> row;
    std::string field;
    std::size_t line = 1;
    std::size_t i = 0;
    bool rowStarted = false;
    while (i < text.size()) {
        const char c = text[i];
        if (c == '"' && field.empty()) {
            const std::size_t openedAt = line;
            ++i;
            while (true) {
                if (i >= text.size())
                    throw Error(fmt::format("{} has a quoted field opened on line {} that is never closed.",
                                            source, openedAt));
                if (text[i] == '"') {
                    if (i + 1 < text.size() && text[i + 1] == '"') {
                        field += '"';
                        i += 2;
                        continue;
                    }
                    ++i;
                    break;
                }
                if (text[i] == '\n')
                    ++line;
                field += text[i++];
            }
            if (i < text.size() && text[i] != ',' && text[i] != '\n' && text[i] != '\r')
                throw Error(fmt::format("{} has text after a closing quote on line {}.", source, line));
            rowStarted = true;
            continue;
        }
        if (c == ',') {
            row.push_back(std::move(field));
            field.clear();
            rowStarted = true;
            ++i;
        } else if (c == '\r' || c == '\n') {
            if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n')
                ++i;
            ++i;
            ++line;
            if (rowStarted || !field.empty()) {
                row.push_back(std::move(field));
                rows.push_back(std::move(row));
            }
            row.clear();
            field.clear();
            rowStarted = false;
        } else {
            field += c;
            rowStarted = true;
            ++i;
        }
    }
    if (rowStarted || !field.empty()) {
        row.push_back(std::move(field));
        rows.push_back(std::move(row));
    }
    return rows;
}

} // namespace ts
