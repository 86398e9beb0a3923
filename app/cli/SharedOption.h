#pragma once

#include <CLI/CLI.hpp>

#include <deque>
#include <memory>
#include <string>
#include <vector>

namespace ts::cli {

// An option that a command and its subcommands share, so that it is accepted before and after the
// subcommand's name ("records --db F show 3" and "records show 3 --db F"). Each position has its own CLI11
// option; value() joins them once parsing is done, and refuses two different values.
class SharedOption {
public:
    SharedOption(std::string name, std::string description);

    // Adds the option to `command` and to every subcommand `command` has at this point.
    void addToTree(CLI::App& command);
    // Adds the option to this one command.
    void addTo(CLI::App& command);

    // The value given, wherever it was given; empty when it was not. Throws Error naming the option and both
    // values when two positions (or two uses) give different values.
    std::string value() const;

private:
    std::string m_name;
    std::string m_description;
    std::deque<std::vector<std::string>> m_values; // one per position; a deque keeps their addresses
};

// A SharedOption added to `command` and its subcommands (add the subcommands first).
std::shared_ptr<SharedOption> shareOption(CLI::App& command, const std::string& name,
                                          const std::string& description);

} // namespace ts::cli
