// tunescope/runtime.h: apply configs tuned with Tunescope at run time.
//
// Header-only, C++17, needs only the standard library and nlohmann_json (https://github.com/nlohmann/json).
// Load the deployment JSON written by `tunescope-cli export --format deploy` and ask which config to use for
// a kernel, a problem shape and a device. The answer says which rule chose it, in this order:
//
//   1. exact          an entry for this kernel tuned on this device at this shape
//   2. architecture   an entry for this kernel and shape tuned on another device of the same architecture
//                     (compute capability such as "sm_86", or CPU vendor and family)
//   3. nearest_shape  the entry of this kernel on this device whose shape is nearest in log space
//                     (Euclidean distance of the logarithms of the sizes; shapes of another rank never match)
//   4. default        the kernel's default config, when the file has one
//   5. none           nothing applies
//
// Ties go to the entry with the lower measured time. See docs/runtime.md for an example.
#pragma once

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdint>
#include <fstream>
#include <limits>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace tunescope {

enum class Rule { Exact, SameArchitecture, NearestShape, KernelDefault, None };

inline const char* ruleName(Rule rule) {
    switch (rule) {
    case Rule::Exact:
        return "exact";
    case Rule::SameArchitecture:
        return "architecture";
    case Rule::NearestShape:
        return "nearest_shape";
    case Rule::KernelDefault:
        return "default";
    case Rule::None:
        break;
    }
    return "none";
}

// One tuned config: the best measured for a kernel at one shape on one device.
struct Entry {
    std::string kernel;
    std::vector<std::int64_t> shape;
    std::string device;
    std::string architecture;
    nlohmann::ordered_json config; // parameter name -> value
    double timeMs = 0.0;
    nlohmann::ordered_json record; // the whole entry as written (statistics, fingerprints, provenance)
};

struct Query {
    std::string kernel;
    std::vector<std::int64_t> shape;
    std::string device;
    // Optional: when empty, the architecture the file records for `device` (if it has any entry for it).
    std::string architecture;
};

struct Answer {
    Rule rule = Rule::None;
    const Entry* entry = nullptr;  // the entry that answered; null for default and none
    nlohmann::ordered_json config; // empty object for none
    // Shape distance for nearest_shape (0 otherwise).
    double distance = 0.0;

    bool found() const { return rule != Rule::None; }
    // True when the config was measured on other hardware than the one asked about: apply it, but expect
    // less than the tuned performance.
    bool fromOtherDevice() const { return rule == Rule::SameArchitecture; }
};

// A problem shape from JSON: a number, a list of numbers, or an object of named sizes (values in order).
inline std::vector<std::int64_t> shapeFromJson(const nlohmann::ordered_json& value) {
    std::vector<std::int64_t> shape;
    const auto add = [&shape](const nlohmann::ordered_json& item) {
        if (!item.is_number() || (item.is_number_float() && !(std::abs(item.get<double>()) < 9.0e18)))
            return false; // not a size: no rounding of NaN or 1e300 into an int64
        shape.push_back(item.is_number_integer()
                            ? item.get<std::int64_t>()
                            : static_cast<std::int64_t>(std::llround(item.get<double>())));
        return true;
    };
    if (value.is_number()) {
        add(value);
    } else if (value.is_array() || value.is_object()) {
        for (const auto& item : value)
            if (!add(item))
                return {};
    }
    return shape;
}

// Distance of two shapes in log space; infinity when their ranks differ or a size is not positive.
inline double shapeDistance(const std::vector<std::int64_t>& a, const std::vector<std::int64_t>& b) {
    if (a.size() != b.size() || a.empty())
        return std::numeric_limits<double>::infinity();
    double sum = 0.0;
    for (std::size_t i = 0; i < a.size(); ++i) {
        if (a[i] <= 0 || b[i] <= 0)
            return std::numeric_limits<double>::infinity();
        const double d = std::log(static_cast<double>(a[i])) - std::log(static_cast<double>(b[i]));
        sum += d * d;
    }
    return std::sqrt(sum);
}

