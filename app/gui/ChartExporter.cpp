#include "ChartExporter.h"

#include <QAction>
#include <QChart>
#include <QChartView>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QImage>
#include <QPainter>
#include <QRegularExpression>
#include <QSaveFile>
#include <QSettings>
#include <QSvgGenerator>
#include <QWidget>
#include <algorithm>

namespace ts::gui {

namespace {

constexpr const char* kDirectoryKey = "export/chartDirectory";

QString failure(const QString& path, const QString& problem) {
    return ChartExporter::tr("Cannot write the chart to %1: %2.")
        .arg(QDir::toNativeSeparators(path), problem);
}

// The system's reason, as the end of a sentence ("Permission denied" -> "permission denied").
QString reason(const QString& errorString) {
    QString text = errorString.trimmed();
    while (text.endsWith('.'))
        text.chop(1);
    if (text.isEmpty())
        return ChartExporter::tr("the file could not be written");
    if (text.size() > 1 && text[1].isLower())
        text[0] = text[0].toLower();
    return text;
}

// Why `path` cannot be a file at all, before anything is written; empty when it may be.
QString unusablePath(QWidget* chart, const QString& path) {
    if (!chart)
        return ChartExporter::tr("there is no chart");
    if (chart->width() <= 0 || chart->height() <= 0)
        return ChartExporter::tr("the chart has no size yet (it was never shown)");
    if (path.isEmpty())
        return ChartExporter::tr("no file name was given");
    const QFileInfo file(path);
    if (file.isDir())
        return ChartExporter::tr("it is a folder");
    const QFileInfo folder(file.absolutePath());
    if (folder.exists() && !folder.isDir())
        return ChartExporter::tr("%1 is not a folder").arg(QDir::toNativeSeparators(folder.filePath()));
    if (!folder.exists())
        return ChartExporter::tr("the folder %1 does not exist")
            .arg(QDir::toNativeSeparators(folder.filePath()));
    return {};
}

// Opens `file` for writing, or returns the sentence saying why not.
QString open(QSaveFile& file) {
    if (file.open(QIODevice::WriteOnly))
        return {};
    return failure(file.fileName(), reason(file.errorString()));
}

// Replaces the target with the written file, or says why not (the temporary file goes with `file`).
QString commit(QSaveFile& file, bool written) {
    if (!written)
        return failure(file.fileName(), reason(file.errorString()));
    if (!file.commit())
        return failure(file.fileName(), reason(file.errorString()));
    return {};
}

QString extension(ChartExporter::Format format) {
    return format == ChartExporter::Format::Png ? "png" : "svg";
}

// A file name from what the chart shows: its title, else its kind ("HeatmapWidget" -> "heatmap").
QString defaultName(QWidget* chart) {
    QString name;
    if (auto* view = qobject_cast<QChartView*>(chart))
        name = view->chart()->title();
    if (name.isEmpty())
        name = QString::fromLatin1(chart->metaObject()->className()).section("::", -1).remove("Widget");
    name = name.toLower().replace(QRegularExpression("[^a-z0-9]+"), "-");
    while (name.startsWith('-'))
        name.remove(0, 1);
    while (name.endsWith('-'))
        name.chop(1);
    return name.isEmpty() ? QString("chart") : name.left(60);
}

} // namespace

QString ChartExporter::exportPng(QWidget* chart, const QString& path) {
    if (QString problem = unusablePath(chart, path); !problem.isEmpty())
        return failure(path, problem);
    const double scale = std::max(chart->devicePixelRatioF(), kMinPngScale);
    QImage image(chart->size() * scale, QImage::Format_ARGB32_Premultiplied);
    if (image.isNull())
        return failure(path, tr("the chart is too large for an image (%1 x %2 px)")
                                 .arg(chart->width() * scale)
                                 .arg(chart->height() * scale));
    image.setDevicePixelRatio(scale);
    image.fill(chart->palette().window().color());
    chart->render(&image);
    QSaveFile file(path);
    if (QString error = open(file); !error.isEmpty())
        return error;
    const bool written = image.save(&file, "PNG");
    return commit(file, written);
}

QString ChartExporter::exportSvg(QWidget* chart, const QString& path) {
    if (QString problem = unusablePath(chart, path); !problem.isEmpty())
        return failure(path, problem);
    QSaveFile file(path);
    if (QString error = open(file); !error.isEmpty())
        return error;
    QSvgGenerator generator;
    generator.setOutputDevice(&file);
    generator.setSize(chart->size());
    generator.setViewBox(QRect(QPoint(0, 0), chart->size()));
    generator.setTitle(defaultName(chart));
    generator.setDescription(tr("A chart exported by Tunescope."));
    QPainter painter;
    if (!painter.begin(&generator))
        return commit(file, false);
    chart->render(&painter);
    // The generator writes the document when painting ends.
    const bool ended = painter.end();
    return commit(file, ended && file.error() == QFileDevice::NoError);
}

QString ChartExporter::exportChart(QWidget* chart, Format format, const QString& path) {
    return format == Format::Png ? exportPng(chart, path) : exportSvg(chart, path);
}

void ChartExporter::installMenu(QWidget* chart) {
    auto add = [chart](const QString& text, Format format) {
        auto* action = new QAction(text, chart);
        action->setObjectName(QString("exportChart%1").arg(extension(format).toUpper()));
        connect(action, &QAction::triggered, chart,
                [chart, format] { instance().exportInteractively(chart, format); });
        chart->addAction(action);
    };
    add(tr("Export chart as PNG..."), Format::Png);
    add(tr("Export chart as SVG..."), Format::Svg);
    chart->setContextMenuPolicy(Qt::ActionsContextMenu);
}

ChartExporter& ChartExporter::instance() {
    static ChartExporter exporter;
    return exporter;
}

QString ChartExporter::choosePath(QWidget* chart, Format format) const {
    if (m_chooser)
        return m_chooser(chart, format);
    QSettings settings;
    const QString folder = settings.value(kDirectoryKey, QDir::homePath()).toString();
    const QString suggested = QDir(folder).filePath(defaultName(chart) + "." + extension(format));
    const QString filter = format == Format::Png ? tr("PNG images (*.png)") : tr("SVG images (*.svg)");
    QString path = QFileDialog::getSaveFileName(chart, tr("Export chart"), suggested, filter);
    if (path.isEmpty())
        return path;
    if (QFileInfo(path).suffix().isEmpty())
        path += "." + extension(format);
    settings.setValue(kDirectoryKey, QFileInfo(path).absolutePath());
    return path;
}

void ChartExporter::exportInteractively(QWidget* chart, Format format) {
    const QString path = choosePath(chart, format);
    if (path.isEmpty())
        return;
    const QString error = exportChart(chart, format, path);
    if (!error.isEmpty()) {
        errors().report(chart, tr("Cannot export the chart"), error);
        return;
    }
    emit exported(path, tr("Chart written to %1.").arg(QDir::toNativeSeparators(path)));
}

} // namespace ts::gui
