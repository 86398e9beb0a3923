#include "running/StaticAnalysisRunner.h"

#include "kernels/ConfigMapping.h"
#include "kernels/KernelSizes.h"
#include "kernels/KernelSpace.h"
#ifdef TUNESCOPE_WITH_CUDA
#include "cuda/CudaStaticAnalyzer.h"
#endif

#include <QStringList>
#include <QtConcurrent/QtConcurrentRun>
#include <mutex>

namespace ts::gui {

namespace {

const char* const kNoNvrtc = "This build of Tunescope has no NVRTC (it was built without the CUDA toolkit), "
                             "so configs cannot be analysed for a GPU.";

#ifdef TUNESCOPE_WITH_CUDA
// The cuda variant's space of a kernel at a size, built once per (kernel, size) for every analysis
// (enumerating a space takes a while). Any thread.
std::shared_ptr<const KernelSpace> cudaSpace(const std::shared_ptr<const KernelSpec>& spec,
                                             const ProblemSize& size) {
    static std::mutex mutex;
    static std::map<std::pair<std::string, ProblemSize>, std::shared_ptr<const KernelSpace>> spaces;
    const auto key = std::make_pair(spec->specFile.string() + "|" + spec->name, size);
    {
        std::lock_guard lock(mutex);
        if (auto it = spaces.find(key); it != spaces.end())
            return it->second;
    }
    auto space = std::make_shared<const KernelSpace>(*spec, "cuda", size);
    std::lock_guard lock(mutex);
    return spaces.emplace(key, std::move(space)).first->second;
}
#endif

// The worker's part: map the config into the cuda space and analyse it with NVRTC. Never throws.
HardwareAnalysis analyse(const StaticAnalysisRunner::Request& request) {
    HardwareAnalysis a;
    a.key = request.key();
    a.gpu = request.gpu;
#ifdef TUNESCOPE_WITH_CUDA
    try {
        const std::shared_ptr<const KernelSpace> space = cudaSpace(request.spec, request.size);
        const ConfigMapping mapping =
            ConfigMapping::of(request.parameters, request.config, *space,
                              request.datasetKernel ? ConfigMapping::MissingParameters::TakeDefaults
                                                    : ConfigMapping::MissingParameters::Fail);
        for (const std::string& name : mapping.ignored)
            a.ignored << QString::fromStdString(name);
        if (!mapping.index) {
            a.problem = QString::fromStdString(mapping.problem);
            return a;
        }
        NvrtcCompiler compiler;
        CudaStaticAnalyzer analyzer(*request.spec, *space, request.gpu, compiler);
        a.profile = analyzer.profile(*mapping.index);
        a.note = QString::fromStdString(analyzer.note());
    } catch (const std::exception& e) {
        a.problem = QString::fromUtf8(e.what());
    }
#else
    a.problem = StaticAnalysisRunner::noNvrtc();
#endif
    return a;
}

QString configText(const std::vector<Parameter>& parameters, const Config& config) {
    QStringList parts;
    for (std::size_t p = 0; p < parameters.size() && p < config.size(); ++p)
        parts << QString::fromStdString(parameters[p].name + "=" + toString(config[p]));
    return parts.join(',');
}

} // namespace

QString StaticAnalysisRunner::Request::key() const {
    return QString("%1|%2|%3|%4")
        .arg(QString::fromStdString(spec->name), QString::fromStdString(formatProblemSize(*spec, size)),
             configText(parameters, config), QString::fromStdString(gpu.id));
}

StaticAnalysisRunner::StaticAnalysisRunner(QObject* parent)
    : QObject(parent), m_watcher(new QFutureWatcher<HardwareAnalysis>(this)) {
    connect(m_watcher, &QFutureWatcherBase::finished, this, &StaticAnalysisRunner::runDone);
}

QString StaticAnalysisRunner::noNvrtc() {
    return tr(kNoNvrtc);
}

const HardwareAnalysis* StaticAnalysisRunner::cached(const QString& key) const {
    auto it = m_results.find(key);
    return it == m_results.end() ? nullptr : &it->second;
}

void StaticAnalysisRunner::request(Request request) {
    m_next = std::move(request);
    if (!m_watcher->isRunning())
        startNext();
}

void StaticAnalysisRunner::startNext() {
    if (!m_next)
        return;
    Request request = std::move(*m_next);
    m_next.reset();
    m_watcher->setFuture(QtConcurrent::run([request = std::move(request)] { return analyse(request); }));
}

void StaticAnalysisRunner::runDone() {
    HardwareAnalysis a = m_watcher->result();
    if (m_results.size() >= kMaxResults)
        m_results.clear();
    m_results[a.key] = a;
    startNext(); // the request made while this one ran, if any
    emit analysed(a);
}

} // namespace ts::gui
