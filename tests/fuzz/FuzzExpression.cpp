// libFuzzer target: the Python-like expression parser and evaluator (constraints, value lists) on arbitrary
// text. Bad text must end in ts::Error, never a crash or a hang.
#include "space/Expression.h"
#include "util/Error.h"

#include <cstdint>
#include <optional>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    try {
        const ts::Expression expression = ts::Expression::parse(text, "constraint");
        const auto lookup = [](std::string_view name) -> std::optional<ts::Value> {
            if (name == "x")
                return ts::Value{std::int64_t{3}};
            if (name == "y")
                return ts::Value{7.5};
            if (name == "s")
                return ts::Value{std::string("row")};
            return std::nullopt;
        };
        (void)expression.test(lookup);
        (void)expression.evaluate(lookup);
    } catch (const ts::Error&) {
    }
    try {
        (void)ts::evaluateValueList(text);
    } catch (const ts::Error&) {
    }
    return 0;
}
