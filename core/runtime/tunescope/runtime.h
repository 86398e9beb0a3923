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
        if (!item.is_number())
            return false;
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

class Deployment {
public:
    // Throws std::runtime_error naming the problem when the JSON is not a deployment file.
    static Deployment fromJson(const nlohmann::ordered_json& root) {
        if (!root.is_object() || !root.contains("entries") || !root["entries"].is_array())
            throw std::runtime_error("not a Tunescope deployment file (it has no \"entries\" list)");
        Deployment deployment;
        for (const auto& item : root["entries"]) {
            if (!item.is_object() || !item.contains("kernel") || !item["kernel"].is_string() ||
                !item.contains("config") || !item["config"].is_object())
                throw std::runtime_error("a deployment entry lacks a \"kernel\" name or a \"config\" object");
            Entry entry;
            entry.kernel = item["kernel"].get<std::string>();
            entry.shape = shapeFromJson(item.value("problem_size", nlohmann::ordered_json()));
            entry.device = item.value("device", std::string());
            entry.architecture = item.value("architecture", std::string());
            entry.config = item["config"];
            const auto time = item.find("time_ms");
            entry.timeMs = time != item.end() && time->is_number() ? time->get<double>()
                                                                   : std::numeric_limits<double>::infinity();
            entry.record = item;
            deployment.m_entries.push_back(std::move(entry));
        }
        if (const auto defaults = root.find("defaults"); defaults != root.end() && defaults->is_object())
            for (const auto& [kernel, config] : defaults->items())
                if (config.is_object())
                    deployment.m_defaults[kernel] = config;
        return deployment;
    }

    // Throws std::runtime_error naming the file when it cannot be read or is not a deployment file.
    static Deployment load(const std::string& path) {
        std::ifstream in(path);
        if (!in)
            throw std::runtime_error("cannot open the deployment file " + path);
        const nlohmann::ordered_json root = nlohmann::ordered_json::parse(in, nullptr, false);
        if (root.is_discarded())
            throw std::runtime_error("the deployment file " + path + " is not valid JSON");
        try {
            return fromJson(root);
        } catch (const std::runtime_error& error) {
            throw std::runtime_error("the deployment file " + path + " is " + error.what());
        }
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
