#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ts {

// RFC 4180 CSV: fields holding a comma, a quote, CR or LF are quoted with quotes doubled; rows end in CRLF
// on writing, and CRLF or LF on reading. Quoted fields may span lines.
class CsvTable {
public:
    void addRow(const std::vector<std::string>& fields);
    const std::string& text() const { return m_text; }

    // The rows of `text`. Throws Error naming `source` and the line when a quoted field is not closed or a
    // closing quote is followed by something other than a separator.
    static std::vector<std::vector<std::string>> parse(std::string_view text, const std::string& source);

private:
    std::string m_text;
};

} // namespace ts
