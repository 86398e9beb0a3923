#pragma once

#include "strategies/OptionSpec.h"
#include "strategies/Strategy.h"
#include "strategies/StrategyOptions.h"

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace ts {

// The strategies by name, each with its option table. "default" is an alias for the recommended one.
class StrategyRegistry {
public:
    struct Entry {
        std::string name;
        std::string description;
        std::vector<OptionSpec> options;
        std::function<std::unique_ptr<Strategy>()> create;
    };

    static constexpr const char* kDefaultAlias = "default";

    // The built-in strategies.
    static const StrategyRegistry& builtin();

    // A strategy whose option table is its own (Strategy::optionSpecs()).
    struct Builtin {
        std::string name;
        std::string description;
        std::function<std::unique_ptr<Strategy>()> create;
    };

    void add(Entry entry);
    void add(Builtin builtin);
    void setDefault(const std::string& name) { m_default = name; }
    const std::string& defaultName() const { return m_default; }

    // Registered names in alphabetical order (without the alias).
    std::vector<std::string> names() const;
    // The entry for a name or the alias; throws Error naming the unknown strategy and the known ones.
    const Entry& entry(const std::string& name) const;
    std::unique_ptr<Strategy> create(const std::string& name) const { return entry(name).create(); }
    StrategyOptions options(const std::string& name, const std::map<std::string, std::string>& given) const;

private:
    std::map<std::string, Entry> m_entries;
    std::string m_default;
};

} // namespace ts
