#include "CliSupport.h"

#include "datasets/DatasetReader.h"
#include "util/Error.h"

#include <chrono>
#include <cstdio>
#include <fmt/format.h>
#include <sstream>
#include <unistd.h>

namespace ts::cli {

std::shared_ptr<const Dataset> loadDataset(const std::string& path) {
    return std::make_shared<const Dataset>(readDataset(path));
}

std::map<std::string, std::string> parseKeyValues(const std::vector<std::string>& items,
                                                  const std::string& flag) {
    std::map<std::string, std::string> result;
    for (const std::string& item : items) {
        auto eq = item.find('=');
        if (eq == std::string::npos || eq == 0)
            throw Error(fmt::format("{} \"{}\" is not of the form name=value.", flag, item));
        result[item.substr(0, eq)] = item.substr(eq + 1);
    }
    return result;
}

std::vector<std::string> splitList(const std::string& text) {
    std::vector<std::string> items;
    std::stringstream stream(text);
    std::string item;
    while (std::getline(stream, item, ','))
        if (!item.empty())
            items.push_back(item);
    return items;
}

std::vector<std::int64_t> parsePositiveList(const std::string& text, const std::string& option,
                                            const std::string& meaning) {
    std::vector<std::int64_t> values;
    for (const std::string& item : splitList(text)) {
        std::int64_t value = 0;
        try {
            std::size_t used = 0;
            value = std::stoll(item, &used);
            if (used != item.size())
                value = 0;
        } catch (const std::exception&) {
        }
        if (value <= 0)
            throw Error(fmt::format("{} item \"{}\" is not {}.", option, item, meaning));
        values.push_back(value);
    }
    if (values.empty())
        throw Error(fmt::format("{} is empty.", option));
    return values;
}

std::vector<std::int64_t> parseBudgets(const std::string& text) {
    return parsePositiveList(text, "--budgets", "a positive number of evaluations");
}

std::unique_ptr<OutputFile> openOutput(const std::string& target, const std::string& what,
                                       const std::vector<std::string>& inputs) {
    if (target.empty())
        return nullptr;
    auto output = std::make_unique<OutputFile>(target, what);
    for (const std::string& input : inputs)
        output->protect(input);
    return output;
}

SpaceMode parseSpaceMode(const std::string& text) {
    auto mode = spaceModeFromString(text);
    if (!mode)
        throw Error(fmt::format("--space \"{}\" is not a space mode (use product or constrained).", text));
    return *mode;
}

std::string describeConfig(const SearchSpace& space, SearchSpace::Index index) {
    Config config = space.config(index);
    std::string text;
    for (std::size_t i = 0; i < config.size(); ++i)
        text += fmt::format("{}{}={}", i ? ", " : "", space.parameters()[i].name, toString(config[i]));
    return text;
}

void printOptionTable(const std::string& flag, const std::vector<OptionSpec>& options) {
    for (const OptionSpec& option : options) {
        // "int 1 to 40", "float 0 to 1", "true or false", "Hamming or adjacent".
        const std::string accepted = option.type == OptionType::Integer || option.type == OptionType::Real
                                         ? fmt::format("{} {}", toString(option.type), option.allowed())
                                         : option.allowed();
        fmt::print("    {} {}=<{}>  default {}: {}\n", flag, option.name, accepted, option.defaultValue,
                   option.description);
    }
}

void printRestrictions(const std::vector<std::string>& restrictions) {
    if (restrictions.empty())
        return;
    fmt::print("learned restrictions (kept by every Ok config, broken by failed ones; as constraints of a "
               "kernel they skip such configs): {}\n",
               fmt::join(restrictions, "; "));
}

namespace {
double now() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
} // namespace

ProgressLine::ProgressLine() : m_terminal(isatty(STDERR_FILENO) != 0) {}

void ProgressLine::update(const std::string& text, bool force) {
    double t = now();
    // On a terminal redraw at most 20 times a second; in a log, one line a second.
    double interval = m_terminal ? 0.05 : 1.0;
    if (!force && m_lastPrinted >= 0 && t - m_lastPrinted < interval)
        return;
    m_lastPrinted = t;
    if (m_terminal) {
        std::fprintf(stderr, "\r\033[K%s", text.c_str());
        m_open = true;
    } else {
        std::fprintf(stderr, "%s\n", text.c_str());
    }
    std::fflush(stderr);
}

void ProgressLine::finish() {
    if (m_open)
        std::fprintf(stderr, "\n");
    m_open = false;
}

} // namespace ts::cli
