#include "OptionForm.h"

#include <QCheckBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>

namespace ts::gui {

namespace {
bool isTrue(const std::string& text) {
    return text == "true" || text == "True" || text == "1" || text == "yes" || text == "on";
}
} // namespace

OptionForm::OptionForm(QWidget* parent) : QWidget(parent), m_layout(new QFormLayout(this)) {
    m_layout->setContentsMargins(0, 0, 0, 0);
}

void OptionForm::setOptions(const std::vector<OptionSpec>& table) {
    while (m_layout->rowCount() > 0)
        m_layout->removeRow(0);
    m_fields.clear();
    for (const OptionSpec& spec : table) {
        QWidget* editor = nullptr;
        if (spec.type == OptionType::Bool) {
            auto* box = new QCheckBox(this);
            box->setChecked(isTrue(spec.defaultValue));
            editor = box;
        } else {
            auto* edit = new QLineEdit(QString::fromStdString(spec.defaultValue), this);
            edit->setPlaceholderText(QString::fromStdString(spec.defaultValue));
            editor = edit;
        }
        editor->setObjectName(QString::fromStdString("option_" + spec.name));
        QString tip = QString("%1 (%2, default %3)")
                          .arg(QString::fromStdString(spec.description), toString(spec.type),
                               QString::fromStdString(spec.defaultValue));
        editor->setToolTip(tip);
        auto* label = new QLabel(QString::fromStdString(spec.name), this);
        label->setToolTip(tip);
        m_layout->addRow(label, editor);
        m_fields.push_back({spec, editor});
    }
    if (table.empty())
        m_layout->addRow(new QLabel(tr("(no options)"), this));
}

std::map<std::string, std::string> OptionForm::values() const {
    std::map<std::string, std::string> result;
    for (const Field& f : m_fields) {
        std::string text;
        if (auto* box = qobject_cast<QCheckBox*>(f.editor))
            text = box->isChecked() ? "true" : "false";
        else
            text = static_cast<QLineEdit*>(f.editor)->text().trimmed().toStdString();
        bool isDefault = f.spec.type == OptionType::Bool ? isTrue(text) == isTrue(f.spec.defaultValue)
                                                         : (text.empty() || text == f.spec.defaultValue);
        if (!isDefault)
            result[f.spec.name] = text;
    }
    return result;
}

void OptionForm::setValues(const std::map<std::string, std::string>& values) {
    for (const Field& f : m_fields) {
        auto it = values.find(f.spec.name);
        if (it == values.end())
            continue;
        if (auto* box = qobject_cast<QCheckBox*>(f.editor))
            box->setChecked(isTrue(it->second));
        else
            static_cast<QLineEdit*>(f.editor)->setText(QString::fromStdString(it->second));
    }
}

} // namespace ts::gui
