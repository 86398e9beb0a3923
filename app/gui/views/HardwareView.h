#pragma once

#include "charts/OccupancyCharts.h"
#include "charts/RooflineChart.h"
#include "data/HardwareAnalysis.h"
#include "views/FeatureTable.h"
#include "views/RunView.h"

#include "hardware/CpuInfo.h"
#include "hardware/GpuSpec.h"
#include "hardware/Roofline.h"
#include "kernels/KernelSpec.h"

#include <QFutureWatcher>
#include <map>
#include <memory>
#include <optional>
#include <set>

class QAbstractAxis;
class QChartView;
class QComboBox;
class QGridLayout;
class QLabel;
class QLineSeries;
class QScatterSeries;
class QSplitter;
class QTableWidget;

namespace ts::gui {

class StaticAnalysisRunner;

// The device and the selected trial's resources. Device features come from core's GPU database (the device
// name of a replay dataset or session is looked up there), or from core's CpuInfo for cpu sessions.
//
// For the selected trial, the chooser names a GPU of the database (default: the session's GPU when the
// database has it, else H200): when the trial was measured on that GPU with its resources (the CUDA
// backend's "registers", "shared_bytes", "dynamic_shared_bytes", "threads_per_block" metrics), those feed
// core's occupancy calculator; otherwise the trial's config is mapped by parameter name into the kernel's
// cuda variant (core's ConfigMapping; the kernel from the catalog by the run's kernel name, the size from
// the run's problem JSON, else the spec's default) and analysed statically by core's CudaStaticAnalyzer
// (NVRTC compile, ptxas report, occupancy; no GPU needed), on a worker thread: the view says "Analysing..."
// meanwhile, keeps each result for reuse, and shows only the result of what is selected now. Either way it
// draws the three occupancy curves (vs threads per block, registers per thread, shared memory) with the
// config marked, as Nsight Compute draws them, or one sentence saying why it cannot.
//
// For cpu sessions a roofline replaces the empty GPU charts: the peak FP32 compute and the memory bandwidth
// of this CPU (CpuInfo::peakGflops, the bandwidth measured once per process on a worker thread) and each Ok
// trial at the kernel's arithmetic intensity and the GFLOP/s it reached (core's Roofline).
class HardwareView : public RunView {
    Q_OBJECT
public:
    explicit HardwareView(RunData& data, QWidget* parent = nullptr);

    // Narrower than the side-by-side arrangement needs: the view then stacks its panes (see arrange).
    QSize minimumSizeHint() const override;

    // Looks the device up in the GPU database; unknown names leave the features table saying so.
    void setDeviceName(const QString& name);
    // The device is this machine's CPU (a cpu backend session): its features from core's CpuInfo (cores,
    // caches, SIMD width and flags, peaks); the charts show the roofline.
    void showCpu();
    bool showsCpu() const { return m_cpu; }
    const std::optional<GpuSpec>& gpu() const { return m_gpu; }
    QTableWidget* features() const { return m_features; }
    QChartView* curveChart(int index) const { return m_occupancy->view(index); }
    QLabel* resources() const { return m_resources; }

    // The GPU the selected trial is analysed for (a database id), and its chooser.
    QComboBox* gpuChooser() const { return m_gpuChooser; }
    QString analysisGpu() const;
    void setAnalysisGpu(const QString& id);
    // The static analysis shown now (unset while analysing, for measured resources, or when it failed).
    const std::optional<HardwareAnalysis>& shownAnalysis() const { return m_shown; }
    bool isAnalysing() const { return !m_wanted.isEmpty(); }
    // The series the occupancy curves are drawn with (the config's mark: one point).
    QScatterSeries* curveMark(int index) const { return m_occupancy->mark(index); }

    // The roofline (cpu sessions): its chart, data and series (in axis coordinates, log10 of the data).
    QChartView* rooflineChart() const { return m_rooflineChart->view(); }
    QLabel* rooflineNote() const { return m_rooflineChart->note(); }
    const std::optional<Roofline>& roofline() const { return m_roofline; }
    const std::optional<CpuInfo>& cpuPeaks() const { return m_cpuPeaks; }
    QLineSeries* rooflineCompute() const { return m_rooflineChart->compute(); }
    QLineSeries* rooflineMemory() const { return m_rooflineChart->memory(); }
    QScatterSeries* rooflineTrials() const { return m_rooflineChart->trials(); }
    QScatterSeries* rooflineSelected() const { return m_rooflineChart->selected(); }
    QAbstractAxis* rooflineAxis(Qt::Orientation orientation) const {
        return m_rooflineChart->axis(orientation);
    }

signals:
    // A static analysis result arrived and was shown, or the CPU's measured peaks arrived.
    void analysisShown();
    void cpuPeaksReady();

protected:
    void refresh() override;
    void resizeEvent(QResizeEvent* event) override;

private:
    QWidget* buildDevicePane();
    void showFeatures(const QString& name);
    void fitLabels();
    void showSelection();
    void showNoAnalysis(const QString& text);
    void chooseDefaultGpu();
    void setCurvesShown(bool shown);
    void arrange(bool narrow);
    bool showMeasured(const Trial& t, const GpuSpec& gpu);
    void requestAnalysis(int row, const GpuSpec& gpu);
    void analysisArrived(const HardwareAnalysis& analysis);
    void showAnalysis(const HardwareAnalysis& analysis, int trialNumber);
    void drawCurves(const GpuSpec& gpu, const KernelResources& kernel, int threads, std::int64_t dynamic);
    void refreshRoofline();
    std::shared_ptr<const KernelSpec> runSpec(QString* problem);
    ProblemSize runSize(const KernelSpec& spec) const;

    std::optional<GpuSpec> m_gpu;
    bool m_cpu = false;
    bool m_narrow = false;
    int m_wideMinimumWidth = 0;   // the side-by-side arrangement's minimum width
    int m_chartMinimumHeight = 0; // what charts::makeChartView gives a chart
    QLabel* m_device = nullptr;
    FeatureTable* m_features = nullptr;
    QComboBox* m_gpuChooser = nullptr;
    QLabel* m_resources = nullptr;
    QSplitter* m_splitter;
    QGridLayout* m_grid;
    OccupancyCharts* m_occupancy;
    RooflineChart* m_rooflineChart;

    // Static analysis: what is shown, and what is wanted (empty: nothing pending) for which trial.
    std::optional<HardwareAnalysis> m_shown;
    QString m_wanted;
    int m_wantedTrial = 0;
    StaticAnalysisRunner* m_analyser;
    std::map<QString, std::shared_ptr<const KernelSpec>> m_specs; // by kernel name; null: not in the catalog
    std::set<QString> m_datasetKernels;                           // names whose spec is a dataset kernel's

    std::optional<Roofline> m_roofline;
    std::optional<CpuInfo> m_cpuPeaks; // CpuInfo::queryWithBandwidth, once measured
    QFutureWatcher<CpuInfo>* m_peaksWatcher;
};

} // namespace ts::gui
