// libFuzzer target: the T1 benchmark reader (JSON, value-list and condition expressions, enumeration of the
// space) on arbitrary bytes. A bad file must end in ts::Error, never a crash, a hang or an unbounded
// allocation.
#include "FuzzInputFile.h"
#include "space/T1Reader.h"
#include "util/Error.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const auto path = ts::fuzz::writeInputFile("tunescope-fuzz-t1", ".json", data, size);
    try {
        const ts::SpaceDefinition definition = ts::readT1Space(path);
        (void)definition.space.validCount();
    } catch (const ts::Error&) {
    }
    return 0;
}
