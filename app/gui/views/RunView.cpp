#include "views/RunView.h"

#include <QTimer>

namespace ts::gui {

RunView::RunView(RunData& data, QWidget* parent)
    : QWidget(parent), m_data(data), m_catchUp(new QTimer(this)) {
    m_catchUp->setSingleShot(true);
    connect(m_catchUp, &QTimer::timeout, this, [this] { refreshIfNeeded(); });
}

void RunView::refreshIfNeeded(bool force) {
    if (!force && (!m_dirty || !isVisible()))
        return;
    if (!force && m_minimumIntervalMs > 0 && m_lastRefresh.isValid()) {
        const qint64 wait = m_minimumIntervalMs - m_lastRefresh.elapsed();
        if (wait > 0) {
            if (!m_catchUp->isActive())
                m_catchUp->start(static_cast<int>(wait));
            return;
        }
    }
    m_catchUp->stop();
    m_lastRefresh.start();
    m_dirty = false;
    refresh();
}

void RunView::showEvent(QShowEvent* event) {
    QWidget::showEvent(event);
    refreshIfNeeded();
}

} // namespace ts::gui
