#include "kernels/ConfigMapping.h"

#include <fmt/format.h>

#include <algorithm>

namespace ts {

namespace {

std::string joined(const std::vector<std::string>& names) {
    std::string out;
    for (const std::string& name : names)
        out += (out.empty() ? "" : ", ") + name;
    return out;
}

} // namespace

ConfigMapping ConfigMapping::of(const std::vector<Parameter>& sourceParameters, const Config& source,
                                const KernelSpace& target, MissingParameters missing) {
    ConfigMapping m;
    const std::string where =
        fmt::format("kernel {}'s {} variant", target.kernelName(), target.variant().backend);
    const std::vector<Parameter>& wanted = target.space().parameters();
    for (const Parameter& p : sourceParameters)
        if (std::none_of(wanted.begin(), wanted.end(), [&](const Parameter& w) { return w.name == p.name; }))
            m.ignored.push_back(p.name);
    const auto sourceOf = [&](const Parameter& w) {
        const auto found = std::find_if(sourceParameters.begin(), sourceParameters.end(),
                                        [&](const Parameter& p) { return p.name == w.name; });
        const auto position = static_cast<std::size_t>(found - sourceParameters.begin());
        return found == sourceParameters.end() || position >= source.size() ? nullptr : &source[position];
    };
    std::vector<std::string> absent;
    for (const Parameter& w : wanted)
        if (!sourceOf(w))
            absent.push_back(w.name);
    const std::optional<SearchSpace::Index> defaults =
        missing == MissingParameters::TakeDefaults ? target.defaultIndex() : std::nullopt;
    const Config defaultConfig = defaults ? target.space().config(*defaults) : Config{};
    if (defaults) {
        m.defaulted = absent;
        absent.clear();
    }
    if (!absent.empty()) {
        std::vector<std::string> names;
        for (const Parameter& p : sourceParameters)
            names.push_back(p.name);
        m.problem = fmt::format("The config has no {} of {} (its parameters are {}).", joined(absent), where,
                                names.empty() ? std::string("none") : joined(names));
        return m;
    }
    Config config;
    for (std::size_t i = 0; i < wanted.size(); ++i) {
        const Parameter& w = wanted[i];
        const Value* given = sourceOf(w);
        const Value& value = given ? *given : defaultConfig[i];
        const auto match = std::find_if(w.values.begin(), w.values.end(),
                                        [&](const Value& v) { return sameValue(v, value); });
        if (match == w.values.end()) {
            m.problem = fmt::format("The config's {} = {} is not one of the values of {} in {}.", w.name,
                                    toString(value), w.name, where);
            return m;
        }
        config.push_back(*match);
    }
    const std::optional<SearchSpace::Index> index = target.space().indexOf(config);
    if (!index || !target.space().isValid(*index)) {
        m.problem = fmt::format("The config breaks the constraints of {} at this problem size.", where);
        return m;
    }
    m.index = index;
    return m;
}

bool ConfigMapping::sameValue(const Value& a, const Value& b) {
    if (isNumeric(a) && isNumeric(b))
        return toNumber(a) == toNumber(b);
    return toString(a) == toString(b);
}

} // namespace ts
