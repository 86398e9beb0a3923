#pragma once

#include <QObject>
#include <QString>

class QWidget;

namespace ts::gui {

// Where the GUI sends user-facing errors: one clear sentence naming the input and the problem. Interactive
// (the default) shows a modal QMessageBox; tests switch it off and watch `reported` instead, so an error
// never blocks a test. Lives on the UI thread.
class ErrorReporter : public QObject {
    Q_OBJECT
public:
    explicit ErrorReporter(QObject* parent = nullptr) : QObject(parent) {}

    void setInteractive(bool interactive) { m_interactive = interactive; }
    bool isInteractive() const { return m_interactive; }

    void report(QWidget* parent, const QString& title, const QString& message);

signals:
    void reported(const QString& title, const QString& message);

private:
    bool m_interactive = true;
};

} // namespace ts::gui
