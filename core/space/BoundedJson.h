#pragma once

#include <nlohmann/json.hpp>

#include <istream>
#include <string>

namespace ts {

// How deeply a spec file (kernel.json, T1) may nest arrays and objects. Real files nest fewer than ten
// levels; the bound keeps every recursive walk over the document (dump, copy, comparison) bounded.
inline constexpr int kMaxJsonNesting = 64;

// Parses a JSON document for the readers of user files. Throws Error naming `name` when the text is not
// JSON ("NAME: not valid JSON (...).") or nests deeper than kMaxJsonNesting.
nlohmann::json parseBoundedJson(std::istream& in, const std::string& name);

} // namespace ts
