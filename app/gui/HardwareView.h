#pragma once

#include "RunView.h"

#include "hardware/GpuSpec.h"

#include <optional>

class QAbstractAxis;
class QChartView;
class QLabel;
class QLineSeries;
class QScatterSeries;
class QTableWidget;

namespace ts::gui {

// The device and the selected trial's resources. Device features come from core's GPU database (the device
// name of a replay dataset or session is looked up there), or from core's CpuInfo for cpu sessions; for a
// trial, the backend's metrics ("registers", "shared_bytes", "dynamic_shared_bytes", "threads_per_block", or
// block_size_x/y/z parameters) feed core's occupancy calculator: occupancy, its limiting resource, and the
// three occupancy curves (vs threads per block, registers per thread, shared memory) with the config marked,
// as Nsight Compute draws them.
class HardwareView : public RunView {
    Q_OBJECT
public:
    explicit HardwareView(RunData& data, QWidget* parent = nullptr);

    // Looks the device up in the GPU database; unknown names leave the features table saying so.
    void setDeviceName(const QString& name);
    // The device is this machine's CPU (a cpu backend session): its features from core's CpuInfo (cores,
    // caches, SIMD width and flags); trials have no occupancy.
    void showCpu();
    bool showsCpu() const { return m_cpu; }
    const std::optional<GpuSpec>& gpu() const { return m_gpu; }
    QTableWidget* features() const { return m_features; }
    QChartView* curveChart(int index) const { return m_curves[index]; }
    QLabel* resources() const { return m_resources; }

protected:
    void refresh() override;

private:
    void showFeatures(const QString& name);
    void clearCurves();

    std::optional<GpuSpec> m_gpu;
    bool m_cpu = false;
    QLabel* m_device;
    QTableWidget* m_features;
    QLabel* m_resources;
    QChartView* m_curves[3];
    QAbstractAxis* m_x[3];
    QAbstractAxis* m_y[3];
    QLineSeries* m_lines[3];
    QScatterSeries* m_marks[3];
};

} // namespace ts::gui
