// libFuzzer target: the replay dataset reader (Kernel Tuner cache, T4, KTT; plain or gzipped; cut-off repair)
// on arbitrary bytes. A bad file must end in ts::Error, never a crash, a hang or an unbounded allocation.
#include "records/DatasetReader.h"
#include "util/Error.h"

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>
#include <unistd.h>

namespace {

// readDataset takes a path: each input goes through one file of this process, in memory-backed /dev/shm
// when there is one.
const std::filesystem::path& inputFile() {
    static const std::filesystem::path path =
        (std::filesystem::exists("/dev/shm") ? std::filesystem::path("/dev/shm")
                                             : std::filesystem::temp_directory_path()) /
        ("tunescope-fuzz-dataset-" + std::to_string(getpid()) + ".json");
    return path;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (std::FILE* file = std::fopen(inputFile().c_str(), "wb")) {
        std::fwrite(data, 1, size, file);
        std::fclose(file);
    }
    try {
        const ts::Dataset dataset = ts::readDataset(inputFile());
        (void)dataset.optimum();
        (void)dataset.medianObjective();
    } catch (const ts::Error&) {
    }
    return 0;
}
