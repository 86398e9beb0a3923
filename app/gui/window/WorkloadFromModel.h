#pragma once

#include "extract/ModelWorkload.h"

#include <QObject>
#include <QString>

class QWidget;

namespace ts::gui {

class ErrorReporter;
class WorkloadView;

// File > New workload from model...: a model file, ModelWorkloadDialog, where to save, then core's
// ModelWorkload writes the workload file and the Workload view opens it. Errors (a model that cannot be read,
// open dimensions, no task) go to the ErrorReporter, one sentence each. Only with ONNX.
class WorkloadFromModel : public QObject {
    Q_OBJECT
public:
    WorkloadFromModel(QWidget& window, ErrorReporter& errors, WorkloadView& view);

    // The whole interactive chain (file dialogs and the form).
    void choose();
    // The model's open dimensions, or nullopt after reporting why it cannot be read.
    std::optional<std::set<std::string>> openDims(const QString& model);
    // Writes the workload of `request` to `output` and opens it in the Workload view; false after reporting
    // an error.
    bool create(const ModelWorkload::Request& request, const QString& output);

signals:
    // The workload file was written and chosen in the Workload view.
    void created(const QString& output);

private:
    QWidget& m_window;
    ErrorReporter& m_errors;
    WorkloadView& m_view;
};

} // namespace ts::gui
