#include "space/BoundedJson.h"

#include "util/Error.h"

namespace ts {
namespace {

// Thrown from the parser's callback, which sees every value's depth before the document grows deeper.
struct TooDeep {};

} // namespace

nlohmann::json parseBoundedJson(std::istream& in, const std::string& name) {
    const auto bound = [](int depth, nlohmann::json::parse_event_t event, nlohmann::json&) {
        if (depth >= kMaxJsonNesting && (event == nlohmann::json::parse_event_t::object_start ||
                                         event == nlohmann::json::parse_event_t::array_start)) {
            throw TooDeep{};
        }
        return true;
    };
    try {
        return nlohmann::json::parse(in, bound);
    } catch (const nlohmann::json::parse_error& e) {
        throw Error(name + ": not valid JSON (" + e.what() + ").");
    } catch (const TooDeep&) {
        throw Error(name + ": the JSON nests arrays and objects more than " +
                    std::to_string(kMaxJsonNesting) + " levels deep.");
    }
}

} // namespace ts
