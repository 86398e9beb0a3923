// Times building the T1 search spaces (parse, enumerate the valid set) from resources/spaces.
// Usage: bench_space [SPACES_DIR]   (default "resources/spaces", relative to the repository root)

#include "space/T1Reader.h"
#include "util/Error.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <vector>

namespace {

constexpr int kRuns = 5;

void benchSpace(const std::filesystem::path& file) {
    std::vector<double> seconds;
    ts::SpaceDefinition definition;
    for (int run = 0; run < kRuns; ++run) {
        const auto start = std::chrono::steady_clock::now();
        definition = ts::readT1Space(file);
        const auto stop = std::chrono::steady_clock::now();
        seconds.push_back(std::chrono::duration<double>(stop - start).count());
    }
    std::sort(seconds.begin(), seconds.end());
    fmt::print("{:<26} product {:>10}  valid {:>8}  median {:.4f} s  min {:.4f} s  ({} runs)\n",
               file.filename().string(), definition.space.productSize(), definition.space.validCount(),
               seconds[seconds.size() / 2], seconds.front(), kRuns);
}

} // namespace

int main(int argc, char** argv) {
    const std::filesystem::path dir = argc > 1 ? argv[1] : "resources/spaces";
    try {
        benchSpace(dir / "hotspot_milo.json");
        for (const char* name : {"convolution_milo.json", "dedispersion_milo.json", "gemm_milo.json"}) {
            benchSpace(dir / name);
        }
    } catch (const ts::Error& e) {
        fmt::print(stderr, "bench_space: {}\n", e.what());
        return 1;
    }
    return 0;
}
