#include "window/OptionForm.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QSpinBox>
#include <limits>

namespace ts::gui {

namespace {
bool isTrue(const std::string& text) {
    return text == "true" || text == "True" || text == "1" || text == "yes" || text == "on";
}

bool fitsInt(double value) {
    return value >= std::numeric_limits<int>::min() && value <= std::numeric_limits<int>::max();
}

// The editor for one row: a check box (Bool), a spin box over the row's range (Integer), a combo box of the
// row's choices (String with choices), else a line edit whose text core validates.
QWidget* editorFor(const OptionSpec& spec, QWidget* parent) {
    if (spec.type == OptionType::Bool) {
        auto* box = new QCheckBox(parent);
        box->setChecked(isTrue(spec.defaultValue));
        return box;
    }
    if (spec.type == OptionType::Integer && fitsInt(spec.min) && fitsInt(spec.max)) {
        auto* spin = new QSpinBox(parent);
        spin->setRange(static_cast<int>(spec.min), static_cast<int>(spec.max));
        spin->setValue(QString::fromStdString(spec.defaultValue).toInt());
        return spin;
    }
    if (spec.type == OptionType::String && !spec.choices.empty()) {
        auto* combo = new QComboBox(parent);
        for (const std::string& choice : spec.choices)
            combo->addItem(QString::fromStdString(choice));
        combo->setCurrentText(QString::fromStdString(spec.defaultValue));
        return combo;
    }
    auto* edit = new QLineEdit(QString::fromStdString(spec.defaultValue), parent);
    edit->setPlaceholderText(QString::fromStdString(spec.defaultValue));
    return edit;
}

std::string textOf(const QWidget* editor) {
    if (auto* box = qobject_cast<const QCheckBox*>(editor))
        return box->isChecked() ? "true" : "false";
    if (auto* spin = qobject_cast<const QSpinBox*>(editor))
        return std::to_string(spin->value());
    if (auto* combo = qobject_cast<const QComboBox*>(editor))
        return combo->currentText().toStdString();
    return static_cast<const QLineEdit*>(editor)->text().trimmed().toStdString();
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
        QWidget* editor = editorFor(spec, this);
        editor->setObjectName(QString::fromStdString("option_" + spec.name));
        QString tip =
            QString("%1 (%2: %3; default %4)")
                .arg(QString::fromStdString(spec.description), toString(spec.type),
                     QString::fromStdString(spec.allowed()), QString::fromStdString(spec.defaultValue));
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
        const std::string text = textOf(f.editor);
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
        const QString text = QString::fromStdString(it->second);
        if (auto* box = qobject_cast<QCheckBox*>(f.editor))
            box->setChecked(isTrue(it->second));
        else if (auto* spin = qobject_cast<QSpinBox*>(f.editor))
            spin->setValue(text.toInt()); // a stored value outside the range was refused when it ran
        else if (auto* combo = qobject_cast<QComboBox*>(f.editor))
            combo->setCurrentText(text);
        else
            static_cast<QLineEdit*>(f.editor)->setText(text);
    }
}

} // namespace ts::gui
