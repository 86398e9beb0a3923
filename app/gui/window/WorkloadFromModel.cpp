#include "window/WorkloadFromModel.h"

#include "views/WorkloadView.h"
#include "window/ErrorReporter.h"
#include "window/ModelWorkloadDialog.h"

#include <QFileDialog>
#include <QFileInfo>

namespace ts::gui {

WorkloadFromModel::WorkloadFromModel(QWidget& window, ErrorReporter& errors, WorkloadView& view)
    : QObject(&window), m_window(window), m_errors(errors), m_view(view) {}

void WorkloadFromModel::choose() {
    const QString model = QFileDialog::getOpenFileName(&m_window, tr("Workload from an ONNX model"),
                                                       QString(), tr("ONNX models (*.onnx);;All files (*)"));
    if (model.isEmpty())
        return;
    const auto dims = openDims(model);
    if (!dims)
        return;
    ModelWorkloadDialog dialog(model, *dims, &m_window);
    if (dialog.exec() != QDialog::Accepted)
        return;
    const QFileInfo info(model);
    const QString output = QFileDialog::getSaveFileName(
        &m_window, tr("Save the workload"), info.dir().filePath(info.completeBaseName() + ".workload.json"),
        tr("Workload files (*.json)"));
    if (!output.isEmpty())
        create(dialog.request(), output);
}

std::optional<std::set<std::string>> WorkloadFromModel::openDims(const QString& model) {
    try {
        return OnnxModel::read(model.toStdString()).openDims();
    } catch (const std::exception& e) {
        m_errors.report(&m_window, tr("Cannot read the model"), QString::fromUtf8(e.what()));
        return std::nullopt;
    }
}

bool WorkloadFromModel::create(const ModelWorkload::Request& request, const QString& output) {
    try {
        ModelWorkload(request).write(output.toStdString());
    } catch (const std::exception& e) {
        m_errors.report(&m_window, tr("Cannot make a workload of the model"), QString::fromUtf8(e.what()));
        return false;
    }
    m_view.addWorkloadFile(output);
    emit created(output);
    return true;
}

} // namespace ts::gui
