#include "deploy/DeploymentHeaderChecks.h"

#include "deploy/ConstraintValuesText.h"

namespace ts {

namespace {

// The interpreter over the header's tables; Value and the arithmetic before it are constraint_values.h's.
const char* const kInterpreter = R"(
// A config value as the constraint sees it: text as a str, True/False and whole numbers (as their text
// shows them) as ints, other numbers as floats.
inline Value paramValue(const Param& p) {
    if (!p.numeric)
        return strValue(p.text);
    if (p.text == "True" || p.text == "False")
        return intValue(p.text == "True" ? 1 : 0);
    std::size_t k = !p.text.empty() && p.text[0] == '-' ? 1 : 0;
    if (k == p.text.size())
        return floatValue(p.number);
    std::int64_t v = 0;
    for (; k < p.text.size(); ++k) {
        const char c = p.text[k];
        if (c < '0' || c > '9' || mulOverflows(v, 10) || subOverflows(v * 10, c - '0'))
            return floatValue(p.number);
        v = v * 10 - (c - '0'); // negative, so that the int64 minimum fits
    }
    if (p.text[0] == '-')
        return intValue(v);
    return v == kIntMin ? floatValue(p.number) : intValue(-v);
}

// Whether the constraint holds for the entry's config at the shape; false also when it cannot be evaluated
// there (a name the config lacks, a division by zero, a type error).
inline bool holds(const Check& check, const Entry& entry, const std::int64_t* shape, std::size_t rank) {
    std::array<Value, kStackDepth> stack{};
    const char* error = nullptr; // why it could not be evaluated: false says enough here
    const auto param = [&entry](std::string_view name, Value& out) {
        for (std::size_t k = entry.paramOffset; k < entry.paramOffset + entry.paramCount; ++k)
            if (kParams[k].name == name) {
                out = paramValue(kParams[k]);
                return true;
            }
        return false;
    };
    return run(kCode.data() + check.codeOffset, check.codeCount, stack.data(), stack.size(), shape, rank,
               [](const Instr& in) { return in.s; }, param, error);
}

inline bool satisfies(const Entry& entry, const std::int64_t* shape, std::size_t rank) {
    for (std::size_t k = entry.checkOffset; k < entry.checkOffset + entry.checkCount; ++k)
        if (!holds(kChecks[k], entry, shape, rank))
            return false;
    return true;
}

)";

} // namespace

std::string deploymentHeaderChecks() {
    return std::string("namespace detail {\n\n") + kConstraintValues + "\n" + kInterpreter +
           "} // namespace detail\n";
}

} // namespace ts
