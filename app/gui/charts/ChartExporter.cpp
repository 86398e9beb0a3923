#include "charts/ChartExporter.h"

#include "util/OutputFile.h"

#include <QAction>
#include <QBuffer>
#include <QChart>
#include <QChartView>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QImage>
#include <QPainter>
#include <QRegularExpression>
#include <QSettings>
#include <QSvgGenerator>
#include <QWidget>
#include <algorithm>
#include <string_view>

namespace ts::gui {

namespace {

constexpr const char* kDirectoryKey = "export/chartDirectory";
constexpr const char* kWhat =
    "chart file"; // as core's OutputFile names it: "Cannot write the chart file ..."

QString failure(const QString& path, const QString& problem) {
    return ChartExporter::tr("Cannot write the %1 %2: %3.")
        .arg(kWhat, QDir::toNativeSeparators(path), problem);
}

// Why nothing can be written to `path` (said more plainly than the system's "Not a directory"); empty when
// it may be.
QString unusablePath(QWidget* chart, const QString& path) {
    if (!chart)
        return ChartExporter::tr("there is no chart");
    if (chart->width() <= 0 || chart->height() <= 0)
        return ChartExporter::tr("the chart has no size yet (it was never shown)");
    if (path.isEmpty())
        return ChartExporter::tr("no file name was given");
    const QFileInfo folder(QFileInfo(path).absolutePath());
    if (folder.exists() && !folder.isDir())
        return ChartExporter::tr("%1 is not a folder").arg(QDir::toNativeSeparators(folder.filePath()));
    if (!folder.exists())
        return ChartExporter::tr("the folder %1 does not exist")
            .arg(QDir::toNativeSeparators(folder.filePath()));
    return {};
}

// Writes `data` as the whole file through core's OutputFile, as every output of the CLI: a temporary file
// beside the target, every write checked and the file renamed over the target once complete, so a failure
// (a full disk) leaves an earlier file whole and nothing beside it; folders, links and devices are refused.
// Qt's QSaveFile is not used: on a short write (a full disk) it reports no error and commits a cut file.
QString writeFile(const QString& path, const QByteArray& data) {
    try {
        OutputFile::writeAll(path.toStdString(), kWhat,
                             std::string_view(data.constData(), static_cast<std::size_t>(data.size())));
    } catch (const std::exception& e) {
        return QString::fromUtf8(e.what());
    }
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
    QByteArray png;
    QBuffer buffer(&png);
    if (!buffer.open(QIODevice::WriteOnly) || !image.save(&buffer, "PNG"))
        return failure(path, tr("the PNG encoder failed"));
    return writeFile(path, png);
}

QString ChartExporter::exportSvg(QWidget* chart, const QString& path) {
    if (QString problem = unusablePath(chart, path); !problem.isEmpty())
        return failure(path, problem);
    QByteArray svg;
    QBuffer buffer(&svg);
    if (!buffer.open(QIODevice::WriteOnly))
        return failure(path, tr("the SVG generator failed"));
    QSvgGenerator generator;
    generator.setOutputDevice(&buffer);
    generator.setSize(chart->size());
    generator.setViewBox(QRect(QPoint(0, 0), chart->size()));
    generator.setTitle(defaultName(chart));
    generator.setDescription(tr("A chart exported by Tunescope."));
    QPainter painter;
    if (!painter.begin(&generator))
        return failure(path, tr("the SVG generator failed"));
    chart->render(&painter);
    // The generator writes the document when painting ends.
    if (!painter.end() || svg.isEmpty())
        return failure(path, tr("the SVG generator failed"));
    return writeFile(path, svg);
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
