#include "hardware/GpuDatabase.h"

#include "util/BoundedJson.h"
#include "util/Error.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <fstream>
#include <set>

namespace ts {

namespace {

std::string normalised(const std::string& name) {
    std::string out;
    for (char c : name)
        if (c != ' ' && c != '-' && c != '_')
            out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

// Reads one GPU entry; `where` names the file and entry for messages.
class GpuEntryReader {
public:
    GpuEntryReader(const nlohmann::json& entry, std::string where)
        : m_entry(entry), m_where(std::move(where)) {}

    GpuSpec read() const {
        GpuSpec gpu;
        gpu.id = text("id");
        gpu.name = text("name");
        if (m_entry.contains("aliases"))
            gpu.aliases = m_entry.at("aliases").get<std::vector<std::string>>();
        gpu.source = m_entry.value("source", std::string("datasheet"));
        readComputeCapability(gpu);
        gpu.smCount = positiveInt("sm_count");
        gpu.baseClockMHz = positive("base_clock_mhz");
        gpu.boostClockMHz = positive("boost_clock_mhz");
        gpu.memoryGB = positive("memory_gb");
        gpu.memoryType = m_entry.value("memory_type", std::string());
        gpu.memoryBandwidthGBs = positive("memory_bandwidth_gbs");
        gpu.fp32TFlops = positive("fp32_tflops");
        gpu.fp16TensorTFlops = optionalRate("fp16_tensor_tflops");
        gpu.bf16TensorTFlops = optionalRate("bf16_tensor_tflops");
        gpu.l2Bytes = positiveInt("l2_bytes");
        gpu.warpSize = positiveInt("warp_size");
        gpu.maxThreadsPerBlock = positiveInt("max_threads_per_block");
        gpu.maxThreadsPerSm = positiveInt("max_threads_per_sm");
        gpu.maxBlocksPerSm = positiveInt("max_blocks_per_sm");
        gpu.registersPerSm = positiveInt("registers_per_sm");
        gpu.registersPerBlock = positiveInt("registers_per_block");
        gpu.maxRegistersPerThread = positiveInt("max_registers_per_thread");
        gpu.sharedPerSm = positiveInt("shared_per_sm");
        gpu.sharedPerBlock = positiveInt("shared_per_block");
        gpu.sharedPerBlockOptin = positiveInt("shared_per_block_optin");
        gpu.reservedSharedPerBlock = nonNegativeInt("reserved_shared_per_block");
        if (gpu.sharedPerBlockOptin < gpu.sharedPerBlock || gpu.sharedPerBlockOptin > gpu.sharedPerSm)
            fail("has shared_per_block_optin outside [shared_per_block, shared_per_sm]");
        return gpu;
    }

private:
    [[noreturn]] void fail(const std::string& what) const {
        throw Error(fmt::format("{} {}.", m_where, what));
    }

    const nlohmann::json& field(const char* key) const {
        if (!m_entry.contains(key))
            fail(fmt::format("lacks the field \"{}\"", key));
        return m_entry.at(key);
    }
    std::string text(const char* key) const {
        const auto& v = field(key);
        if (!v.is_string() || v.get<std::string>().empty())
            fail(fmt::format("has a \"{}\" that is not a non-empty string", key));
        return v.get<std::string>();
    }
    double positive(const char* key) const {
        const auto& v = field(key);
        if (!v.is_number() || v.get<double>() <= 0.0)
            fail(fmt::format("has a \"{}\" that is not a positive number", key));
        return v.get<double>();
    }
    std::int64_t positiveInt(const char* key) const {
        std::int64_t v = nonNegativeInt(key);
        if (v == 0)
            fail(fmt::format("has a \"{}\" of 0", key));
        return v;
    }
    std::int64_t nonNegativeInt(const char* key) const {
        const auto& v = field(key);
        if (!v.is_number_integer() || v.get<std::int64_t>() < 0)
            fail(fmt::format("has a \"{}\" that is not a non-negative integer", key));
        return v.get<std::int64_t>();
    }
    double optionalRate(const char* key) const {
        if (!m_entry.contains(key) || m_entry.at(key).is_null())
            return 0.0;
        return positive(key);
    }
    void readComputeCapability(GpuSpec& gpu) const {
        std::string cc = text("compute_capability");
        int major = 0, minor = 0;
        char extra = 0;
        if (std::sscanf(cc.c_str(), "%d.%d%c", &major, &minor, &extra) != 2 || major <= 0 || minor < 0)
            fail(fmt::format("has a compute_capability \"{}\" that is not of the form 8.0", cc));
        gpu.computeMajor = major;
        gpu.computeMinor = minor;
    }

    const nlohmann::json& m_entry;
    std::string m_where;
};

} // namespace

GpuDatabase::GpuDatabase(std::vector<GpuSpec> gpus) : m_gpus(std::move(gpus)) {
    std::set<std::string> seen;
    for (const GpuSpec& gpu : m_gpus) {
        std::vector<std::string> names{gpu.id, gpu.name};
        names.insert(names.end(), gpu.aliases.begin(), gpu.aliases.end());
        std::set<std::string> own;
        for (const std::string& name : names)
            own.insert(normalised(name));
        for (const std::string& name : own)
            if (!seen.insert(name).second)
                throw Error(fmt::format("The GPU database names \"{}\" twice (GPU {}).", name, gpu.id));
    }
}

GpuDatabase GpuDatabase::read(const std::filesystem::path& file) {
    std::ifstream in(file);
    if (!in)
        throw Error(fmt::format("The GPU database {} cannot be opened.", file.string()));
    nlohmann::json doc = parseBoundedJson(in, "The GPU database " + file.string());
    if (doc.is_discarded())
        throw Error(fmt::format("The GPU database {} is not valid JSON.", file.string()));
    if (!doc.is_object() || !doc.contains("gpus") || !doc.at("gpus").is_array() || doc.at("gpus").empty())
        throw Error(fmt::format("The GPU database {} has no \"gpus\" array.", file.string()));
    std::vector<GpuSpec> gpus;
    const auto& entries = doc.at("gpus");
    for (std::size_t i = 0; i < entries.size(); ++i) {
        std::string where = fmt::format("The GPU database {}: entry {}", file.string(), i);
        if (entries[i].is_object() && entries[i].contains("id") && entries[i].at("id").is_string())
            where = fmt::format("The GPU database {}: GPU {}", file.string(),
                                entries[i].at("id").get<std::string>());
        if (!entries[i].is_object())
            throw Error(where + " is not an object.");
        try {
            gpus.push_back(GpuEntryReader(entries[i], where).read());
        } catch (const nlohmann::json::exception&) {
            throw Error(where + " has a field of the wrong type.");
        }
    }
    return GpuDatabase(std::move(gpus));
}

std::filesystem::path GpuDatabase::builtinPath() {
    if (const char* dir = std::getenv("TUNESCOPE_RESOURCES"); dir && *dir)
        return std::filesystem::path(dir) / "hardware" / "gpus.json";
    return std::filesystem::path(TUNESCOPE_SOURCE_DIR) / "resources" / "hardware" / "gpus.json";
}

const GpuDatabase& GpuDatabase::builtin() {
    static const GpuDatabase database = read(builtinPath());
    return database;
}

const GpuSpec* GpuDatabase::find(const std::string& name) const {
    const std::string key = normalised(name);
    for (const GpuSpec& gpu : m_gpus) {
        if (normalised(gpu.id) == key || normalised(gpu.name) == key)
            return &gpu;
        for (const std::string& alias : gpu.aliases)
            if (normalised(alias) == key)
                return &gpu;
    }
    return nullptr;
}

const GpuSpec* GpuDatabase::match(const std::string& deviceName) const {
    if (const GpuSpec* exact = find(deviceName))
        return exact;
    const auto alnum = [](const std::string& text) {
        std::string out;
        for (char c : text)
            if (std::isalnum(static_cast<unsigned char>(c)))
                out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        return out;
    };
    const std::string wanted = alnum(deviceName);
    const GpuSpec* best = nullptr;
    std::size_t bestLength = 0;
    for (const GpuSpec& gpu : m_gpus) {
        std::vector<std::string> keys = gpu.aliases;
        keys.push_back(gpu.id);
        for (const std::string& key : keys) {
            const std::string k = alnum(key);
            if (!k.empty() && k.size() > bestLength && wanted.find(k) != std::string::npos) {
                best = &gpu;
                bestLength = k.size();
            }
        }
    }
    return best;
}

const GpuSpec& GpuDatabase::get(const std::string& name) const {
    if (const GpuSpec* gpu = find(name))
        return *gpu;
    throw Error(fmt::format("The GPU \"{}\" is not in the GPU database (known: {}).", name, idList()));
}

std::string GpuDatabase::idList() const {
    std::string out;
    for (const GpuSpec& gpu : m_gpus)
        out += (out.empty() ? "" : ", ") + gpu.id;
    return out;
}

} // namespace ts
