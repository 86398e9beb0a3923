#include "charts/ChartPalette.h"

#include "window/AppPalette.h"

#include <QAbstractBarSeries>
#include <QAreaSeries>
#include <QBarSet>
#include <QChart>
#include <QChartView>
#include <QEvent>
#include <QLegend>
#include <QXYSeries>
#include <vector>

namespace ts::gui {

namespace {

// How a series is drawn: a theme change would reset it to the theme's colours, losing the ones the views
// chose (batch colours, dashed optimum lines, task colours).
struct SeriesLook {
    QAbstractSeries* series;
    QPen pen;
    QBrush brush;
    QColor pointLabels;
    std::vector<std::pair<QPen, QBrush>> sets; // bar sets, in order
};

std::vector<SeriesLook> looksOf(const QChart* chart) {
    std::vector<SeriesLook> looks;
    for (QAbstractSeries* series : chart->series()) {
        SeriesLook look{series, {}, {}, {}, {}};
        if (auto* xy = qobject_cast<QXYSeries*>(series)) {
            look.pen = xy->pen();
            look.brush = xy->brush();
            look.pointLabels = xy->pointLabelsColor();
        } else if (auto* area = qobject_cast<QAreaSeries*>(series)) {
            look.pen = area->pen();
            look.brush = area->brush();
            look.pointLabels = area->pointLabelsColor();
        } else if (auto* bars = qobject_cast<QAbstractBarSeries*>(series)) {
            for (QBarSet* set : bars->barSets())
                look.sets.emplace_back(set->pen(), set->brush());
        }
        looks.push_back(std::move(look));
    }
    return looks;
}

void restore(const std::vector<SeriesLook>& looks) {
    for (const SeriesLook& look : looks) {
        if (auto* xy = qobject_cast<QXYSeries*>(look.series)) {
            xy->setPen(look.pen);
            xy->setBrush(look.brush);
            xy->setPointLabelsColor(look.pointLabels);
        } else if (auto* area = qobject_cast<QAreaSeries*>(look.series)) {
            area->setPen(look.pen);
            area->setBrush(look.brush);
            area->setPointLabelsColor(look.pointLabels);
        } else if (auto* bars = qobject_cast<QAbstractBarSeries*>(look.series)) {
            const QList<QBarSet*> sets = bars->barSets();
            for (qsizetype i = 0; i < sets.size() && i < static_cast<qsizetype>(look.sets.size()); ++i) {
                sets[i]->setPen(look.sets[static_cast<std::size_t>(i)].first);
                sets[i]->setBrush(look.sets[static_cast<std::size_t>(i)].second);
            }
        }
    }
}

} // namespace

ChartPalette::ChartPalette(QChartView* view) : QObject(view), m_view(view) {}

void ChartPalette::follow(QChartView* view) {
    auto* follower = new ChartPalette(view);
    view->installEventFilter(follower);
    apply(view->chart(), view->palette());
}

void ChartPalette::apply(QChart* chart, const QPalette& palette) {
    const QChart::ChartTheme theme = isDark(palette) ? QChart::ChartThemeDark : QChart::ChartThemeLight;
    if (chart->theme() != theme) {
        const std::vector<SeriesLook> looks = looksOf(chart);
        chart->setTheme(theme); // axes (labels, titles, grid), legend and new series in the theme's colours
        restore(looks);
    }
    const QColor text = palette.color(QPalette::Text);
    chart->setBackgroundBrush(palette.color(QPalette::Base));
    chart->setTitleBrush(text);
    chart->legend()->setLabelColor(text);
    // Value labels beside bars lie on the background: text. (Labels inside keep the bar's contrast.)
    for (QAbstractSeries* series : chart->series())
        if (auto* bars = qobject_cast<QAbstractBarSeries*>(series);
            bars && bars->labelsPosition() == QAbstractBarSeries::LabelsOutsideEnd)
            for (QBarSet* set : bars->barSets())
                set->setLabelColor(text);
}

bool ChartPalette::eventFilter(QObject* watched, QEvent* event) {
    // Polish: the views add their series after making the chart view, before it is first shown.
    if (watched == m_view && (event->type() == QEvent::PaletteChange || event->type() == QEvent::Polish))
        apply(m_view->chart(), m_view->palette());
    return QObject::eventFilter(watched, event);
}

} // namespace ts::gui
