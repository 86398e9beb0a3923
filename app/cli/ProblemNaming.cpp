#include "ProblemNaming.h"

#include "kernels/KernelSizes.h"
#include "kernels/KernelSpecReader.h"
#include "deploy/DeploymentBuilder.h"
#include "util/BoundedJson.h"
#include "util/Error.h"

#include <algorithm>
#include <fmt/format.h>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>

namespace ts::cli {

namespace {

using Json = nlohmann::ordered_json;

Json parsedProblem(const std::string& problem) {
    return problem.empty() ? Json() : parseBoundedOrderedJson(problem, "a stored problem size");
}

std::vector<std::string> namesOf(const Json& problem) {
    std::vector<std::string> names;
    if (problem.is_object())
        for (const auto& [name, value] : problem.items())
            names.push_back(name);
    return names;
}

bool sameNames(const KernelSpec& spec, const std::vector<std::string>& names) {
    std::vector<std::string> specNames;
    for (const ProblemParameter& p : spec.problem)
        specNames.push_back(p.name);
    std::vector<std::string> sorted = names;
    std::sort(specNames.begin(), specNames.end());
    std::sort(sorted.begin(), sorted.end());
    return specNames == sorted;
}

// The spec a session was tuned from, when its file still exists and still names the same sizes.
std::optional<KernelSpec> recordedSpec(const SessionRecord& session, const std::vector<std::string>& names) {
    const Json settings = parseBoundedOrderedJson(session.settings, "stored session settings");
    if (!settings.is_object() || !settings.contains("kernel") || !settings["kernel"].is_object())
        return std::nullopt;
    const Json& kernel = settings["kernel"];
    const std::string file = kernel.contains("spec") && kernel["spec"].is_string()
                                 ? kernel["spec"].get<std::string>()
                                 : std::string();
    if (file.empty())
        return std::nullopt;
    try {
        KernelSpec spec = readKernelSpec(file);
        if (sameNames(spec, names))
            return spec;
    } catch (const Error&) {
        // Moved or edited since: the names and values stored with the sessions still serve.
    }
    return std::nullopt;
}

// Every value of a positional size, checked as parseProblemSize checks one ("... gives value 2 the value
// \"x\", which is not a whole number").
std::vector<std::int64_t> positionalSize(const std::string& kernel, const std::string& text) {
    KernelSpec unnamed;
    unnamed.name = kernel;
    const std::size_t count = std::max<std::size_t>(1, std::count(text.begin(), text.end(), ',') + 1);
    for (std::size_t i = 0; i < count; ++i)
        unnamed.problem.push_back({fmt::format("value {}", i + 1), 0});
    return parseProblemSize(unnamed, text);
}

std::optional<KernelSpec> catalogSpec(const KernelCatalog& catalog, const std::string& kernel,
                                      const std::vector<std::string>& names) {
    for (const KernelSpec& spec : catalog.all())
        if (spec.name == kernel && sameNames(spec, names))
            return spec;
    return std::nullopt;
}

} // namespace

std::vector<std::int64_t> storedShape(const std::string& problem) {
    std::vector<std::int64_t> shape;
    for (const auto& value : DeploymentBuilder::problemShape(problem))
        shape.push_back(value.get<std::int64_t>());
    return shape;
}

ProblemNaming::ProblemNaming(const std::string& kernel, const std::vector<SessionRecord>& sessions,
                             const KernelCatalog& catalog)
    : m_kernel(kernel) {
    std::optional<KernelSpec> spec;
    // Per name, the values the sessions store (a default is only taken from them when they all agree).
    std::map<std::string, std::set<std::int64_t>> values;
    for (const SessionRecord& session : sessions) {
        if (session.kernel != kernel)
            continue;
        if (const std::vector<std::int64_t> shape = storedShape(session.problem); !shape.empty())
            m_ranks.insert(shape.size());
        const Json problem = parsedProblem(session.problem);
        const std::vector<std::string> names = namesOf(problem);
        if (names.empty())
            continue;
        if (m_storedNames.empty())
            m_storedNames = names;
        if (names != m_storedNames)
            continue;
        for (const auto& [name, value] : problem.items())
            if (value.is_number_integer())
                values[name].insert(value.get<std::int64_t>());
        if (!spec)
            spec = recordedSpec(session, names);
    }
    if (m_storedNames.empty())
        return;
    if (!spec)
        spec = catalogSpec(catalog, kernel, m_storedNames);
    if (spec) {
        m_spec = *spec;
        return;
    }
    m_spec.name = kernel;
    for (const std::string& name : m_storedNames) {
        const std::set<std::int64_t>& seen = values[name];
        m_spec.problem.push_back({name, seen.size() == 1 ? *seen.begin() : 0});
    }
}

std::vector<std::int64_t> ProblemNaming::parsePositional(const std::string& kernel, const std::string& text) {
    return positionalSize(kernel, text);
}

std::string ProblemNaming::names() const {
    std::string text;
    for (const ProblemParameter& p : m_spec.problem)
        text += (text.empty() ? "" : ",") + p.name;
    return text;
}

std::vector<std::int64_t> ProblemNaming::parse(const std::string& text) const {
    const bool byName = text.find('=') != std::string::npos;
    if (!named()) {
        if (byName)
            throw Error(
                fmt::format("The size \"{}\" gives sizes by name, but kernel \"{}\" records its size as "
                            "numbers without names: give every value, in order.",
                            text, m_kernel));
        return positionalSize(m_kernel, text);
    }
    if (!byName && !m_ranks.count(positionalSize(m_kernel, text).size()))
        return positionalSize(m_kernel, text);
    const ProblemSize size = parseProblemSize(m_spec, text);
    std::vector<std::int64_t> shape;
    for (const std::string& name : m_storedNames)
        for (std::size_t i = 0; i < m_spec.problem.size(); ++i)
            if (m_spec.problem[i].name == name) {
                if (size[i] == 0)
                    throw Error(
                        fmt::format("The size \"{}\" does not give {}, and the records of kernel \"{}\" "
                                    "hold no single value for it: give {} too.",
                                    text, name, m_kernel, name));
                shape.push_back(size[i]);
            }
    return shape;
}

std::string ProblemNaming::describe(const std::string& problem) const {
    const Json value = parsedProblem(problem);
    if (value.is_object() && named() && namesOf(value) == m_storedNames) {
        std::string text;
        for (const ProblemParameter& p : m_spec.problem)
            if (value.contains(p.name))
                text += fmt::format("{}{}={}", text.empty() ? "" : ",", p.name, value[p.name].dump());
        return text;
    }
    if (value.is_object()) {
        std::string text;
        for (const auto& [name, size] : value.items())
            text += fmt::format("{}{}={}", text.empty() ? "" : ",", name, size.dump());
        return text.empty() ? "-" : text;
    }
    const std::vector<std::int64_t> shape = storedShape(problem);
    return shape.empty() ? "-" : fmt::format("{}", fmt::join(shape, ","));
}

} // namespace ts::cli

namespace ts::cli {

std::string ProblemNaming::describeShape(const std::vector<std::int64_t>& shape) const {
    if (!named() || shape.size() != m_storedNames.size())
        return fmt::format("[{}]", fmt::join(shape, ", "));
    std::string text;
    for (const ProblemParameter& p : m_spec.problem)
        for (std::size_t i = 0; i < m_storedNames.size(); ++i)
            if (m_storedNames[i] == p.name)
                text += fmt::format("{}{}={}", text.empty() ? "" : ",", p.name, shape[i]);
    return text;
}

} // namespace ts::cli
