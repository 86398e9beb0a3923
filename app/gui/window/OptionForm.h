#pragma once

#include "strategies/OptionSpec.h"

#include <QWidget>
#include <map>
#include <string>
#include <vector>

class QFormLayout;

namespace ts::gui {

// A form generated from a strategy's option table: a check box per Bool option, a spin box over the range of
// an Integer option, a combo box of the choices of a String option, a line edit per Real option (core
// validates the text and names the option when it does not parse or lies outside the range). Descriptions,
// ranges and defaults are tool tips.
class OptionForm : public QWidget {
    Q_OBJECT
public:
    explicit OptionForm(QWidget* parent = nullptr);

    void setOptions(const std::vector<OptionSpec>& table);
    // Options whose value differs from the default, as name -> text.
    std::map<std::string, std::string> values() const;
    // Sets the fields named in `values`; unknown names are ignored.
    void setValues(const std::map<std::string, std::string>& values);
    int fieldCount() const { return static_cast<int>(m_fields.size()); }

private:
    struct Field {
        OptionSpec spec;
        QWidget* editor;
    };
    QFormLayout* m_layout;
    std::vector<Field> m_fields;
};

} // namespace ts::gui
