#include "hardware/CpuInfo.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

namespace ts {

namespace {

std::string readLine(const std::filesystem::path& file) {
    std::ifstream in(file);
    std::string line;
    std::getline(in, line);
    return line;
}

// "32K", "1024K", "8M" -> bytes.
std::int64_t sizeOf(const std::string& text) {
    std::int64_t value = 0;
    std::size_t used = 0;
    try {
        value = std::stoll(text, &used);
    } catch (...) {
        return 0;
    }
    const char unit = used < text.size() ? text[used] : ' ';
    return unit == 'K' ? value << 10 : unit == 'M' ? value << 20 : unit == 'G' ? value << 30 : value;
}

// Logical CPUs in a sysfs list such as "0-3,8-11".
int countList(const std::string& list) {
    int count = 0;
    std::stringstream in(list);
    std::string item;
    while (std::getline(in, item, ',')) {
        const auto dash = item.find('-');
        try {
            count += dash == std::string::npos ? 1 : std::stoi(item.substr(dash + 1)) - std::stoi(item) + 1;
        } catch (...) {
        }
    }
    return std::max(count, 1);
}

std::vector<CpuCache> readCaches() {
    std::vector<CpuCache> caches;
    const std::filesystem::path root = "/sys/devices/system/cpu/cpu0/cache";
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(root, ec)) {
        if (entry.path().filename().string().rfind("index", 0) != 0)
            continue;
        CpuCache c;
        try {
            c.level = std::stoi(readLine(entry.path() / "level"));
        } catch (...) {
            continue;
        }
        c.type = readLine(entry.path() / "type");
        c.bytes = sizeOf(readLine(entry.path() / "size"));
        c.sharedByCpus = countList(readLine(entry.path() / "shared_cpu_list"));
        caches.push_back(c);
    }
    std::sort(caches.begin(), caches.end(), [](const CpuCache& a, const CpuCache& b) {
        return std::tie(a.level, a.type) < std::tie(b.level, b.type);
    });
    return caches;
}

} // namespace

CpuInfo CpuInfo::parseCpuinfo(std::istream& in) {
    CpuInfo info;
    std::string line;
    std::set<std::pair<std::string, std::string>> cores; // (physical id, core id)
    std::string physical;
    while (std::getline(in, line)) {
        const auto colon = line.find(':');
        if (colon == std::string::npos)
            continue;
        std::string key = line.substr(0, colon);
        key.erase(key.find_last_not_of(" \t") + 1);
        std::string value = line.substr(colon + 1);
        value.erase(0, std::min(value.size(), value.find_first_not_of(" \t")));
        const auto setOnce = [&value](std::string& field) {
            if (field.empty())
                field = value;
        };
        if (key == "model name")
            setOnce(info.model);
        else if (key == "vendor_id")
            setOnce(info.vendor);
        else if (key == "cpu family")
            setOnce(info.family);
        else if (key == "physical id")
            physical = value;
        else if (key == "core id")
            cores.insert({physical, value});
        else if ((key == "flags" || key == "Features") && info.flags.empty()) {
            std::stringstream words(value);
            for (std::string word; words >> word;)
                info.flags.push_back(word);
        }
    }
    info.physicalCores = static_cast<int>(cores.size());
    const std::set<std::string> flags(info.flags.begin(), info.flags.end());
    for (const char* feature : {"sse4_2", "avx", "avx2", "fma", "f16c", "avx512f", "avx512bw", "avx512vl",
                                "avx512_vnni", "avx512_bf16", "amx_tile", "neon", "asimd", "sve"})
        if (flags.count(feature))
            info.simd.push_back(feature);
    return info;
}

CpuInfo CpuInfo::query() {
    std::ifstream in("/proc/cpuinfo");
    CpuInfo info = parseCpuinfo(in);
    info.logicalCpus = static_cast<int>(std::thread::hardware_concurrency());
    if (info.physicalCores == 0)
        info.physicalCores = info.logicalCpus;
    info.caches = readCaches();
    return info;
}

} // namespace ts
