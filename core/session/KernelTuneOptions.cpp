#include "session/KernelTuneOptions.h"

#include "kernels/KernelCatalog.h"
#include "kernels/KernelSizes.h"
#include "kernels/KernelSpecReader.h"
#include "util/Error.h"

#include <filesystem>
#include <fmt/format.h>

namespace ts {

nlohmann::json kernelSettings(const KernelTuneOptions& o) {
    std::string spec = o.kernelSpec.empty() ? KernelCatalog().find(o.kernel).specFile.string()
                                            : std::filesystem::absolute(o.kernelSpec).string();
    return {{"spec", spec},
            {"size", o.size},
            {"backend", o.backend},
            {"timeout_s", o.timeoutS},
            {"repeat", o.repeat},
            {"min_repeat_ms", o.minRepeatMs},
            {"warmup_ms", o.warmupMs},
            {"flush", o.flush},
            {"cache_dir", o.cacheDir}};
}

KernelTuneOptions kernelOptionsFromSettings(const nlohmann::json& s) {
    KernelTuneOptions o;
    o.kernelSpec = s.value("spec", std::string());
    if (o.kernelSpec.empty())
        throw Error("The stored session names no kernel spec, so it cannot be measured again.");
    o.size = s.value("size", std::string());
    o.backend = s.value("backend", o.backend);
    o.timeoutS = s.value("timeout_s", o.timeoutS);
    o.repeat = s.value("repeat", o.repeat);
    o.minRepeatMs = s.value("min_repeat_ms", o.minRepeatMs);
    o.warmupMs = s.value("warmup_ms", o.warmupMs);
    o.flush = s.value("flush", o.flush);
    o.cacheDir = s.value("cache_dir", std::string());
    return o;
}

void checkKernelOptions(const KernelTuneOptions& o) {
    if (o.backend != "cpu" && o.backend != "cuda")
        throw Error(fmt::format("--backend {} is not a kernel backend (cpu or cuda).", o.backend));
    if (!(o.timeoutS > 0))
        throw Error(fmt::format("--timeout {} is not a positive number of seconds.", o.timeoutS));
    if (o.repeat < 1)
        throw Error(fmt::format("--repeat {} is not a positive number of samples.", o.repeat));
    if (o.minRepeatMs < 0)
        throw Error(fmt::format("--min-repeat-ms {} is negative.", o.minRepeatMs));
    if (o.warmupMs < 0)
        throw Error(fmt::format("--warmup-ms {} is negative.", o.warmupMs));
}

KernelSpec loadKernelSpec(const KernelTuneOptions& o) {
    if (!o.kernel.empty() && !o.kernelSpec.empty())
        throw Error("Give either --kernel NAME or --kernel-spec FILE, not both.");
    if (!o.kernelSpec.empty())
        return readKernelSpec(std::filesystem::absolute(o.kernelSpec));
    return KernelCatalog().find(o.kernel);
}

ProblemSize kernelProblemSize(const KernelSpec& spec, const KernelTuneOptions& o) {
    return o.size.empty() ? spec.defaultSize() : parseProblemSize(spec, o.size);
}

} // namespace ts
