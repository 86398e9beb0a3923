#include "deploy/DeploymentHeader.h"

#include "deploy/CppSource.h"
#include "deploy/DeploymentHeaderChecks.h"
#include "runtime/tunescope/runtime.h"

#include "space/ValueJson.h"
#include "util/Error.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>
#include <vector>

namespace ts {

namespace {

std::string literal(const std::string& text) {
    return CppSource::stringView(text);
}

std::string number(double value) {
    if (!std::isfinite(value))
        return "std::numeric_limits<double>::infinity()";
    return fmt::format("{:.17g}", value);
}

// Python's str() of a config value (16, 1.5, True, row), as Kernel Tuner keys write them.
std::string valueText(const nlohmann::ordered_json& value) {
    return toString(valueOrJsonText(value));
}

double valueNumber(const nlohmann::ordered_json& value) {
    if (value.is_boolean())
        return value.get<bool>() ? 1.0 : 0.0;
    if (value.is_number())
        return value.get<double>();
    return std::numeric_limits<double>::quiet_NaN();
}

namespace constraint = tunescope::constraint;

// The generated header's names of constraint::Op, in its order.
constexpr const char* kOpNames[] = {
    "Int",       "Float", "Str",     "Size",     "Param",       "Neg",  "Pos",     "Not",         "Add",
    "Sub",       "Mul",   "Div",     "FloorDiv", "Mod",         "Pow",  "Compare", "CompareLast", "InBegin",
    "InElement", "InEnd", "AndJump", "OrJump",   "JumpIfFalse", "Jump", "Call"};
static_assert(std::size(kOpNames) == static_cast<std::size_t>(constraint::Op::Call) + 1,
              "a name for every instruction of tunescope/runtime.h");

std::string integer(std::int64_t value) {
    return value == std::numeric_limits<std::int64_t>::min() ? "(-9223372036854775807 - 1)"
                                                             : fmt::format("{}", value);
}

struct Tables {
    std::string params;
    std::size_t paramCount = 0;
    std::string shapes;
    std::size_t shapeCount = 0;
    std::string code;
    std::size_t codeCount = 0;
    std::string checks;
    std::size_t checkCount = 0;
    std::size_t stackDepth = 1;

    // Compiles an entry's constraints (as tunescope/runtime.h does) into kCode and kChecks; returns
    // "offset, count" of its checks. Throws Error naming the entry's key when one is not a constraint.
    std::string addChecks(const nlohmann::ordered_json& entry, const std::string& key) {
        const std::size_t offset = checkCount;
        const auto strings = [&](const char* name) {
            std::vector<std::string> list;
            const auto it = entry.find(name);
            if (it == entry.end() || it->is_null())
                return list;
            if (!it->is_array())
                throw Error(fmt::format("The deployment's \"{}.{}\" is not a list of strings.", key, name));
            for (const auto& item : *it) {
                if (!item.is_string())
                    throw Error(
                        fmt::format("The deployment's \"{}.{}\" is not a list of strings.", key, name));
                list.push_back(item.get<std::string>());
            }
            return list;
        };
        const std::vector<std::string> sizeNames = strings("size_names");
        const std::vector<std::string> texts = strings("constraints");
        if (texts.size() > tunescope::kMaxConstraintsPerEntry)
            throw Error(fmt::format("The deployment's \"{}.constraints\" has more than {} constraints.", key,
                                    tunescope::kMaxConstraintsPerEntry));
        for (std::size_t k = 0; k < texts.size(); ++k) {
            constraint::Program program;
            try {
                program = constraint::Compiler::compile(texts[k], sizeNames);
            } catch (const std::runtime_error& error) {
                throw Error(fmt::format("The deployment's \"{}.constraints[{}]\" is not a constraint that a "
                                        "generated header can check ({}).",
                                        key, k, error.what()));
            }
            checks +=
                fmt::format("    Check{{{}, {}, {}}},\n", codeCount, program.code.size(), literal(texts[k]));
            ++checkCount;
            stackDepth = std::max(stackDepth, program.stack);
            for (const constraint::Instruction& in : program.code) {
                const bool text = in.op == constraint::Op::Str || in.op == constraint::Op::Param;
                code += fmt::format("    Instr{{Op::{}, {}, {}, {}, {}}},\n",
                                    kOpNames[static_cast<int>(in.op)], static_cast<int>(in.a), integer(in.i),
                                    number(in.d), literal(text ? program.strings[in.s] : std::string()));
                ++codeCount;
            }
        }
        return fmt::format("{}, {}", offset, checkCount - offset);
    }

