#include "window/ModelWorkloadDialog.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFileInfo>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QSpinBox>
#include <QVBoxLayout>

namespace ts::gui {

ModelWorkloadDialog::ModelWorkloadDialog(const QString& model, const std::set<std::string>& openDims,
                                         QWidget* parent)
    : QDialog(parent), m_model(model) {
    setWindowTitle(tr("New workload from %1").arg(QFileInfo(model).fileName()));
    auto* layout = new QVBoxLayout(this);
    auto* form = new QFormLayout;
    layout->addLayout(form);
    m_name = new QLineEdit(QFileInfo(model).completeBaseName(), this);
    form->addRow(tr("Workload name"), m_name);
    m_device = new QComboBox(this);
    m_device->addItems({"cpu", "cuda"});
    form->addRow(tr("Measured on"), m_device);
    auto* kernels = new QWidget(this);
    auto* row = new QHBoxLayout(kernels);
    row->setContentsMargins(0, 0, 0, 0);
    for (const std::string& kernel : ModelWorkload::kernelNames()) {
        auto* box = new QCheckBox(QString::fromStdString(kernel), kernels);
        box->setChecked(true);
        row->addWidget(box);
        m_kernels[kernel] = box;
    }
    form->addRow(tr("Tasks of"), kernels);
    if (openDims.empty()) {
        form->addRow(new QLabel(tr("The model fixes every dimension."), this));
    } else {
        auto* group = new QGroupBox(tr("Dimensions the model leaves open"), this);
        auto* dims = new QFormLayout(group);
        for (const std::string& dim : openDims) {
            auto* spin = new QSpinBox(group);
            spin->setRange(1, 1 << 30);
            spin->setValue(1);
            dims->addRow(QString::fromStdString(dim), spin);
            m_dims[dim] = spin;
        }
        layout->addWidget(group);
    }
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    layout->addWidget(buttons);
}

ModelWorkload::Request ModelWorkloadDialog::request() const {
    ModelWorkload::Request request;
    request.model = m_model.toStdString();
    request.kernels.clear();
    for (const auto& [kernel, box] : m_kernels)
        if (box->isChecked())
            request.kernels.insert(kernel);
    for (const auto& [dim, spin] : m_dims)
        request.bindings.dims[dim] = spin->value();
    request.device = m_device->currentText().toStdString();
    request.name = m_name->text().trimmed().toStdString();
    return request;
}

void ModelWorkloadDialog::setDim(const std::string& name, int value) {
    if (auto it = m_dims.find(name); it != m_dims.end())
        it->second->setValue(value);
}

void ModelWorkloadDialog::setKernel(const std::string& kernel, bool on) {
    if (auto it = m_kernels.find(kernel); it != m_kernels.end())
        it->second->setChecked(on);
}

} // namespace ts::gui
