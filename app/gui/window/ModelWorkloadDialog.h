#pragma once

#include "extract/ModelWorkload.h"

#include <QDialog>
#include <map>

class QCheckBox;
class QComboBox;
class QLineEdit;
class QSpinBox;

namespace ts::gui {

// File > New workload from model...: what core's ModelWorkload needs beyond the model file, asked of the
// user: a value for every dimension the model leaves open (read from the model first), the kernels to make
// tasks of, the device and the workload's name. Only with ONNX (TUNESCOPE_WITH_ONNX).
class ModelWorkloadDialog : public QDialog {
    Q_OBJECT
public:
    // `openDims`: the model's open dimensions (OnnxModel::openDims), each asked with a default of 1.
    ModelWorkloadDialog(const QString& model, const std::set<std::string>& openDims,
                        QWidget* parent = nullptr);

    // The request as the form stands.
    ModelWorkload::Request request() const;
    // For tests and scripted use: a dimension's value and the kernels' boxes.
    void setDim(const std::string& name, int value);
    void setKernel(const std::string& kernel, bool on);

private:
    QString m_model;
    std::map<std::string, QSpinBox*> m_dims;
    std::map<std::string, QCheckBox*> m_kernels;
    QComboBox* m_device = nullptr;
    QLineEdit* m_name = nullptr;
};

} // namespace ts::gui
