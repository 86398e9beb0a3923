// libFuzzer target: the replay dataset reader (Kernel Tuner cache, T4, KTT; plain or gzipped; cut-off repair)
// on arbitrary bytes. A bad file must end in ts::Error, never a crash, a hang or an unbounded allocation.
#include "FuzzInputFile.h"
#include "datasets/DatasetReader.h"
#include "util/Error.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const auto path = ts::fuzz::writeInputFile("tunescope-fuzz-dataset", ".json", data, size);
    try {
        const ts::Dataset dataset = ts::readDataset(path);
        (void)dataset.optimum();
        (void)dataset.medianObjective();
    } catch (const ts::Error&) {
    }
    return 0;
}
