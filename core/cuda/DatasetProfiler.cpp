#include "cuda/DatasetProfiler.h"

#include "cuda/CudaStaticAnalyzer.h"
#include "cuda/NvrtcProgram.h"
#include "hardware/GpuDatabase.h"
#include "kernels/ConfigMapping.h"
#include "kernels/KernelSpace.h"
#include "util/SourceHash.h"
#include "util/BoundedJson.h"
#include "util/Error.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fstream>
#include <random>
#include <sstream>
#include <thread>

namespace ts {

namespace {

std::string normalised(const std::string& name) {
    std::string out;
    for (char c : name)
        if (std::isalnum(static_cast<unsigned char>(c)))
            out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

// The spec's cuda source and every file beside it (the headers it may include), in name order.
std::string sourceHash(const KernelVariant& variant) {
    std::vector<std::filesystem::path> files;
    for (const auto& entry : std::filesystem::directory_iterator(variant.source.parent_path()))
        if (entry.is_regular_file())
            files.push_back(entry.path());
    std::sort(files.begin(), files.end());
    std::string all;
    for (const auto& file : files) {
        std::ifstream in(file, std::ios::binary);
        std::ostringstream text;
        text << in.rdbuf();
        all += file.filename().string() + '\n' + text.str();
    }
    return SourceHash::ofText(all);
}

// The dataset's problem size when it has one value per problem parameter of the spec, else the spec's
// default.
ProblemSize problemSize(const Dataset& dataset, const KernelSpec& spec) {
    ProblemSize size = spec.defaultSize();
    const nlohmann::json values = parseBoundedJson(dataset.problemSize, dataset.path.string());
    if (!values.is_array() || values.size() != size.size())
        return size;
    for (std::size_t i = 0; i < size.size(); ++i) {
        if (!values[i].is_number_integer() || values[i].get<std::int64_t>() < 1)
            return spec.defaultSize();
        size[i] = values[i].get<std::int64_t>();
    }
    return size;
}

// For each spec parameter, the digit of each dataset value (nullopt: the spec lacks the value), or the
// spec default's digit when the dataset does not have the parameter.
struct ConfigMap {
    std::vector<std::optional<std::size_t>> datasetParameter;     // per spec parameter
    std::vector<std::vector<std::optional<std::uint32_t>>> digit; // per spec parameter, per dataset value
};

} // namespace

DatasetProfiler::DatasetProfiler(const Dataset& dataset, const KernelSpec& spec, GpuSpec gpu)
    : m_dataset(dataset), m_spec(spec), m_gpu(std::move(gpu)) {
    const KernelVariant* cuda = spec.variant("cuda");
    if (!cuda)
        throw Error(fmt::format("The kernel spec {} has no cuda variant to compile the configs of {} with.",
                                spec.specFile.string(), dataset.path.filename().string()));
    for (const Parameter& p : dataset.space.parameters()) {
        const bool known = std::any_of(cuda->parameters.begin(), cuda->parameters.end(),
                                       [&](const Parameter& q) { return q.name == p.name; });
        if (!known)
            throw Error(
                fmt::format("The dataset {} has the parameter {}, which the kernel spec {} does not have.",
                            dataset.path.filename().string(), p.name, spec.specFile.string()));
    }
}

GpuSpec DatasetProfiler::datasetGpu(const Dataset& dataset) {
    const std::string device = dataset.deviceName;
    const std::string name = dataset.path.filename().string();
    const std::string lower = normalised(device);
    for (const char* amd : {"amd", "radeon", "instinct", "mi250", "mi300", "mi100", "mi210"})
        if (lower.find(amd) != std::string::npos)
            throw Error(
                fmt::format("The dataset {} was measured on {}, an AMD GPU, which NVRTC cannot compile "
                            "for: static profiles are for NVIDIA GPUs.",
                            name, device));
    const GpuDatabase& db = GpuDatabase::builtin();
    if (device.empty()) // T4 results files carry no device
        throw Error(
            fmt::format("The dataset {} does not name the GPU it was measured on: name it with --target "
                        "(one of {}).",
                        name, db.idList()));
    const GpuSpec* best = db.match(device);
    if (!best)
        throw Error(
            fmt::format("The dataset {} was measured on \"{}\", which is not in the GPU database: name "
                        "the GPU to compute occupancy on with --target (one of {}).",
                        name, device, db.idList()));
    return *best;
}

std::optional<DatasetProfile> DatasetProfiler::profile(NvrtcCompiler& compiler,
                                                       const Options& options) const {
    const KernelSpace space(m_spec, "cuda", problemSize(m_dataset, m_spec));
    const std::vector<Parameter>& specParameters = space.space().parameters();
    const std::vector<Parameter>& datasetParameters = m_dataset.space.parameters();
    ConfigMap map;
    for (const Parameter& p : specParameters) {
        std::optional<std::size_t> d = m_dataset.space.parameterIndex(p.name);
        map.datasetParameter.push_back(d);
        std::vector<std::optional<std::uint32_t>> digits;
        if (d)
            for (const Value& v : datasetParameters[*d].values) {
                auto it = std::find_if(p.values.begin(), p.values.end(),
                                       [&](const Value& w) { return ConfigMapping::sameValue(v, w); });
                digits.push_back(it == p.values.end() ? std::nullopt
                                                      : std::optional<std::uint32_t>(it - p.values.begin()));
            }
        map.digit.push_back(std::move(digits));
    }
    const std::optional<SearchSpace::Index> defaults = space.defaultIndex();
    const std::vector<std::uint32_t> defaultDigits = space.space().digits(defaults.value_or(0));

    std::vector<SearchSpace::Index> datasetIndices;
    if (options.product) {
        datasetIndices.resize(m_dataset.space.domainSize(SpaceMode::Product));
        for (SearchSpace::Index i = 0; i < datasetIndices.size(); ++i)
            datasetIndices[i] = m_dataset.space.domainAt(SpaceMode::Product, i);
    } else {
        datasetIndices.reserve(m_dataset.entries.size());
        for (const auto& entry : m_dataset.entries)
            datasetIndices.push_back(entry.first);
    }
    if (options.sample > 0 && options.sample < datasetIndices.size()) {
        std::sort(datasetIndices.begin(), datasetIndices.end());
        std::shuffle(datasetIndices.begin(), datasetIndices.end(), std::mt19937_64(options.seed));
        datasetIndices.resize(options.sample);
    }
    std::sort(datasetIndices.begin(), datasetIndices.end());
    std::vector<SearchSpace::Index> specIndices;
    specIndices.reserve(datasetIndices.size());
    for (SearchSpace::Index index : datasetIndices) {
        const std::vector<std::uint32_t> from = m_dataset.space.digits(index);
        std::vector<std::uint32_t> to = defaultDigits;
        for (std::size_t p = 0; p < specParameters.size(); ++p) {
            if (!map.datasetParameter[p])
                continue;
            const std::size_t d = *map.datasetParameter[p];
            const std::optional<std::uint32_t> digit = map.digit[p][from[d]];
            if (!digit)
                throw Error(fmt::format(
                    "Config {} of the dataset {} sets {} to {}, which is not one of its values "
                    "in the kernel spec {}.",
                    m_dataset.space.key(index), m_dataset.path.filename().string(), specParameters[p].name,
                    toString(datasetParameters[d].values[from[d]]), m_spec.specFile.string()));
            to[p] = *digit;
        }
        specIndices.push_back(space.space().indexOfDigits(to));
    }

    CudaStaticAnalyzer analyzer(m_spec, space, m_gpu, compiler, options.architecture);
    DatasetProfile profile;
    profile.dataset = m_dataset.path.filename().string();
    profile.datasetHash = SourceHash::ofFile(m_dataset.path);
    profile.kernelSpec = m_spec.name;
    profile.sourceHash = sourceHash(space.variant());
    profile.nvrtcVersion = NvrtcProgram::version();
    profile.architecture = analyzer.architecture();
    profile.gpu = m_gpu.id;
    const std::size_t threads =
        options.threads ? options.threads : std::max(1u, std::thread::hardware_concurrency());
    const std::size_t batch = 4 * threads;
    for (std::size_t start = 0; start < specIndices.size(); start += batch) {
        if (options.stopRequested && options.stopRequested())
            return std::nullopt;
        const std::size_t end = std::min(specIndices.size(), start + batch);
        const std::span<const SearchSpace::Index> part(specIndices.data() + start, end - start);
        const std::vector<StaticProfile> profiles = analyzer.analyze(part, threads);
        for (std::size_t i = 0; i < profiles.size(); ++i) {
            const StaticProfile& p = profiles[i];
            ConfigProfile c;
            c.compiled = p.compiled;
            if (p.compiled) {
                c.registers = p.resources.registersPerThread;
                c.spillStores = p.resources.spillStoreBytes;
                c.spillLoads = p.resources.spillLoadBytes;
                c.staticSharedBytes = p.resources.staticSharedBytes;
                c.dynamicSharedBytes = p.launch.dynamicSharedBytes;
                c.threadsPerBlock = p.launch.threadsPerBlock();
                c.blocks = p.launch.blocks();
                c.occupancy = p.occupancy.occupancy;
                c.limitedBy = p.occupancy.limitText();
            }
            profile.configs.emplace(m_dataset.space.key(datasetIndices[start + i]), std::move(c));
        }
        if (options.progress)
            options.progress(end, specIndices.size());
    }
    return profile;
}

} // namespace ts
