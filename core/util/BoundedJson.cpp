#include "util/BoundedJson.h"

#include "util/Error.h"

#include <fmt/format.h>

#include <istream>

namespace ts {

namespace {

// nlohmann's callback gets the number of open containers around each event: an array or object that
// starts at depth kMaxJsonDepth would be level kMaxJsonDepth + 1.
template <typename Json> typename Json::parser_callback_t depthGuard(std::string_view source) {
    return [source](int depth, typename Json::parse_event_t event, Json&) {
        if (depth >= kMaxJsonDepth &&
            (event == Json::parse_event_t::object_start || event == Json::parse_event_t::array_start))
            throw Error(jsonTooDeepMessage(source));
        return true;
    };
}

template <typename Json, typename Input>
Json parseWithLimit(Input&& input, std::string_view source, JsonSyntaxErrors syntax) {
    return Json::parse(std::forward<Input>(input), depthGuard<Json>(source),
                       syntax == JsonSyntaxErrors::Throw);
}

} // namespace

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
