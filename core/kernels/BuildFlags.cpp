#include "kernels/BuildFlags.h"

#include "util/Error.h"

namespace ts {

std::vector<std::string> buildFlags(const std::vector<Parameter>& parameters, const Config& config) {
    if (parameters.size() != config.size()) {
        throw Error("A config of " + std::to_string(config.size()) + " values was given for " +
                    std::to_string(parameters.size()) + " parameters.");
    }
    std::vector<std::string> flags;
    flags.reserve(config.size());
    for (std::size_t i = 0; i < config.size(); ++i) {
        const std::string& name = parameters[i].name;
        const Value& value = config[i];
        if (const auto* b = std::get_if<bool>(&value)) {
            flags.push_back("-D" + name + (*b ? "=1" : "=0"));
        } else if (const auto* s = std::get_if<std::string>(&value)) {
            flags.push_back("-D" + name + "_" + *s + "=1");
        } else {
            flags.push_back("-D" + name + "=" + toString(value));
        }
    }
    return flags;
}

} // namespace ts