// The deepest nesting of arrays and objects that Deployment::load accepts: deeper JSON would exhaust the
// stack in nlohmann's recursive copy and dump.
inline constexpr int kMaxJsonDepth = 512;
// The most keys of one object that Deployment::load accepts: ordered_json finds keys by a linear search, so
// an object of n keys takes n^2 / 2 comparisons to read (30 s for 100,000 keys).
inline constexpr std::size_t kMaxJsonObjectKeys = 10000;

class Deployment {
public:
    // Throws std::runtime_error naming the key (such as "entries[2].device") when the JSON is not a
    // deployment file: every key documented in docs/runtime.md is checked for its type.
    static Deployment fromJson(const nlohmann::ordered_json& root) { return read(root, "the deployment"); }

    // Throws std::runtime_error naming the file, and the key or the limit, when the file cannot be read, is
    // not JSON, nests deeper than kMaxJsonDepth or is not a deployment file.
    static Deployment load(const std::string& path) {
        std::ifstream in(path);
        if (!in)
            throw std::runtime_error("cannot open the deployment file " + path);
        const std::string name = "the deployment file " + path;
        std::string topKey;
        std::vector<std::size_t> keys; // keys so far of each open object
        const auto refuse = [&](const std::string& what, std::size_t limit) {
            throw std::runtime_error(name + " has " + what +
                                     (topKey.empty() ? std::string() : " under \"" + topKey + "\"") +
                                     " (the limit is " + std::to_string(limit) + ")");
        };
        const auto guard = [&](int depth, nlohmann::ordered_json::parse_event_t event,
                               nlohmann::ordered_json& parsed) {
            using Event = nlohmann::ordered_json::parse_event_t;
            if (event == Event::object_start || event == Event::array_start) {
                if (depth >= kMaxJsonDepth)
                    refuse("arrays and objects nested more than " + std::to_string(kMaxJsonDepth) +
                               " levels deep",
                           kMaxJsonDepth);
                if (event == Event::object_start)
                    keys.push_back(0);
            } else if (event == Event::object_end) {
                keys.pop_back();
            } else if (event == Event::key) {
                if (depth == 1 && parsed.is_string())
                    topKey = parsed.get<std::string>();
                if (++keys.back() > kMaxJsonObjectKeys)
                    refuse("an object of more than " + std::to_string(kMaxJsonObjectKeys) + " keys",
                           kMaxJsonObjectKeys);
            }
            return true;
        };
        const nlohmann::ordered_json root = nlohmann::ordered_json::parse(in, guard, false);
        if (root.is_discarded())
            throw std::runtime_error(name + " is not valid JSON");
        return read(root, name);
    }

    const std::vector<Entry>& entries() const { return m_entries; }

    // The architecture recorded for a device name, or empty when the file has no entry for it.
    std::string architectureOf(const std::string& device) const {
        for (const Entry& entry : m_entries)
            if (entry.device == device && !entry.architecture.empty())
                return entry.architecture;
        return {};
    }

    Answer lookup(const Query& query) const {
        const std::string architecture =
            query.architecture.empty() ? architectureOf(query.device) : query.architecture;
        Answer answer;
        if (const Entry* exact = best(query.kernel, [&](const Entry& e) {
                return e.device == query.device && e.shape == query.shape;
            }))
            return found(Rule::Exact, exact);
        if (const Entry* sibling = best(query.kernel, [&](const Entry& e) {
                return !architecture.empty() && e.architecture == architecture && e.shape == query.shape;
            }))
            return found(Rule::SameArchitecture, sibling);
        const Entry* nearest = nullptr;
        double nearestDistance = std::numeric_limits<double>::infinity();
        for (const Entry& entry : m_entries) {
            if (entry.kernel != query.kernel || entry.device != query.device)
                continue;
            const double distance = shapeDistance(entry.shape, query.shape);
            if (distance < nearestDistance ||
                (distance == nearestDistance && nearest != nullptr && entry.timeMs < nearest->timeMs)) {
                nearest = &entry;
                nearestDistance = distance;
            }
        }
        if (nearest != nullptr && std::isfinite(nearestDistance)) {
            answer = found(Rule::NearestShape, nearest);
            answer.distance = nearestDistance;
            return answer;
        }
        if (const auto it = m_defaults.find(query.kernel); it != m_defaults.end()) {
            answer.rule = Rule::KernelDefault;
            answer.config = it->second;
            return answer;
        }
        answer.config = nlohmann::ordered_json::object();
        return answer;
    }

private:
    using Json = nlohmann::ordered_json;