    // Appends a config's values; returns "offset, count".
    std::string addConfig(const nlohmann::ordered_json& config) {
        const std::size_t offset = paramCount;
        for (const auto& [name, value] : config.items()) {
            const double numeric = valueNumber(value);
            params += fmt::format("    Param{{{}, {}, {}, {}}},\n", literal(name),
                                  std::isnan(numeric) ? "false" : "true",
                                  std::isnan(numeric) ? "0.0" : number(numeric), literal(valueText(value)));
            ++paramCount;
        }
        return fmt::format("{}, {}", offset, paramCount - offset);
    }
    std::string addShape(const nlohmann::ordered_json& shape) {
        const std::size_t offset = shapeCount;
        if (shape.is_array())
            for (const auto& size : shape)
                if (size.is_number_integer()) {
                    shapes += fmt::format("    {},\n", size.get<std::int64_t>());
                    ++shapeCount;
                }
        return fmt::format("{}, {}", offset, shapeCount - offset);
    }
};

// An #error for each name of the namespace that is a macro where the header is included: clearer than the
// errors the expanded macro would cause.
std::string macroGuards(const std::string& space) {
    std::string guards;
    for (std::size_t begin = 0; begin <= space.size();) {
        const std::size_t end = std::min(space.find("::", begin), space.size());
        const std::string name = space.substr(begin, end - begin);
        guards +=
            fmt::format("#ifdef {0}\n#error \"{0}, a name of this header's namespace, is a macro here\"\n"
                        "#endif\n",
                        name);
        begin = end + 2;
    }
    return guards;
}

constexpr const char* kPrologue =
    R"(// Generated by tunescope-cli export --format header from a Tunescope deployment. Do not edit.
// Self-contained C++17: the configs tuned per (kernel, problem shape, device) and a lookup that applies the
// rules of tunescope/runtime.h in order: exact device and shape; same architecture and shape; nearest shape
// on the same device (log-space distance of the sizes) whose config satisfies the kernel's constraints at
// the asked shape; the kernel's default; none. Ties go to the faster.
#pragma once

#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string_view>

{guards}
namespace {namespace} {{

enum class Rule {{ Exact, SameArchitecture, NearestShape, KernelDefault, None }};

constexpr std::string_view ruleName(Rule rule) {{
    switch (rule) {{
    case Rule::Exact: return "exact";
    case Rule::SameArchitecture: return "architecture";
    case Rule::NearestShape: return "nearest_shape";
    case Rule::KernelDefault: return "default";
    case Rule::None: break;
    }}
    return "none";
}}

// One config value: `numeric` when it is a number or a boolean (as 0/1), `text` as Python prints it.
struct Param {{
    std::string_view name;
    bool numeric;
    double number;
    std::string_view text;
}};

struct Entry {{
    std::string_view kernel;
    std::string_view device;
    std::string_view architecture;
    std::size_t shapeOffset, shapeCount;
    std::size_t paramOffset, paramCount;
    double timeMs;
    std::size_t checkOffset, checkCount; // its constraints in kChecks
}};

// Constraints, compiled: each a program of kCode for a small stack machine (as in tunescope/runtime.h).
enum class Op : std::uint8_t {{
    Int, Float, Str, Size, Param, Neg, Pos, Not, Add, Sub, Mul, Div, FloorDiv, Mod, Pow, Compare, CompareLast,
    InBegin, InElement, InEnd, AndJump, OrJump, JumpIfFalse, Jump, Call
}};
enum class Cmp : std::uint8_t {{ Eq, Ne, Lt, Le, Gt, Ge, In, NotIn }};
enum class Fn : std::uint8_t {{ Min, Max, Abs, Int, Float, Bool }};

struct Instr {{
    Op op;
    std::uint8_t a; // Cmp or Fn
    std::int64_t i; // int literal, size index, argument count, or instructions a jump skips
    double d;
    std::string_view s; // string literal or parameter name
}};

// One constraint: kCode[codeOffset, codeOffset + codeCount) and its text.
struct Check {{
    std::size_t codeOffset, codeCount;
    std::string_view text;
}};

struct Default {{
    std::string_view kernel;
    std::size_t paramOffset, paramCount;
}};

)";

constexpr const char* kEpilogue = R"(
struct Answer {{
    Rule rule = Rule::None;
    const Entry* entry = nullptr; // null for default and none
    const Param* params = nullptr;
    std::size_t count = 0;
    // Nearer entries that nearest_shape passed over: their config breaks a constraint at the asked shape.
    std::size_t skipped = 0;

