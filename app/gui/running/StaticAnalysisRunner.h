#pragma once

#include "data/HardwareAnalysis.h"

#include "kernels/KernelSpec.h"
#include "space/Parameter.h"
#include "space/Value.h"

#include <QFutureWatcher>
#include <QObject>
#include <map>
#include <memory>
#include <optional>
#include <vector>

namespace ts::gui {

// Runs core's static analysis of a trial's config for a GPU off the UI thread (QtConcurrent): the config is
// mapped by parameter name into the kernel's cuda variant (core's ConfigMapping) and compiled with NVRTC
// for the GPU's architecture (core's CudaStaticAnalyzer; no GPU needed). At most one compile runs at a
// time, and of the requests made meanwhile only the latest waits; every result is kept for reuse (up to
// kMaxResults, then all are dropped at once). UI thread only.
class StaticAnalysisRunner : public QObject {
    Q_OBJECT
public:
    struct Request {
        std::shared_ptr<const KernelSpec> spec;
        ProblemSize size;
        std::vector<Parameter> parameters;
        Config config;
        GpuSpec gpu;
        bool datasetKernel = false; // parameters the dataset lacks take the spec's defaults

        // Kernel, problem size, config and GPU: what a result answers.
        QString key() const;
    };

    static constexpr std::size_t kMaxResults = 1024;

    explicit StaticAnalysisRunner(QObject* parent = nullptr);

    // The result of an earlier run of this key, if any.
    const HardwareAnalysis* cached(const QString& key) const;
    // Starts it now when nothing runs, else after the run in flight (replacing any request waiting).
    void request(Request request);
    // Why nothing can be analysed in a build without the CUDA toolkit (NVRTC).
    static QString noNvrtc();

signals:
    // Every result, in the order the runs end; the caller keeps what it still wants.
    void analysed(const HardwareAnalysis& analysis);

private:
    void startNext();
    void runDone();

    QFutureWatcher<HardwareAnalysis>* m_watcher;
    std::optional<Request> m_next;
    std::map<QString, HardwareAnalysis> m_results;
};

} // namespace ts::gui
