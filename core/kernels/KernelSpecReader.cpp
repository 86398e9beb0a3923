#include "kernels/KernelSpecReader.h"

#include "kernels/KernelSizes.h"
#include "space/Expression.h"
#include "space/ExpressionParser.h"
#include "space/ValueJson.h"
#include "util/BoundedJson.h"
#include "util/Error.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <set>

namespace ts {
namespace {

using Json = nlohmann::json;

bool isIdentifier(const std::string& text) {
    if (text.empty() || std::isdigit(static_cast<unsigned char>(text.front()))) {
        return false;
    }
    return std::all_of(text.begin(), text.end(),
                       [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

// Macro suffixes: string values become -DNAME_value=1, so they must be identifier characters.
bool isMacroSuffix(const std::string& text) {
    return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
    });
}

std::string jsonText(const Json& json) {
    if (!json.is_string()) {
        return json.dump();
    }
    std::string out(1, '"');
    out += json.get<std::string>();
    out += '"';
    return out;
}

// Reads one spec file; every failure names the file and the JSON key.
class SpecParser {
public:
    explicit SpecParser(const std::filesystem::path& file)
        : m_file(std::filesystem::absolute(file).lexically_normal()), m_display(displayPath(file)) {}

    KernelSpec parse() {
        const Json root = load();
        expectObject(root, "the top level");
        checkKeys(root, "",
                  {"name", "description", "problem", "flops", "bytes", "arguments", "tolerance", "reference",
                   "variants"});
        KernelSpec spec;
        spec.specFile = m_file;
        spec.name = requiredString(root, "", "name");
        if (spec.name.find_first_of(" \t/\\") != std::string::npos) {
            fail("name", "\"" + spec.name + "\" contains a space or a slash.");
        }
        spec.description = optionalString(root, "description", "");
        readProblem(root, spec);
        spec.flops = sizeExpression(root, "flops", spec);
        spec.bytes = sizeExpression(root, "bytes", spec);
        readArguments(root, spec);
        readTolerance(root, spec);
        readReference(root, spec);
        checkGpuReference(spec);
        readVariants(root, spec);
        return spec;
    }

private:
    [[noreturn]] void fail(const std::string& key, const std::string& problem) const {
        throw Error(m_display + ": " + key + " " + problem);
    }

    Json load() const {
        std::ifstream in(m_file);
        if (!in) {
            throw Error(m_display + ": cannot open the file.");
        }
        try {
            return parseBoundedJson(in, m_display, JsonSyntaxErrors::Throw);
        } catch (const Json::parse_error& e) {
            throw Error(m_display + ": not valid JSON (" + e.what() + ").");
        }
    }

    static std::string join(const std::string& prefix, const std::string& key) {
        return prefix.empty() ? key : prefix + "." + key;
    }

    void expectObject(const Json& json, const std::string& key) const {
        if (!json.is_object()) {
            if (key == "the top level") {
                throw Error(m_display + ": the top level is not a JSON object.");
            }
            fail(key, "is not an object.");
        }
    }

    void checkKeys(const Json& object, const std::string& prefix,
                   std::initializer_list<const char*> known) const {
        for (const auto& item : object.items()) {
            if (std::none_of(known.begin(), known.end(), [&](const char* k) { return item.key() == k; })) {
                std::string list;
                for (const char* k : known) {
                    list += (list.empty() ? "" : ", ") + std::string(k);
                }
                fail(join(prefix, item.key()), "is not a known key (known: " + list + ").");
            }
        }
    }

    std::string requiredString(const Json& object, const std::string& prefix, const char* key) const {
        const auto it = object.find(key);
        if (it == object.end()) {
            fail(join(prefix, key), "is missing.");
        }
        if (!it->is_string() || it->get<std::string>().empty()) {
            fail(join(prefix, key), "is not a non-empty string.");
        }
        return it->get<std::string>();
    }

    std::string optionalString(const Json& object, const std::string& key, const std::string& fallback,
                               const std::string& prefix = "") const {
        const auto it = object.find(key);
        if (it == object.end()) {
            return fallback;
        }
        if (!it->is_string()) {
            fail(join(prefix, key), "is not a string.");
        }
        return it->get<std::string>();
    }

    const Json& requiredArray(const Json& object, const std::string& prefix, const char* key) const {
        const auto it = object.find(key);
        if (it == object.end()) {
            fail(join(prefix, key), "is missing.");
        }
        if (!it->is_array() || it->empty()) {
            fail(join(prefix, key), "is not a non-empty array.");
        }
        return *it;
    }

    std::vector<std::string> stringList(const Json& object, const std::string& prefix,
                                        const char* key) const {
        std::vector<std::string> out;
        const auto it = object.find(key);
        if (it == object.end()) {
            return out;
        }
        if (!it->is_array()) {
            fail(join(prefix, key), "is not an array of strings.");
        }
        for (std::size_t i = 0; i < it->size(); ++i) {
            if (!(*it)[i].is_string()) {
                fail(join(prefix, key) + "[" + std::to_string(i) + "]", "is not a string.");
            }
            out.push_back((*it)[i].get<std::string>());
        }
        return out;
    }

    std::filesystem::path sourceFile(const Json& object, const std::string& prefix) const {
        const std::string relative = requiredString(object, prefix, "source");
        const auto path = (m_file.parent_path() / relative).lexically_normal();
        std::error_code ec;
        if (!std::filesystem::is_regular_file(path, ec)) {
            fail(join(prefix, "source"), "\"" + relative + "\" does not exist next to the spec.");
        }
        return path;
    }

    // Parses an expression and checks that it names only the allowed identifiers.
    Expression expression(const std::string& text, const std::string& key,
                          const std::set<std::string>& known) const {
        Expression parsed;
        try {
            parsed = Expression::parse(text, key);
        } catch (const Error& e) {
            throw Error(m_display + ": " + e.what());
        }
        for (const auto& name : parsed.variables()) {
            if (!known.count(name)) {
                std::string list;
                for (const auto& k : known) {
                    list += (list.empty() ? "" : ", ") + k;
                }
                std::string quoted(1, '"');
                quoted.append(ExpressionParser::excerpt(text)).push_back('"');
                fail(key, quoted + " names \"" + name + "\", which is not " +
                              (list.empty() ? "defined." : "one of " + list + "."));
            }
        }
        return parsed;
    }

    std::set<std::string> problemNames(const KernelSpec& spec) const {
        std::set<std::string> names;
        for (const auto& p : spec.problem) {
            names.insert(p.name);
        }
        return names;
    }

    void readProblem(const Json& root, KernelSpec& spec) const {
        const Json& problem = requiredArray(root, "", "problem");
        for (std::size_t i = 0; i < problem.size(); ++i) {
            const std::string key = "problem[" + std::to_string(i) + "]";
            const Json& entry = problem[i];
            expectObject(entry, key);
            checkKeys(entry, key, {"name", "default"});
            ProblemParameter parameter;
            parameter.name = requiredString(entry, key, "name");
            if (!isIdentifier(parameter.name)) {
                fail(key + ".name", "\"" + parameter.name + "\" is not an identifier.");
            }
            for (const auto& other : spec.problem) {
                if (other.name == parameter.name) {
                    fail(key + ".name", "\"" + parameter.name + "\" is defined twice.");
                }
            }
            const auto def = entry.find("default");
            if (def == entry.end()) {
                fail(key + ".default", "is missing.");
            }
            if (!def->is_number_integer() || def->get<std::int64_t>() <= 0) {
                fail(key + ".default", jsonText(*def) + " is not a positive integer.");
            }
            parameter.defaultValue = def->get<std::int64_t>();
            spec.problem.push_back(parameter);
        }
    }

    std::string sizeExpression(const Json& root, const char* key, const KernelSpec& spec) const {
        const std::string text = optionalString(root, key, "");
        if (text.empty()) {
            return text;
        }
        expression(text, key, problemNames(spec));
        evaluateAtDefault(text, key, spec);
        return text;
    }

    double evaluateAtDefault(const std::string& text, const std::string& key, const KernelSpec& spec) const {
        try {
            return evaluateSizeExpression(spec, spec.defaultSize(), text, key);
        } catch (const Error& e) {
            throw Error(m_display + ": " + e.what());
        }
    }

    void readArguments(const Json& root, KernelSpec& spec) const {
        const Json& arguments = requiredArray(root, "", "arguments");
        bool anyOutput = false;
        for (std::size_t i = 0; i < arguments.size(); ++i) {
            const std::string key = "arguments[" + std::to_string(i) + "]";
            const Json& entry = arguments[i];
            expectObject(entry, key);
            checkKeys(entry, key, {"name", "type", "count", "fill", "output"});
            KernelArgument argument;
            argument.name = requiredString(entry, key, "name");
            for (const auto& other : spec.arguments) {
                if (other.name == argument.name) {
                    fail(key + ".name", "\"" + argument.name + "\" is defined twice.");
                }
            }
            const std::string type = optionalString(entry, "type", "float32", key);
            if (type == "float32") {
                argument.type = ElementType::Float32;
            } else if (type == "float16") {
                argument.type = ElementType::Float16;
            } else if (type == "bfloat16") {
                argument.type = ElementType::BFloat16;
            } else if (type == "int32") {
                argument.type = ElementType::Int32;
            } else {
                fail(key + ".type", "\"" + type + "\" is not one of float32, float16, bfloat16, int32.");
            }
            argument.count = requiredString(entry, key, "count");
            expression(argument.count, key + ".count", problemNames(spec));
            const double count = evaluateAtDefault(argument.count, key + ".count", spec);
            if (!(count >= 1) || count != std::floor(count)) {
                fail(key + ".count",
                     "\"" + argument.count + "\" is not a positive whole number at the default size.");
            }
            const std::string fill = optionalString(entry, "fill", "random", key);
            if (fill == "random") {
                argument.fill = ArgumentFill::Random;
            } else if (fill == "zero") {
                argument.fill = ArgumentFill::Zero;
            } else {
                fail(key + ".fill", "\"" + fill + "\" is not one of random, zero.");
            }
            if (const auto output = entry.find("output"); output != entry.end()) {
                if (!output->is_boolean()) {
                    fail(key + ".output", "is not true or false.");
                }
                argument.output = output->get<bool>();
            }
            anyOutput = anyOutput || argument.output;
            spec.arguments.push_back(argument);
        }
        if (!anyOutput) {
            fail("arguments", "has no argument with \"output\": true, so nothing could be checked.");
        }
    }

    void readTolerance(const Json& root, KernelSpec& spec) const {
        const auto it = root.find("tolerance");
        if (it == root.end()) {
            return;
        }
        expectObject(*it, "tolerance");
        checkKeys(*it, "tolerance", {"relative", "absolute"});
        auto number = [&](const char* key, double& target) {
            const auto value = it->find(key);
            if (value == it->end()) {
                return;
            }
            if (!value->is_number() || value->get<double>() < 0 || !std::isfinite(value->get<double>())) {
                fail(std::string("tolerance.") + key, jsonText(*value) + " is not a non-negative number.");
            }
            target = value->get<double>();
        };
        number("relative", spec.tolerance.relative);
        number("absolute", spec.tolerance.absolute);
    }

    void readReference(const Json& root, KernelSpec& spec) const {
        const auto it = root.find("reference");
        if (it == root.end()) {
            fail("reference", "is missing.");
        }
        expectObject(*it, "reference");
        checkKeys(*it, "reference", {"source", "flags", "gpu"});
        spec.reference.source = sourceFile(*it, "reference");
        spec.reference.flags = stringList(*it, "reference", "flags");
        if (const auto gpu = it->find("gpu"); gpu != it->end()) {
            if (!gpu->is_string() || std::find(std::begin(kGpuReferences), std::end(kGpuReferences),
                                               gpu->get<std::string>()) == std::end(kGpuReferences))
                fail("reference.gpu", jsonText(*gpu) + " is not a GPU reference (known: cublas_sgemm, "
                                                       "cublas_gemm_f16).");
            spec.reference.gpu = gpu->get<std::string>();
        }
    }

    // A GPU reference computes a GEMM: the spec must have one (M, N, K; A, B and the output C, of its types).
    void checkGpuReference(const KernelSpec& spec) const {
        if (spec.reference.gpu.empty())
            return;
        const ElementType in =
            spec.reference.gpu == "cublas_sgemm" ? ElementType::Float32 : ElementType::Float16;
        const auto& a = spec.arguments;
        const bool shaped = spec.problem.size() == 3 && a.size() == 3 && a[0].type == in && a[1].type == in &&
                            a[2].type == ElementType::Float32 && !a[0].output && !a[1].output && a[2].output;
        if (!shaped)
            fail("reference.gpu",
                 fmt::format("\"{}\" computes C = A * B: it needs the problem sizes M, N, K and "
                             "the arguments A, B ({}) and the output C (float32).",
                             spec.reference.gpu, in == ElementType::Float32 ? "float32" : "float16"));
    }

    void readVariants(const Json& root, KernelSpec& spec) const {
        const auto it = root.find("variants");
        if (it == root.end()) {
            fail("variants", "is missing.");
        }
        expectObject(*it, "variants");
        if (it->empty()) {
            fail("variants", "is empty.");
        }
        for (const auto& item : it->items()) {
            const std::string key = "variants." + item.key();
            if (item.key() != "cpu" && item.key() != "cuda") {
                fail(key, "is not a known backend (cpu, cuda).");
            }
            spec.variants.emplace(item.key(), readVariant(item.value(), key, item.key(), spec));
        }
    }

    KernelVariant readVariant(const Json& json, const std::string& key, const std::string& backend,
                              const KernelSpec& spec) const {
        expectObject(json, key);
        const bool cuda = backend == "cuda";
        if (cuda) {
            checkKeys(json, key,
                      {"source", "entry", "flags", "parameters", "constraints", "grid", "block",
                       "dynamic_shared_bytes"});
        } else {
            checkKeys(json, key, {"source", "entry", "flags", "parameters", "constraints"});
        }
        KernelVariant variant;
        variant.backend = backend;
        variant.source = sourceFile(json, key);
        variant.entry = cuda ? requiredString(json, key, "entry")
                             : optionalString(json, "entry", "tunescope_kernel", key);
        if (!isIdentifier(variant.entry)) {
            fail(key + ".entry", "\"" + variant.entry + "\" is not an identifier.");
        }
        variant.flags = stringList(json, key, "flags");
        readParameters(json, key, spec, variant);

        std::set<std::string> known = problemNames(spec);
        for (const auto& parameter : variant.parameters) {
            known.insert(parameter.name);
        }
        const auto constraints = stringList(json, key, "constraints");
        for (std::size_t i = 0; i < constraints.size(); ++i) {
            expression(constraints[i], key + ".constraints[" + std::to_string(i) + "]", known);
        }
        variant.constraints = constraints;
        checkDefaultsSatisfyConstraints(key, spec, variant);

        if (cuda) {
            variant.grid = geometry(json, key, "grid", known);
            variant.block = geometry(json, key, "block", known);
            variant.dynamicSharedBytes = optionalString(json, "dynamic_shared_bytes", "", key);
            if (!variant.dynamicSharedBytes.empty()) {
                expression(variant.dynamicSharedBytes, key + ".dynamic_shared_bytes", known);
            }
        }
        return variant;
    }

    std::vector<std::string> geometry(const Json& json, const std::string& key, const char* name,
                                      const std::set<std::string>& known) const {
        const auto list = stringList(json, key, name);
        if (list.empty() || list.size() > 3) {
            fail(join(key, name), "must hold 1 to 3 expressions.");
        }
        for (std::size_t i = 0; i < list.size(); ++i) {
            expression(list[i], join(key, name) + "[" + std::to_string(i) + "]", known);
        }
        return list;
    }

    void readParameters(const Json& json, const std::string& key, const KernelSpec& spec,
                        KernelVariant& variant) const {
        const Json& parameters = requiredArray(json, key, "parameters");
        const auto problem = problemNames(spec);
        for (std::size_t i = 0; i < parameters.size(); ++i) {
            const std::string pkey = key + ".parameters[" + std::to_string(i) + "]";
            const Json& entry = parameters[i];
            expectObject(entry, pkey);
            checkKeys(entry, pkey, {"name", "values", "default", "description"});
            Parameter parameter;
            parameter.name = requiredString(entry, pkey, "name");
            if (!isIdentifier(parameter.name)) {
                fail(pkey + ".name", "\"" + parameter.name + "\" is not an identifier.");
            }
            if (problem.count(parameter.name)) {
                fail(pkey + ".name", "\"" + parameter.name + "\" is already a problem-size name.");
            }
            for (const auto& other : variant.parameters) {
                if (other.name == parameter.name) {
                    fail(pkey + ".name", "\"" + parameter.name + "\" is defined twice.");
                }
            }
            readValues(entry, pkey, parameter);
            const auto def = entry.find("default");
            if (def == entry.end()) {
                fail(pkey + ".default", "is missing.");
            }
            const auto defaultValue = valueFromJson(*def);
            const auto match = defaultValue
                                   ? std::find_if(parameter.values.begin(), parameter.values.end(),
                                                  [&](const Value& v) { return sameValue(v, *defaultValue); })
                                   : parameter.values.end();
            if (match == parameter.values.end()) {
                fail(pkey + ".default", def->dump() + " is not one of its values.");
            }
            variant.defaults.push_back(*match);
            variant.parameters.push_back(std::move(parameter));
        }
    }

    static bool sameValue(const Value& a, const Value& b) {
        if (a.index() == b.index()) {
            return a == b;
        }
        const bool aNumber = std::holds_alternative<std::int64_t>(a) || std::holds_alternative<double>(a);
        const bool bNumber = std::holds_alternative<std::int64_t>(b) || std::holds_alternative<double>(b);
        return aNumber && bNumber && toNumber(a) == toNumber(b);
    }

    // Values: a JSON array of scalars or a list expression ("[2**i for i in range(6)]"). The type follows
    // from the values: all booleans, all integers, numbers (float), or all strings.
    void readValues(const Json& entry, const std::string& pkey, Parameter& parameter) const {
        const auto it = entry.find("values");
        if (it == entry.end()) {
            fail(pkey + ".values", "is missing.");
        }
        std::vector<Value> values;
        if (it->is_string()) {
            try {
                values = evaluateValueList(it->get<std::string>());
            } catch (const Error& e) {
                fail(pkey + ".values", std::string("is not a valid list expression (") + e.what() + ").");
            }
        } else if (it->is_array() && !it->empty()) {
            for (const auto& item : *it) {
                const auto value = valueFromJson(item);
                if (!value) {
                    fail(pkey + ".values",
                         "holds " + item.dump() + ", which is not a number, string or boolean.");
                }
                values.push_back(*value);
            }
        } else {
            fail(pkey + ".values", "is neither a non-empty array nor a list expression.");
        }
        const auto count = [&](std::size_t alternative) {
            return std::count_if(values.begin(), values.end(),
                                 [&](const Value& v) { return v.index() == alternative; });
        };
        const auto n = static_cast<std::ptrdiff_t>(values.size());
        if (count(0) == n) {
            parameter.type = ParameterType::Bool;
        } else if (count(1) == n) {
            parameter.type = ParameterType::Integer;
        } else if (count(1) + count(2) == n) {
            parameter.type = ParameterType::Real;
            for (auto& value : values) {
                value = toNumber(value);
            }
        } else if (count(3) == n) {
            parameter.type = ParameterType::String;
            for (const auto& value : values) {
                if (!isMacroSuffix(std::get<std::string>(value))) {
                    fail(pkey + ".values", "holds \"" + std::get<std::string>(value) +
                                               "\", which is not made of letters, digits and underscores.");
                }
            }
        } else {
            fail(pkey + ".values", "mixes value types (all must be numbers, all strings or all booleans).");
        }
        for (std::size_t a = 0; a < values.size(); ++a) {
            for (std::size_t b = 0; b < a; ++b) {
                if (sameValue(values[a], values[b])) {
                    fail(pkey + ".values", "holds " + toString(values[a]) + " twice.");
                }
            }
        }
        parameter.values = std::move(values);
    }

    void checkDefaultsSatisfyConstraints(const std::string& key, const KernelSpec& spec,
                                         const KernelVariant& variant) const {
        const ProblemSize size = spec.defaultSize();
        const auto sizes = problemLookup(spec, size);
        const Expression::Lookup lookup = [&](std::string_view name) -> std::optional<Value> {
            for (std::size_t p = 0; p < variant.parameters.size(); ++p) {
                if (variant.parameters[p].name == name) {
                    return variant.defaults[p];
                }
            }
            return sizes(name);
        };
        for (std::size_t i = 0; i < variant.constraints.size(); ++i) {
            bool ok = false;
            try {
                ok = Expression::parse(variant.constraints[i], "constraint").test(lookup);
            } catch (const Error& e) {
                throw Error(m_display + ": " + key + ".constraints[" + std::to_string(i) +
                            "] fails on the default config (" + e.what() + ").");
            }
            if (!ok) {
                fail(key + ".constraints[" + std::to_string(i) + "]",
                     "\"" + ExpressionParser::excerpt(variant.constraints[i]) +
                         "\" is false for the default config at the default size " +
                         formatProblemSize(spec, size) + ".");
            }
        }
    }

    std::filesystem::path m_file;
    std::string m_display;
};

} // namespace

std::string displayPath(const std::filesystem::path& file) {
    const auto absolute = std::filesystem::absolute(file).lexically_normal();
    const auto root = std::filesystem::path(TUNESCOPE_SOURCE_DIR).lexically_normal();
    const auto relative = absolute.lexically_relative(root);
    if (!relative.empty() && *relative.begin() != "..") {
        return relative.generic_string();
    }
    return file.generic_string();
}

KernelSpec readKernelSpec(const std::filesystem::path& file) {
    return SpecParser(file).parse();
}

} // namespace ts