    bool found() const {{ return rule != Rule::None; }}
    const Param* find(std::string_view name) const {{
        for (std::size_t i = 0; i < count; ++i)
            if (params[i].name == name)
                return &params[i];
        return nullptr;
    }}
}};

namespace detail {{

inline bool sameShape(const Entry& e, const std::int64_t* shape, std::size_t rank) {{
    if (e.shapeCount != rank)
        return false;
    for (std::size_t i = 0; i < rank; ++i)
        if (kShapes[e.shapeOffset + i] != shape[i])
            return false;
    return true;
}}

inline double distance(const Entry& e, const std::int64_t* shape, std::size_t rank) {{
    if (e.shapeCount != rank || rank == 0)
        return std::numeric_limits<double>::infinity();
    double sum = 0.0;
    for (std::size_t i = 0; i < rank; ++i) {{
        const std::int64_t a = kShapes[e.shapeOffset + i];
        if (a <= 0 || shape[i] <= 0)
            return std::numeric_limits<double>::infinity();
        const double d = std::log(static_cast<double>(a)) - std::log(static_cast<double>(shape[i]));
        sum += d * d;
    }}
    return std::sqrt(sum);
}}

inline Answer answer(Rule rule, const Entry* e) {{
    Answer a;
    a.rule = rule;
    a.entry = e;
    a.params = kParams.data() + e->paramOffset;
    a.count = e->paramCount;
    return a;
}}

// Whether (d, e) comes after (d0, e0) in the nearest_shape order: distance, then time, then table order.
inline bool after(double d, const Entry& e, double d0, const Entry* e0) {{
    if (e0 == nullptr)
        return true;
    if (d != d0)
        return d > d0;
    if (e.timeMs != e0->timeMs)
        return e.timeMs > e0->timeMs;
    return &e > e0;
}}

}} // namespace detail

// The architecture recorded for a device, or empty when no entry was tuned on it.
inline std::string_view architectureOf(std::string_view device) {{
    for (const Entry& e : kEntries)
        if (e.device == device && !e.architecture.empty())
            return e.architecture;
    return {{}};
}}

// `architecture` may be empty: then the one recorded for `device` is used.
inline Answer lookup(std::string_view kernel, const std::int64_t* shape, std::size_t rank, std::string_view device,
                     std::string_view architecture = {{}}) {{
    if (architecture.empty())
        architecture = architectureOf(device);
    const Entry* chosen = nullptr;
    for (const Entry& e : kEntries)
        if (e.kernel == kernel && e.device == device && detail::sameShape(e, shape, rank) &&
            (chosen == nullptr || e.timeMs < chosen->timeMs))
            chosen = &e;
    if (chosen != nullptr)
        return detail::answer(Rule::Exact, chosen);
    for (const Entry& e : kEntries)
        if (e.kernel == kernel && !architecture.empty() && e.architecture == architecture &&
            detail::sameShape(e, shape, rank) && (chosen == nullptr || e.timeMs < chosen->timeMs))
            chosen = &e;
    if (chosen != nullptr)
        return detail::answer(Rule::SameArchitecture, chosen);
    // The entries of this device in nearest_shape order, each once, until one satisfies its constraints.
    std::size_t skipped = 0;
    double last = 0.0;
    const Entry* previous = nullptr;
    for (;;) {{
        double nearest = std::numeric_limits<double>::infinity();
        chosen = nullptr;
        for (const Entry& e : kEntries) {{
            if (e.kernel != kernel || e.device != device)
                continue;
            const double d = detail::distance(e, shape, rank);
            if (d < std::numeric_limits<double>::infinity() && detail::after(d, e, last, previous) &&
                (chosen == nullptr || !detail::after(d, e, nearest, chosen))) {{
                nearest = d;
                chosen = &e;
            }}
        }}
        if (chosen == nullptr)
            break;
        if (detail::satisfies(*chosen, shape, rank)) {{
            Answer a = detail::answer(Rule::NearestShape, chosen);
            a.skipped = skipped;
            return a;
        }}
        ++skipped;
        last = nearest;
        previous = chosen;
    }}
    Answer a;
    a.skipped = skipped;
    for (const Default& d : kDefaults)
        if (d.kernel == kernel) {{
            a.rule = Rule::KernelDefault;
            a.params = kParams.data() + d.paramOffset;
            a.count = d.paramCount;
            break;
        }}
    return a;
}}

}} // namespace {namespace}
)";

} // namespace

