// libFuzzer target: the records database reader on an arbitrary file (a corrupted or hostile records.db).
// Opening it and reading every session and trial must end in ts::Error or succeed, never crash.
#include "store/RecordStore.h"
#include "util/Error.h"

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>
#include <unistd.h>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const std::filesystem::path path =
        (std::filesystem::exists("/dev/shm") ? std::filesystem::path("/dev/shm")
                                             : std::filesystem::temp_directory_path()) /
        ("tunescope-fuzz-records-" + std::to_string(getpid()) + ".db");
    for (const char* suffix : {"", "-wal", "-shm"})
        std::filesystem::remove(path.string() + suffix);
    if (std::FILE* file = std::fopen(path.c_str(), "wb")) {
        std::fwrite(data, 1, size, file);
        std::fclose(file);
    }
    try {
        ts::RecordStore store(path);
        for (const ts::SessionRecord& session : store.sessions())
            (void)store.trials(session.id);
    } catch (const ts::Error&) {
    }
    return 0;
}
