#include "session/KernelTuneOptions.h"

#include "kernels/KernelCatalog.h"
#include "kernels/KernelSizes.h"
#include "kernels/KernelSpecReader.h"
#include "util/Error.h"

#include <filesystem>

namespace ts {

KernelSpec loadKernelSpec(const KernelTuneOptions& o) {
    if (!o.kernel.empty() && !o.kernelSpec.empty())
        throw Error("Give either a kernel of the catalog or a kernel spec file, not both.");
    if (!o.kernelSpec.empty())
        return readKernelSpec(std::filesystem::absolute(o.kernelSpec));
    return KernelCatalog().find(o.kernel);
}

ProblemSize kernelProblemSize(const KernelSpec& spec, const KernelTuneOptions& o) {
    return o.size.empty() ? spec.defaultSize() : parseProblemSize(spec, o.size);
}

} // namespace ts
