#pragma once

#include "datasets/Dataset.h"
#include "space/SpaceMode.h"
#include "strategies/OptionSpec.h"
#include "util/OutputFile.h"

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace ts::cli {

std::shared_ptr<const Dataset> loadDataset(const std::string& path);

// "k=v" pairs into a map; throws Error naming the malformed item.
std::map<std::string, std::string> parseKeyValues(const std::vector<std::string>& items,
                                                  const std::string& flag);

// Comma-separated items, empty ones dropped.
std::vector<std::string> splitList(const std::string& text);
// Comma-separated positive evaluation budgets; throws Error naming a bad item.
std::vector<std::int64_t> parseBudgets(const std::string& text);
// Comma-separated positive integers; errors name the option and say what an item must be.
std::vector<std::int64_t> parsePositiveList(const std::string& text, const std::string& option,
                                            const std::string& meaning);

// The output an option names ("-" for stdout), or none when the option was not given. Refuses, before any
// work is done, a target that cannot be written or that is one of `inputs`.
std::unique_ptr<OutputFile> openOutput(const std::string& target, const std::string& what,
                                       const std::vector<std::string>& inputs = {});

SpaceMode parseSpaceMode(const std::string& text);

// "name=value, name=value" for display.
std::string describeConfig(const SearchSpace& space, SearchSpace::Index index);

// An option table as `strategies` and `schedulers` list it, one line per option given with `flag`:
// "    --option name=<int 1 to 40>  default 8: description".
void printOptionTable(const std::string& flag, const std::vector<OptionSpec>& options);

// "learned restrictions: a % b == 0; ..." on stdout, nothing when there are none.
void printRestrictions(const std::vector<std::string>& restrictions);

// A progress line on stderr: rewritten in place on a terminal, one line per step otherwise.
class ProgressLine {
public:
    ProgressLine();
    void update(const std::string& text, bool force = false);
    void finish();

private:
    bool m_terminal;
    double m_lastPrinted = -1.0;
    bool m_open = false;
};

} // namespace ts::cli
