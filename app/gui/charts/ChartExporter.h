#pragma once

#include "window/ErrorReporter.h"

#include <QObject>
#include <QPointer>
#include <QString>
#include <functional>

class QWidget;

namespace ts::gui {

// Writes any chart (a Qt Charts view or a custom-painted chart widget) to a PNG or SVG file as it is drawn
// now, at its current size, and gives every chart the context-menu actions that do it. The write functions
// are plain calls (tests, scripts); the menu actions ask for a file, write it, and report through the one
// application-wide exporter: a failure to its ErrorReporter (a dialog), a success as exported(), which the
// main window shows in its status bar. Lives on the UI thread.
class ChartExporter : public QObject {
    Q_OBJECT
public:
    enum class Format { Png, Svg };

    // A PNG is drawn at the chart's device pixel ratio, and at least at this scale, so it stays sharp in
    // documents and on high-density screens.
    static constexpr double kMinPngScale = 2.0;

    // Writes the chart to `path`, replacing the file only once the whole file is written (core's OutputFile:
    // nothing is left behind on failure, an earlier file stays whole). Returns an empty string on success,
    // else one sentence naming the file and the problem.
    static QString exportPng(QWidget* chart, const QString& path);
    static QString exportSvg(QWidget* chart, const QString& path);
    static QString exportChart(QWidget* chart, Format format, const QString& path);

    // Adds "Export chart as PNG..." and "Export chart as SVG..." to the chart's context menu (right click).
    static void installMenu(QWidget* chart);

    // The exporter the context menus report to.
    static ChartExporter& instance();

    // Where export failures go; until set (or once that reporter is gone), to a reporter of the exporter's
    // own that shows a dialog.
    void setErrorReporter(ErrorReporter* errors) { m_errors = errors; }
    ErrorReporter& errors() { return m_errors ? *m_errors : m_ownErrors; }

    // Replaces the save dialog (tests): returns the chosen path, or an empty string to cancel.
    using FileChooser = std::function<QString(QWidget* chart, Format format)>;
    void setFileChooser(FileChooser chooser) { m_chooser = std::move(chooser); }

    // What a menu action does: asks for a file, writes the chart there and reports the outcome.
    void exportInteractively(QWidget* chart, Format format);

signals:
    // A file was written from a menu; `message` is the confirmation to show ("Chart written to FILE.").
    void exported(const QString& path, const QString& message);

private:
    QString choosePath(QWidget* chart, Format format) const;

    QPointer<ErrorReporter> m_errors;
    ErrorReporter m_ownErrors;
    FileChooser m_chooser;
};

} // namespace ts::gui
