#include "datasets/DatasetProfile.h"

#include "util/SourceHash.h"
#include "util/BoundedJson.h"
#include "util/Error.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <limits>
#include <sstream>

namespace ts {

namespace {

using Json = nlohmann::json;

constexpr std::int64_t kMaxBytes = std::int64_t{1} << 40;

// Reads and checks one profile file; every failure is one sentence naming it.
class ProfileReader {
public:
    ProfileReader(const std::filesystem::path& path, const Dataset& dataset)
        : m_path(path), m_dataset(dataset) {}

    DatasetProfile read() const {
        const Json root = parse(readBounded());
        if (!root.is_object())
            fail("is not a dataset profile (its JSON is not an object)");
        DatasetProfile profile;
        const auto format = root.find("format");
        if (format == root.end() || *format != DatasetProfile::kFormat)
            fail(fmt::format("is not a dataset profile (format is not \"{}\")", DatasetProfile::kFormat));
        profile.dataset = text(root, "dataset");
        profile.datasetHash = text(root, "dataset_hash");
        profile.kernelSpec = text(root, "kernel_spec");
        profile.sourceHash = text(root, "source_hash");
        profile.nvrtcVersion = text(root, "nvrtc");
        profile.architecture = text(root, "architecture");
        profile.gpu = text(root, "gpu");
        const std::string actual = SourceHash::ofFile(m_dataset.path);
        if (profile.datasetHash != actual)
            fail(fmt::format("was made for another dataset ({} {}), not for {} ({}); remake it with "
                             "tunescope-cli analyze --dataset",
                             profile.dataset, profile.datasetHash, m_dataset.path.filename().string(),
                             actual));
        const auto configs = root.find("configs");
        if (configs == root.end() || !configs->is_array())
            fail("has no \"configs\" array");
        for (std::size_t i = 0; i < configs->size(); ++i)
            readConfig((*configs)[i], i, profile);
        return profile;
    }

private:
    [[noreturn]] void fail(const std::string& problem) const {
        throw Error(fmt::format("The dataset profile {} {}.", m_path.string(), problem));
    }

    std::string readBounded() const {
        std::error_code ec;
        const std::uintmax_t size = std::filesystem::file_size(m_path, ec);
        if (ec)
            fail(fmt::format("cannot be read ({})", ec.message()));
        if (size > DatasetProfile::kMaxFileBytes)
            fail(fmt::format("is {} bytes, more than the {} a profile may have", size,
                             DatasetProfile::kMaxFileBytes));
        std::ifstream in(m_path, std::ios::binary);
        std::ostringstream bytes;
        if (!in || !(bytes << in.rdbuf()))
            fail("cannot be read");
        std::string content = bytes.str();
        if (content.size() >= 2 && static_cast<unsigned char>(content[0]) == 0x1f &&
            static_cast<unsigned char>(content[1]) == 0x8b)
            fail("is gzip data, but a profile is plain JSON (as tunescope-cli analyze --dataset writes it)");
        return content;
    }

    Json parse(const std::string& content) const {
        Json root;
        try {
            root = parseBoundedJson(content, m_path.string());
        } catch (const Error& e) {
            fail(fmt::format("is not valid JSON ({})", e.what()));
        }
        if (root.is_discarded())
            fail("is not valid JSON (malformed or cut short)");
        return root;
    }

    std::string text(const Json& object, const char* key, const std::string& where = {}) const {
        const auto it = object.find(key);
        if (it == object.end() || !it->is_string())
            fail(fmt::format("has no text \"{}\"{}", key, where));
        return it->get<std::string>();
    }

    std::int64_t whole(const Json& object, const char* key, std::int64_t most,
                       const std::string& where) const {
        const auto it = object.find(key);
        if (it == object.end() || !it->is_number_integer())
            fail(fmt::format("has no whole number \"{}\"{}", key, where));
        if (it->is_number_unsigned() ? it->get<std::uint64_t>() > static_cast<std::uint64_t>(most)
                                     : (it->get<std::int64_t>() < 0 || it->get<std::int64_t>() > most))
            fail(fmt::format("has \"{}\" {}{}, outside 0 to {}", key, it->dump(), where, most));
        return it->get<std::int64_t>();
    }

