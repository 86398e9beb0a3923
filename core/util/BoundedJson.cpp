#include "util/BoundedJson.h"

#include "util/Error.h"

#include <fmt/format.h>

#include <istream>
#include <vector>

namespace ts {

namespace {

// nlohmann's callback gets the number of open containers around each event: an array or object that
// starts at depth kMaxJsonDepth would be level kMaxJsonDepth + 1. `keys` counts the keys of each open
// object (keys only come in the innermost open container, which is then an object).
template <typename Json>
typename Json::parser_callback_t limits(std::string_view source, std::vector<std::size_t>& keys) {
    return [source, &keys](int depth, typename Json::parse_event_t event, Json&) {
        using Event = typename Json::parse_event_t;
        if (event == Event::object_start || event == Event::array_start) {
            if (depth >= kMaxJsonDepth)
                throw Error(jsonTooDeepMessage(source));
            if (event == Event::object_start)
                keys.push_back(0);
        } else if (event == Event::object_end) {
            keys.pop_back();
        } else if (event == Event::key && ++keys.back() > kMaxJsonObjectKeys) {
            throw Error(jsonTooWideMessage(source));
        }
        return true;
    };
}

template <typename Json, typename Input>
Json parseWithLimit(Input&& input, std::string_view source, JsonSyntaxErrors syntax) {
    std::vector<std::size_t> keys;
    try {
        return Json::parse(std::forward<Input>(input), limits<Json>(source, keys),
                           syntax == JsonSyntaxErrors::Throw);
    } catch (const nlohmann::json::out_of_range& e) {
        // A number beyond double's range ("1e9999"): nlohmann reports it as out_of_range, not parse_error,
        // and only when exceptions are allowed.
        throw Error(fmt::format("{}: not valid JSON ({}).", source, e.what()));
    }
}

} // namespace

std::string jsonTooWideMessage(std::string_view source) {
    return fmt::format("{} has a JSON object of more than {} keys, the limit.", source, kMaxJsonObjectKeys);
}

std::string jsonTooDeepMessage(std::string_view source) {
    return fmt::format("{} nests JSON arrays and objects more than {} levels deep, the limit.", source,
                       kMaxJsonDepth);
}

nlohmann::json parseBoundedJson(std::string_view text, std::string_view source, JsonSyntaxErrors syntax) {
    return parseWithLimit<nlohmann::json>(text, source, syntax);
}

nlohmann::json parseBoundedJson(std::istream& in, std::string_view source, JsonSyntaxErrors syntax) {
    return parseWithLimit<nlohmann::json>(in, source, syntax);
}

nlohmann::ordered_json parseBoundedOrderedJson(std::string_view text, std::string_view source,
                                               JsonSyntaxErrors syntax) {
    return parseWithLimit<nlohmann::ordered_json>(text, source, syntax);
}

nlohmann::ordered_json parseBoundedOrderedJson(std::istream& in, std::string_view source,
                                               JsonSyntaxErrors syntax) {
    return parseWithLimit<nlohmann::ordered_json>(in, source, syntax);
}

} // namespace ts
