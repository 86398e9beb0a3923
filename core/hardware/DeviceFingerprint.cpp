#include "hardware/DeviceFingerprint.h"
#include "hardware/CpuInfo.h"
#include "util/BoundedJson.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cctype>
#include <set>
#include <string_view>
#include <utility>

namespace ts {

namespace {

std::string lower(std::string text) {
    std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
    return text;
}

// Longer names first where one contains another ("a100" before "a10", "rtx 3090 ti" shares with "3090").
constexpr std::array<std::pair<std::string_view, std::string_view>, 40> kGpuArchitectures{{
    {"h200", "sm_90"},      {"h100", "sm_90"},      {"gh200", "sm_90"},        {"b200", "sm_100"},
    {"b100", "sm_100"},     {"rtx 5090", "sm_120"}, {"rtx 5080", "sm_120"},    {"l40s", "sm_89"},
    {"l40", "sm_89"},       {"l4", "sm_89"},        {"rtx 4090", "sm_89"},     {"rtx 4080", "sm_89"},
    {"rtx 4070", "sm_89"},  {"rtx 4060", "sm_89"},  {"rtx 6000 ada", "sm_89"}, {"a100", "sm_80"},
    {"a30", "sm_80"},       {"a40", "sm_86"},       {"a10", "sm_86"},          {"a16", "sm_86"},
    {"a2", "sm_86"},        {"rtx a6000", "sm_86"}, {"rtx a5000", "sm_86"},    {"rtx a4000", "sm_86"},
    {"rtx 3090", "sm_86"},  {"rtx 3080", "sm_86"},  {"rtx 3070", "sm_86"},     {"rtx 3060", "sm_86"},
    {"titan rtx", "sm_75"}, {"rtx 2080", "sm_75"},  {"rtx 2070", "sm_75"},     {"rtx 2060", "sm_75"},
    {"t4", "sm_75"},        {"v100", "sm_70"},      {"titan v", "sm_70"},      {"p100", "sm_60"},
    {"gtx 1080", "sm_61"},  {"gtx 1070", "sm_61"},  {"titan x", "sm_52"},      {"k40", "sm_35"},
}};

// Whole-word match, so "a10" is not found in "a100" and "l4" not in "l40".
bool containsWord(const std::string& haystack, std::string_view word) {
    for (std::size_t at = haystack.find(word); at != std::string::npos; at = haystack.find(word, at + 1)) {
        const bool startOk = at == 0 || !std::isalnum(static_cast<unsigned char>(haystack[at - 1]));
        const std::size_t end = at + word.size();
        const bool endOk = end == haystack.size() || !std::isalnum(static_cast<unsigned char>(haystack[end]));
        if (startOk && endOk)
            return true;
    }
    return false;
}

// The vector/FMA/matrix features that matter to tuned code, sorted.
bool tuningFlag(const std::string& flag) {
    return flag.starts_with("avx") || flag == "fma" || flag.starts_with("sse4") || flag == "neon" ||
           flag == "asimd" || flag.starts_with("sve") || flag.starts_with("amx");
}

} // namespace

std::string DeviceFingerprint::toJson() const {
    nlohmann::ordered_json object{{"kind", kind},        {"name", name},       {"architecture", architecture},
                                  {"driver", driver},    {"toolkit", toolkit}, {"cpu_flags", cpuFlags},
                                  {"compiler", compiler}};
    return object.dump();
}

DeviceFingerprint DeviceFingerprint::fromJson(const std::string& text) {
    DeviceFingerprint fingerprint;
    const nlohmann::json object = parseBoundedJson(text, "a stored device fingerprint");
    if (!object.is_object())
        return fingerprint;
    const auto field = [&object](const char* key) {
        const auto it = object.find(key);
        return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
    };
    fingerprint.kind = field("kind");
    fingerprint.name = field("name");
    fingerprint.architecture = field("architecture");
    fingerprint.driver = field("driver");
    fingerprint.toolkit = field("toolkit");
    fingerprint.cpuFlags = field("cpu_flags");
    fingerprint.compiler = field("compiler");
    return fingerprint;
}

DeviceFingerprint DeviceFingerprint::ofHostCpu() {
    DeviceFingerprint fingerprint;
    fingerprint.kind = "cpu";
    const CpuInfo cpu = CpuInfo::query();
    fingerprint.name = cpu.model.empty() ? "unknown CPU" : cpu.model;
    std::set<std::string> flags;
    for (const std::string& flag : cpu.flags)
        if (tuningFlag(flag))
            flags.insert(flag);
    for (const std::string& flag : flags)
        fingerprint.cpuFlags += (fingerprint.cpuFlags.empty() ? "" : " ") + flag;
    if (!cpu.vendor.empty() || !cpu.family.empty())
        fingerprint.architecture = cpu.vendor + " family " + cpu.family;
#if defined(__clang__)
    fingerprint.compiler = "clang " __clang_version__;
#elif defined(__GNUC__)
    fingerprint.compiler = "g++ " __VERSION__;
#endif
    return fingerprint;
}

DeviceFingerprint DeviceFingerprint::ofGpuName(const std::string& name) {
    DeviceFingerprint fingerprint;
    fingerprint.kind = "gpu";
    fingerprint.name = name;
    fingerprint.architecture = gpuArchitecture(name);
    return fingerprint;
}

std::string DeviceFingerprint::gpuArchitecture(const std::string& name) {
    const std::string text = lower(name);
    for (const auto& [gpu, architecture] : kGpuArchitectures)
        if (containsWord(text, gpu))
            return std::string(architecture);
    return {};
}

} // namespace ts
