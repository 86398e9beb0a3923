// libFuzzer target: the record readers of imports (JSON lines and CSV trials) on arbitrary text. The first
// byte picks the reader. A bad input must end in ts::Error, never a crash.
#include "formats/CsvTable.h"
#include "formats/TrialImporter.h"
#include "util/Error.h"

#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0)
        return 0;
    const std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
    try {
        switch (data[0] % 3) {
        case 0:
            (void)ts::TrialImporter::parseJsonLines(text, "fuzz.jsonl");
            break;
        case 1:
            (void)ts::TrialImporter::parseCsv(text, "fuzz.csv");
            break;
        default:
            (void)ts::CsvTable::parse(text, "fuzz.csv");
            break;
        }
    } catch (const ts::Error&) {
    }
    return 0;
}