std::string DeploymentHeader::generate(const nlohmann::ordered_json& deployment, const std::string& space) {
    CppSource::checkNamespace(space);
    if (!deployment.contains("entries") || !deployment["entries"].is_array())
        throw Error("The deployment has no \"entries\" list to generate a header from.");
    Tables tables;
    std::string entries;
    std::size_t entryCount = 0;
    for (const auto& entry : deployment["entries"]) {
        const std::string shape =
            tables.addShape(entry.value("problem_size", nlohmann::ordered_json::array()));
        const std::string config = tables.addConfig(entry.value("config", nlohmann::ordered_json::object()));
        const std::string checks = tables.addChecks(entry, fmt::format("entries[{}]", entryCount));
        const auto time = entry.find("time_ms");
        entries += fmt::format(
            "    Entry{{{}, {}, {}, {}, {}, {}, {}}},\n", literal(entry.value("kernel", "")),
            literal(entry.value("device", "")), literal(entry.value("architecture", "")), shape, config,
            number(time != entry.end() && time->is_number() ? time->get<double>()
                                                            : std::numeric_limits<double>::infinity()),
            checks);
        ++entryCount;
    }
    std::string defaults;
    std::size_t defaultCount = 0;
    if (deployment.contains("defaults") && deployment["defaults"].is_object())
        for (const auto& [kernel, config] : deployment["defaults"].items()) {
            defaults += fmt::format("    Default{{{}, {}}},\n", literal(kernel), tables.addConfig(config));
            ++defaultCount;
        }
    std::string text = fmt::format(fmt::runtime(kPrologue), fmt::arg("namespace", space),
                                   fmt::arg("guards", macroGuards(space)));
    text += fmt::format("inline constexpr std::array<std::int64_t, {}> kShapes{{{{\n{}}}}};\n\n",
                        tables.shapeCount, tables.shapes);
    text += fmt::format("inline constexpr std::array<Param, {}> kParams{{{{\n{}}}}};\n\n", tables.paramCount,
                        tables.params);
    text +=
        fmt::format("inline constexpr std::array<Entry, {}> kEntries{{{{\n{}}}}};\n\n", entryCount, entries);
    text += fmt::format("inline constexpr std::array<Default, {}> kDefaults{{{{\n{}}}}};\n\n", defaultCount,
                        defaults);
    text += fmt::format("inline constexpr std::array<Instr, {}> kCode{{{{\n{}}}}};\n\n", tables.codeCount,
                        tables.code);
    text += fmt::format("inline constexpr std::array<Check, {}> kChecks{{{{\n{}}}}};\n\n", tables.checkCount,
                        tables.checks);
    text += fmt::format("// The most values a constraint holds at once while it is evaluated.\n"
                        "inline constexpr std::size_t kStackDepth = {};\n",
                        tables.stackDepth);
    text += deploymentHeaderChecks();
    text += fmt::format(fmt::runtime(kEpilogue), fmt::arg("namespace", space));
    return text;
}

} // namespace ts
