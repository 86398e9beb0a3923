#include "hardware/CpuInfo.h"

#include "hardware/MemoryBandwidth.h"
#include "runtime/tunescope/runtime.h"

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
    std::string key;
    std::string value;
    while (std::getline(in, line)) {
        if (!tunescope::cpuinfoLine(line, key, value)) // the deployed runtime reads these lines alike
            continue;
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
        else if (key == "cpu MHz") {
            try {
                info.maxClockMHz = std::max(info.maxClockMHz, std::stod(value));
            } catch (...) {
            }
        } else if (key == "physical id")
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
    if (info.maxClockMHz > 0)
        info.clockSource = "/proc/cpuinfo cpu MHz (the current clock)";
    return info;
}

int CpuInfo::fp32Lanes() const {
    const auto has = [this](const char* name) {
        return std::find(simd.begin(), simd.end(), name) != simd.end();
    };
    const auto hasFlag = [this](const char* name) {
        return std::find(flags.begin(), flags.end(), name) != flags.end();
    };
    if (has("avx512f"))
        return 16;
    if (has("avx") || has("avx2"))
        return 8;
    if (has("sse4_2") || hasFlag("sse2") || has("neon") || has("asimd"))
        return 4;
    return 0;
}

int CpuInfo::flopsPerLanePerCycle() const {
    const bool fma = std::find(simd.begin(), simd.end(), "fma") != simd.end() ||
                     std::find(simd.begin(), simd.end(), "asimd") != simd.end();
    return fma ? 4 : 2;
}

std::optional<double> CpuInfo::peakGflops() const {
    if (physicalCores <= 0 || maxClockMHz <= 0 || fp32Lanes() == 0)
        return std::nullopt;
    return physicalCores * maxClockMHz / 1000.0 * fp32Lanes() * flopsPerLanePerCycle();
}

CpuInfo CpuInfo::query() {
    std::ifstream in("/proc/cpuinfo");
    CpuInfo info = parseCpuinfo(in);
    info.logicalCpus = static_cast<int>(std::thread::hardware_concurrency());
    if (info.physicalCores == 0)
        info.physicalCores = info.logicalCpus;
    info.caches = readCaches();
    // kHz; cpu0's, as every core of one package has the same maximum.
    const std::string maxFreq = readLine("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq");
    try {
        if (!maxFreq.empty() && std::stod(maxFreq) > 0) {
            info.maxClockMHz = std::stod(maxFreq) / 1000.0;
            info.clockSource = "cpufreq cpuinfo_max_freq";
        }
    } catch (...) {
    }
    return info;
}

CpuInfo CpuInfo::queryWithBandwidth() {
    CpuInfo info = query();
    const MemoryBandwidth& bandwidth = MemoryBandwidth::measuredOnce();
    if (bandwidth.gbPerSecond > 0) {
        info.memoryBandwidthGBs = bandwidth.gbPerSecond;
        info.memoryBandwidthSource = bandwidth.description();
    } else {
        info.memoryBandwidthSource = bandwidth.problem;
    }
    return info;
}

} // namespace ts