    void readConfig(const Json& entry, std::size_t i, DatasetProfile& profile) const {
        const std::string where = fmt::format(" in configs[{}]", i);
        if (!entry.is_object())
            fail(fmt::format("has configs[{}] that is not an object", i));
        const std::string key = text(entry, "key", where);
        if (!m_dataset.space.indexOfKey(key))
            fail(fmt::format("has config \"{}\"{}, which is not a config of {}", key.substr(0, 200), where,
                             m_dataset.path.filename().string()));
        const auto compiled = entry.find("compiled");
        if (compiled == entry.end() || !compiled->is_boolean())
            fail(fmt::format("has no true or false \"compiled\"{}", where));
        ConfigProfile c;
        c.compiled = compiled->get<bool>();
        if (c.compiled) {
            c.registers = static_cast<int>(whole(entry, "registers", 255, where));
            c.spillStores = whole(entry, "spill_stores", kMaxBytes, where);
            c.spillLoads = whole(entry, "spill_loads", kMaxBytes, where);
            c.staticSharedBytes = whole(entry, "static_shared_bytes", kMaxBytes, where);
            c.dynamicSharedBytes = whole(entry, "dynamic_shared_bytes", kMaxBytes, where);
            c.threadsPerBlock = whole(entry, "threads_per_block", std::numeric_limits<int>::max(), where);
            const auto occupancy = entry.find("occupancy");
            if (occupancy == entry.end() || !occupancy->is_number() || !(occupancy->get<double>() >= 0.0) ||
                occupancy->get<double>() > 1.0)
                fail(fmt::format("has no \"occupancy\" from 0 to 1{}", where));
            c.occupancy = occupancy->get<double>();
            if (entry.contains("blocks"))
                c.blocks = whole(entry, "blocks", kMaxBytes, where);
            c.limitedBy = text(entry, "limited_by", where).substr(0, 200);
        }
        if (!profile.configs.emplace(key, std::move(c)).second)
            fail(fmt::format("has config \"{}\" twice", key));
    }

    const std::filesystem::path& m_path;
    const Dataset& m_dataset;
};

} // namespace

std::filesystem::path DatasetProfile::companionPath(const std::filesystem::path& dataset) {
    std::string name = dataset.filename().string();
    for (const char* suffix : {".json.gz", ".json", ".gz"})
        if (name.size() > std::string(suffix).size() && name.ends_with(suffix)) {
            name.resize(name.size() - std::string(suffix).size());
            break;
        }
    return dataset.parent_path() / (name + ".profile");
}

std::string DatasetProfile::toJson() const {
    // One config per line: the file stays readable and diffs stay small.
    Json header{{"format", kFormat},
                {"dataset", dataset},
                {"dataset_hash", datasetHash},
                {"kernel_spec", kernelSpec},
                {"source_hash", sourceHash},
                {"nvrtc", nvrtcVersion},
                {"architecture", architecture},
                {"gpu", gpu}};
    std::string out = header.dump();
    out.pop_back();
    out += ",\"configs\":[\n";
    bool first = true;
    for (const auto& [key, c] : configs) {
        Json row{{"key", key}, {"compiled", c.compiled}};
        if (c.compiled) {
            row["registers"] = c.registers;
            row["spill_stores"] = c.spillStores;
            row["spill_loads"] = c.spillLoads;
            row["static_shared_bytes"] = c.staticSharedBytes;
            row["dynamic_shared_bytes"] = c.dynamicSharedBytes;
            row["threads_per_block"] = c.threadsPerBlock;
            if (c.blocks > 0)
                row["blocks"] = c.blocks;
            row["occupancy"] = c.occupancy;
            row["limited_by"] = c.limitedBy;
        }
        out += (first ? "" : ",\n") + row.dump();
        first = false;
    }
    out += "\n]}\n";
    return out;
}

DatasetProfile DatasetProfile::read(const std::filesystem::path& path, const Dataset& dataset) {
    return ProfileReader(path, dataset).read();
}

std::shared_ptr<const DatasetProfile> DatasetProfile::companionOf(const Dataset& dataset) {
    const std::filesystem::path path = companionPath(dataset.path);
    std::error_code ec;
    if (!std::filesystem::exists(std::filesystem::symlink_status(path, ec)))
        return nullptr;
    return std::make_shared<const DatasetProfile>(read(path, dataset));
}

std::map<std::string, double> DatasetProfile::metrics(const ConfigProfile& c) {
    if (!c.compiled)
        return {};
    // "shared_bytes" is the static part, as the hardware view reads it (it adds "dynamic_shared_bytes").
    return {{"registers", c.registers},
            {"spill_stores", static_cast<double>(c.spillStores)},
            {"spill_loads", static_cast<double>(c.spillLoads)},
            {"shared_bytes", static_cast<double>(c.staticSharedBytes)},
            {"dynamic_shared_bytes", static_cast<double>(c.dynamicSharedBytes)},
            {"threads_per_block", static_cast<double>(c.threadsPerBlock)},
            {"occupancy", c.occupancy}};
}

} // namespace ts
