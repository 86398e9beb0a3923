// libFuzzer target: the kernel spec reader (JSON, every key checked, size and constraint expressions) on
// arbitrary bytes. A bad spec must end in ts::Error, never a crash, a hang or an unbounded allocation.
#include "FuzzInputFile.h"
#include "kernels/KernelSpecReader.h"
#include "util/Error.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const auto path = ts::fuzz::writeInputFile("tunescope-fuzz-kernel", ".json", data, size);
    try {
        (void)ts::readKernelSpec(path);
    } catch (const ts::Error&) {
    }
    return 0;
}
