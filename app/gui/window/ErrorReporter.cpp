#include "window/ErrorReporter.h"

#include <QMessageBox>

namespace ts::gui {

void ErrorReporter::report(QWidget* parent, const QString& title, const QString& message) {
    emit reported(title, message);
    if (m_interactive)
        QMessageBox::critical(parent, title, message);
}

} // namespace ts::gui
