#include "space/T1Reader.h"

#include "space/Expression.h"
#include "space/ValueJson.h"
#include "util/BoundedJson.h"
#include "util/Error.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>

namespace ts {
namespace {

using Json = nlohmann::json;

class T1Context {
public:
    explicit T1Context(const std::filesystem::path& path) : m_file(path.filename().string()) {}

    [[noreturn]] void fail(const std::string& key, const std::string& problem) const {
        throw Error(m_file + ": \"" + key + "\" " + problem);
    }
    const std::string& file() const { return m_file; }

private:
    std::string m_file;
};

std::optional<ParameterType> parameterType(const std::string& text) {
    if (text == "int") {
        return ParameterType::Integer;
    }
    if (text == "float" || text == "double") {
        return ParameterType::Real;
    }
    if (text == "string" || text == "str") {
        return ParameterType::String;
    }
    if (text == "bool") {
        return ParameterType::Bool;
    }
    return std::nullopt;
}

// Converts a value to the parameter's declared type; nullopt when it does not fit (e.g. 1.5 for an int).
std::optional<Value> convert(const Value& value, ParameterType type) {
    switch (type) {
    case ParameterType::Integer:
        if (std::holds_alternative<std::int64_t>(value)) {
            return value;
        }
        if (const auto* d = std::get_if<double>(&value); d && std::isfinite(*d) && std::trunc(*d) == *d) {
            return static_cast<std::int64_t>(*d);
        }
        return std::nullopt;
    case ParameterType::Real:
        if (std::holds_alternative<std::int64_t>(value) || std::holds_alternative<double>(value)) {
            return toNumber(value);
        }
        return std::nullopt;
    case ParameterType::String:
        return toString(value);
    case ParameterType::Bool:
        if (std::holds_alternative<bool>(value)) {
            return value;
        }
        if (const auto* i = std::get_if<std::int64_t>(&value); i && (*i == 0 || *i == 1)) {
            return *i == 1;
        }
        return std::nullopt;
    }
    return std::nullopt;
}

} // namespace

SpaceDefinition readT1Space(const std::filesystem::path& path) {
    const T1Context context(path);
    std::ifstream in(path);
    if (!in) {
        throw Error(context.file() + ": cannot open the file \"" + path.string() + "\".");
    }
    Json root;
    try {
        root = parseBoundedJson(in, context.file(), JsonSyntaxErrors::Throw);
    } catch (const Json::parse_error& e) {
        throw Error(context.file() + ": not valid JSON (" + e.what() + ").");
    }
    if (!root.is_object()) {
        throw Error(context.file() + ": the top level is not a JSON object.");
    }

    SpaceDefinition definition;
    definition.name = path.stem().string();
    if (const auto general = root.find("General"); general != root.end() && general->is_object()) {
        if (const auto name = general->find("BenchmarkName"); name != general->end() && name->is_string()) {
            definition.name = name->get<std::string>();
        }
    }
    if (const auto kernel = root.find("KernelSpecification"); kernel != root.end() && kernel->is_object()) {
        definition.kernelName = kernel->value("KernelName", std::string());
        definition.kernelFile = kernel->value("KernelFile", std::string());
    }

    const auto spaceIt = root.find("ConfigurationSpace");
    if (spaceIt == root.end() || !spaceIt->is_object()) {
        context.fail("ConfigurationSpace", "is missing or not an object.");
    }
    const Json& space = *spaceIt;
    const auto parametersIt = space.find("TuningParameters");
    if (parametersIt == space.end() || !parametersIt->is_array() || parametersIt->empty()) {
        context.fail("ConfigurationSpace.TuningParameters", "is missing or not a non-empty array.");
    }

    std::vector<Parameter> parameters;
    for (std::size_t i = 0; i < parametersIt->size(); ++i) {
        const Json& entry = (*parametersIt)[i];
        const std::string key = "ConfigurationSpace.TuningParameters[" + std::to_string(i) + "]";
        if (!entry.is_object()) {
            context.fail(key, "is not an object.");
        }
        Parameter parameter;
        const auto name = entry.find("Name");
        if (name == entry.end() || !name->is_string() || name->get<std::string>().empty()) {
            context.fail(key + ".Name", "is missing or not a non-empty string.");
        }
        parameter.name = name->get<std::string>();

        const auto typeIt = entry.find("Type");
        if (typeIt != entry.end()) {
            const auto type = typeIt->is_string() ? parameterType(typeIt->get<std::string>()) : std::nullopt;
            if (!type) {
                context.fail(key + ".Type", "is not one of int, float, string, bool.");
            }
            parameter.type = *type;
        }

        const auto valuesIt = entry.find("Values");
        std::vector<Value> raw;
        if (valuesIt == entry.end()) {
            context.fail(key + ".Values", "is missing.");
        } else if (valuesIt->is_string()) {
            try {
                raw = evaluateValueList(valuesIt->get<std::string>());
            } catch (const Error& e) {
                context.fail(key + ".Values", std::string("is not a list expression: ") + e.what());
            }
        } else if (valuesIt->is_array() && !valuesIt->empty()) {
            for (const auto& item : *valuesIt) {
                const auto value = valueFromJson(item);
                if (!value) {
                    context.fail(key + ".Values",
                                 "holds an element that is not a number, string or boolean.");
                }
                raw.push_back(*value);
            }
        } else {
            context.fail(key + ".Values", "is neither a list expression nor a non-empty array.");
        }
        for (const auto& value : raw) {
            const auto converted = convert(value, parameter.type);
            if (!converted) {
                context.fail(key + ".Values", "holds " + toString(value) + ", which is not of type " +
                                                  toString(parameter.type) + ".");
            }
            parameter.values.push_back(*converted);
        }

        Value defaultValue = parameter.values.front();
        if (const auto def = entry.find("Default"); def != entry.end() && !def->is_null()) {
            const Json& source = def->is_array() && def->size() == 1 ? def->front() : *def;
            const auto scalar = valueFromJson(source);
            const auto converted = scalar ? convert(*scalar, parameter.type) : std::nullopt;
            if (!converted) {
                context.fail(key + ".Default",
                             "is not a " + std::string(toString(parameter.type)) + " value.");
            }
            defaultValue = *converted;
        }
        definition.defaults.push_back(defaultValue);
        parameters.push_back(std::move(parameter));
    }

    std::vector<std::string> constraints;
    if (const auto conditions = space.find("Conditions");
        conditions != space.end() && !conditions->is_null()) {
        if (!conditions->is_array()) {
            context.fail("ConfigurationSpace.Conditions", "is not an array.");
        }
        for (std::size_t i = 0; i < conditions->size(); ++i) {
            const Json& condition = (*conditions)[i];
            const std::string key = "ConfigurationSpace.Conditions[" + std::to_string(i) + "].Expression";
            const auto expression = condition.is_object() ? condition.find("Expression") : condition.end();
            if (!condition.is_object() || expression == condition.end() || !expression->is_string()) {
                context.fail(key, "is missing or not a string.");
            }
            constraints.push_back(expression->get<std::string>());
        }
    }

    try {
        definition.space = SearchSpace(std::move(parameters), std::move(constraints));
    } catch (const Error& e) {
        throw Error(context.file() + ": " + e.what());
    }
    const auto index = definition.space.indexOf(definition.defaults);
    if (index && definition.space.isValid(*index)) {
        definition.defaultIndex = index;
    }
    return definition;
}

} // namespace ts