    [[noreturn]] static void fail(const std::string& name, const std::string& key, const char* problem) {
        throw std::runtime_error(name + " is invalid: \"" + key + "\" " + problem);
    }

    static std::string optionalString(const Json& item, const char* key, const std::string& name,
                                      const std::string& prefix) {
        const auto it = item.find(key);
        if (it == item.end() || it->is_null())
            return {};
        if (!it->is_string())
            fail(name, prefix + key, "is not a string");
        return it->get<std::string>();
    }

    // problem_size: a number, a list of numbers or an object of named sizes, each an integer size.
    static std::vector<std::int64_t> shapeOf(const Json& item, const std::string& name,
                                             const std::string& prefix) {
        const auto it = item.find("problem_size");
        if (it == item.end() || it->is_null())
            return {};
        const auto isSize = [](const Json& size) {
            return size.is_number_integer() ||
                   (size.is_number_float() && std::abs(size.get<double>()) < 9.0e18);
        };
        bool sizes = isSize(*it);
        if (it->is_array() || it->is_object()) {
            sizes = true;
            for (const Json& size : *it)
                sizes = sizes && isSize(size);
        }
        if (!sizes)
            fail(name, prefix + "problem_size", "is not a number, a list of numbers or an object of numbers");
        return shapeFromJson(*it);
    }

    static Entry entryOf(const Json& item, const std::string& name, const std::string& prefix) {
        if (!item.is_object())
            fail(name, prefix.substr(0, prefix.size() - 1), "is not an object");
        Entry entry;
        const auto kernel = item.find("kernel");
        if (kernel == item.end() || !kernel->is_string())
            fail(name, prefix + "kernel", "is missing or not a string");
        entry.kernel = kernel->get<std::string>();
        const auto config = item.find("config");
        if (config == item.end() || !config->is_object())
            fail(name, prefix + "config", "is missing or not an object");
        entry.config = *config;
        entry.shape = shapeOf(item, name, prefix);
        entry.device = optionalString(item, "device", name, prefix);
        entry.architecture = optionalString(item, "architecture", name, prefix);
        const auto time = item.find("time_ms");
        if (time != item.end() && !time->is_null() && !time->is_number())
            fail(name, prefix + "time_ms", "is not a number");
        entry.timeMs = time != item.end() && time->is_number() ? time->get<double>()
                                                               : std::numeric_limits<double>::infinity();
        entry.record = item;
        return entry;
    }

    static Deployment read(const Json& root, const std::string& name) {
        if (!root.is_object())
            throw std::runtime_error(name + " is not a Tunescope deployment file (it is not a JSON object)");
        const auto entries = root.find("entries");
        if (entries == root.end() || !entries->is_array())
            throw std::runtime_error(name +
                                     " is not a Tunescope deployment file (it has no \"entries\" list)");
        Deployment deployment;
        for (std::size_t i = 0; i < entries->size(); ++i)
            deployment.m_entries.push_back(
                entryOf((*entries)[i], name, "entries[" + std::to_string(i) + "]."));
        if (const auto defaults = root.find("defaults"); defaults != root.end() && !defaults->is_null()) {
            if (!defaults->is_object())
                fail(name, "defaults", "is not an object");
            for (const auto& [kernel, config] : defaults->items()) {
                if (!config.is_object())
                    fail(name, "defaults." + kernel, "is not an object");
                deployment.m_defaults[kernel] = config;
            }
        }
        return deployment;
    }

    template <typename Predicate> const Entry* best(const std::string& kernel, Predicate matches) const {
        const Entry* chosen = nullptr;
        for (const Entry& entry : m_entries)
            if (entry.kernel == kernel && matches(entry) &&
                (chosen == nullptr || entry.timeMs < chosen->timeMs))
                chosen = &entry;
        return chosen;
    }

    static Answer found(Rule rule, const Entry* entry) {
        Answer answer;
        answer.rule = rule;
        answer.entry = entry;
        answer.config = entry->config;
        return answer;
    }

    std::vector<Entry> m_entries;
    std::map<std::string, nlohmann::ordered_json> m_defaults;
};

} // namespace tunescope
