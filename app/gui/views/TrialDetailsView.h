#pragma once

#include "views/RunView.h"

class QLabel;
class QPlainTextEdit;
class QTableWidget;

namespace ts::gui {

class HistogramWidget;

// The selected trial: config, status, samples histogram and statistics, compile log or failure reason, and
// the backend's resource figures (registers, shared memory, occupancy, ... from Measurement::metrics).
class TrialDetailsView : public RunView {
    Q_OBJECT
public:
    explicit TrialDetailsView(RunData& data, QWidget* parent = nullptr);

    QLabel* summary() const { return m_summary; }
    HistogramWidget* histogram() const { return m_histogram; }

protected:
    void refresh() override;

private:
    QLabel* m_summary;
    HistogramWidget* m_histogram;
    QLabel* m_statistics;
    QTableWidget* m_config;
    QPlainTextEdit* m_log;
};

} // namespace ts::gui
