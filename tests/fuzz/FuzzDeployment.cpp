// libFuzzer target: the deployment loader of the header-only tunescope/runtime.h on arbitrary bytes, then a
// lookup. The header promises std::runtime_error for every bad file: any other exception (nlohmann's
// type_error, ...) escapes and counts as a crash. Built without the core library, as users build it.
#include "FuzzInputFile.h"
#include "tunescope/runtime.h"

#include <stdexcept>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const auto path = ts::fuzz::writeInputFile("tunescope-fuzz-deploy", ".json", data, size);
    try {
        const tunescope::Deployment deployment = tunescope::Deployment::load(path.string());
        for (const char* device : {"GPU A", ""}) {
            const tunescope::Answer answer = deployment.lookup({"gemm", {1024, 1024}, device, ""});
            (void)answer.config.dump();
        }
    } catch (const std::runtime_error&) {
    }
    return 0;
}
