#include "kernels/KernelSizes.h"

#include "space/ExpressionParser.h"
#include "util/Error.h"

#include <nlohmann/json.hpp>

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>

namespace ts {
namespace {

std::string trim(std::string_view text) {
    const auto first = text.find_first_not_of(" \t");
    if (first == std::string_view::npos) {
        return {};
    }
    const auto last = text.find_last_not_of(" \t");
    return std::string(text.substr(first, last - first + 1));
}

std::vector<std::string> splitCommas(std::string_view text) {
    std::vector<std::string> parts;
    std::size_t start = 0;
    while (true) {
        const auto comma = text.find(',', start);
        parts.push_back(
            trim(text.substr(start, comma == std::string_view::npos ? text.size() - start : comma - start)));
        if (comma == std::string_view::npos) {
            return parts;
        }
        start = comma + 1;
    }
}

std::string problemNames(const KernelSpec& spec) {
    std::string names;
    for (const auto& p : spec.problem) {
        names += (names.empty() ? "" : ",") + p.name;
    }
    return names;
}

std::int64_t parseSizeValue(const std::string& item, std::string_view text, const std::string& name) {
    std::int64_t value = 0;
    const auto* end = item.data() + item.size();
    const auto result = std::from_chars(item.data(), end, value);
    if (item.empty() || result.ec != std::errc() || result.ptr != end) {
        throw Error("The size \"" + std::string(text) + "\" gives " + name + " the value \"" + item +
                    "\", which is not a whole number.");
    }
    if (value <= 0) {
        throw Error("The size \"" + std::string(text) + "\" gives " + name + " the value " + item +
                    ", which is not positive.");
    }
    return value;
}

} // namespace

void checkArgumentCounts(const KernelSpec& spec, const ProblemSize& size) {
    for (const auto& argument : spec.arguments) {
        argumentCount(spec, argument, size);
    }
}

ProblemSize parseProblemSize(const KernelSpec& spec, std::string_view text) {
    const auto parts = splitCommas(text);
    const bool named = parts.front().find('=') != std::string::npos;
    ProblemSize size = spec.defaultSize();
    if (!named) {
        if (parts.size() != spec.problem.size()) {
            throw Error("The size \"" + std::string(text) + "\" has " + std::to_string(parts.size()) +
                        " values but kernel " + spec.name + " takes " + std::to_string(spec.problem.size()) +
                        " (" + problemNames(spec) + ").");
        }
        for (std::size_t i = 0; i < parts.size(); ++i) {
            size[i] = parseSizeValue(parts[i], text, spec.problem[i].name);
        }
        checkArgumentCounts(spec, size);
        return size;
    }
    std::vector<bool> seen(spec.problem.size(), false);
    for (const auto& part : parts) {
        const auto eq = part.find('=');
        if (eq == std::string::npos) {
            throw Error("The size \"" + std::string(text) + "\" mixes named and positional values (\"" +
                        part + "\"); write NAME=VALUE for each.");
        }
        const std::string name = trim(std::string_view(part).substr(0, eq));
        std::size_t index = spec.problem.size();
        for (std::size_t i = 0; i < spec.problem.size(); ++i) {
            if (spec.problem[i].name == name) {
                index = i;
            }
        }
        if (index == spec.problem.size()) {
            throw Error("The size \"" + std::string(text) + "\" names \"" + name +
                        "\", which is not a size of kernel " + spec.name + " (" + problemNames(spec) + ").");
        }
        if (seen[index]) {
            throw Error("The size \"" + std::string(text) + "\" gives " + name + " twice.");
        }
        seen[index] = true;
        size[index] = parseSizeValue(trim(std::string_view(part).substr(eq + 1)), text, name);
    }
    checkArgumentCounts(spec, size);
    return size;
}

std::string formatProblemSize(const KernelSpec& spec, const ProblemSize& size) {
    std::string out;
    for (std::size_t i = 0; i < spec.problem.size() && i < size.size(); ++i) {
        out += (i ? "," : "") + spec.problem[i].name + "=" + std::to_string(size[i]);
    }
    return out;
}

Expression::Lookup problemLookup(const KernelSpec& spec, const ProblemSize& size) {
    return [&spec, &size](std::string_view name) -> std::optional<Value> {
        for (std::size_t i = 0; i < spec.problem.size() && i < size.size(); ++i) {
            if (spec.problem[i].name == name) {
                return Value(size[i]);
            }
        }
        return std::nullopt;
    };
}

double evaluateSizeExpression(const KernelSpec& spec, const ProblemSize& size, const std::string& text,
                              const std::string& role) {
    const Value value = Expression::parse(text, role).evaluate(problemLookup(spec, size));
    if (!isNumeric(value)) {
        throw Error("The " + role + " \"" + ExpressionParser::excerpt(text) +
                    "\" gives a string, not a number.");
    }
    return toNumber(value);
}

std::int64_t argumentCount(const KernelSpec& spec, const KernelArgument& argument, const ProblemSize& size) {
    const double count = evaluateSizeExpression(spec, size, argument.count, "count of " + argument.name);
    if (!(count >= 1) || count != std::floor(count) || count > 9.0e15) {
        char number[32];
        std::snprintf(number, sizeof number, "%.10g", count);
        throw Error("At size " + formatProblemSize(spec, size) + " argument " + argument.name +
                    " of kernel " + spec.name + " would have " + number + " elements (" +
                    ExpressionParser::excerpt(argument.count) + "), not a positive whole number.");
    }
    return static_cast<std::int64_t>(count);
}

std::optional<double> kernelFlops(const KernelSpec& spec, const ProblemSize& size) {
    if (spec.flops.empty()) {
        return std::nullopt;
    }
    return evaluateSizeExpression(spec, size, spec.flops, "flops");
}

std::optional<double> kernelBytes(const KernelSpec& spec, const ProblemSize& size) {
    if (spec.bytes.empty()) {
        return std::nullopt;
    }
    return evaluateSizeExpression(spec, size, spec.bytes, "bytes");
}

std::string bindProblemSize(const std::string& text, const KernelSpec& spec, const ProblemSize& size) {
    std::string out;
    out.reserve(text.size() + 16);
    std::size_t i = 0;
    const auto isWord = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
    while (i < text.size()) {
        const char c = text[i];
        if (c == '"' || c == '\'') {
            // Copy a string literal untouched, escapes included.
            const std::size_t start = i++;
            while (i < text.size() && text[i] != c) {
                i += text[i] == '\\' ? 2 : 1;
            }
            i = std::min(i + 1, text.size());
            out.append(text, start, i - start);
        } else if (std::isdigit(static_cast<unsigned char>(c))) {
            // Numbers (including 1e5 or 0x1F) are copied whole so their letters are never taken for names.
            const std::size_t start = i;
            while (i < text.size() && (isWord(text[i]) || text[i] == '.')) {
                ++i;
            }
            out.append(text, start, i - start);
        } else if (isWord(c)) {
            const std::size_t start = i;
            while (i < text.size() && isWord(text[i])) {
                ++i;
            }
            const std::string word = text.substr(start, i - start);
            bool replaced = false;
            for (std::size_t p = 0; p < spec.problem.size() && p < size.size(); ++p) {
                if (spec.problem[p].name == word) {
                    out += std::to_string(size[p]);
                    replaced = true;
                    break;
                }
            }
            if (!replaced) {
                out += word;
            }
        } else {
            out += c;
            ++i;
        }
    }
    return out;
}

std::string problemJson(const KernelSpec& spec, const ProblemSize& size) {
    // In the spec's order (ordered_json): a deployment lists the values in this order.
    nlohmann::ordered_json problem = nlohmann::ordered_json::object();
    for (std::size_t i = 0; i < spec.problem.size() && i < size.size(); ++i)
        problem[spec.problem[i].name] = size[i];
    return problem.dump();
}

} // namespace ts
