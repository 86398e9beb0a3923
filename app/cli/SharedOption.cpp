#include "SharedOption.h"

#include "util/Error.h"

#include <fmt/format.h>

namespace ts::cli {

SharedOption::SharedOption(std::string name, std::string description)
    : m_name(std::move(name)), m_description(std::move(description)) {}

void SharedOption::addToTree(CLI::App& command) {
    addTo(command);
    for (CLI::App* subcommand : command.get_subcommands([](CLI::App*) { return true; }))
        addToTree(*subcommand);
}

void SharedOption::addTo(CLI::App& command) {
    std::vector<std::string>& values = m_values.emplace_back();
    // Every use is kept, so that a repeated option with the same value is accepted and two different ones
    // get value()'s sentence rather than CLI11's.
    command.add_option(m_name, values, m_description)
        ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
        ->allow_extra_args(false);
}

std::string SharedOption::value() const {
    std::string chosen;
    for (const std::vector<std::string>& values : m_values)
        for (const std::string& value : values) {
            if (!chosen.empty() && value != chosen)
                throw Error(
                    fmt::format("{} is given twice with different values (\"{}\" and \"{}\"); give it "
                                "once.",
                                m_name, chosen, value));
            if (chosen.empty())
                chosen = value;
        }
    return chosen;
}

std::shared_ptr<SharedOption> shareOption(CLI::App& command, const std::string& name,
                                          const std::string& description) {
    auto option = std::make_shared<SharedOption>(name, description);
    option->addToTree(command);
    return option;
}

} // namespace ts::cli
