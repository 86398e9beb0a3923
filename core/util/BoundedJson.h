#pragma once

#include <nlohmann/json.hpp>

#include <iosfwd>
#include <string>
#include <string_view>

namespace ts {

// The deepest nesting of arrays and objects that any JSON input may have. nlohmann parses iteratively, but
// its dump, copy and comparison recurse, and so do our own walks: deeper input would exhaust the stack.
inline constexpr int kMaxJsonDepth = 512;

// The most keys one JSON object may have. nlohmann's ordered_json finds each key by a linear search, so
// reading an object of n keys takes n^2 / 2 comparisons: a 1 MB object of 100,000 keys took 30 s.
inline constexpr std::size_t kMaxJsonObjectKeys = 10000;

// The one sentence for JSON nested deeper than kMaxJsonDepth; `source` names the input (file, line, key).
std::string jsonTooDeepMessage(std::string_view source);
// The one sentence for an object of more than kMaxJsonObjectKeys keys.
std::string jsonTooWideMessage(std::string_view source);

// What a parse does with text that is not JSON: a discarded value (check is_discarded(), like nlohmann's
// allow_exceptions = false), or nlohmann::json::parse_error.
enum class JsonSyntaxErrors { Discard, Throw };

// Every parse of outside JSON (files, user text, database columns) goes through these: they throw Error
// with jsonTooDeepMessage(source) as soon as the input nests deeper than kMaxJsonDepth, and with
// jsonTooWideMessage(source) at the key after kMaxJsonObjectKeys of one object.
nlohmann::json parseBoundedJson(std::string_view text, std::string_view source,
                                JsonSyntaxErrors syntax = JsonSyntaxErrors::Discard);
nlohmann::json parseBoundedJson(std::istream& in, std::string_view source,
                                JsonSyntaxErrors syntax = JsonSyntaxErrors::Discard);
nlohmann::ordered_json parseBoundedOrderedJson(std::string_view text, std::string_view source,
                                               JsonSyntaxErrors syntax = JsonSyntaxErrors::Discard);
nlohmann::ordered_json parseBoundedOrderedJson(std::istream& in, std::string_view source,
                                               JsonSyntaxErrors syntax = JsonSyntaxErrors::Discard);

} // namespace ts
