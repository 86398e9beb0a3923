#include "RunView.h"

namespace ts::gui {

void RunView::refreshIfNeeded(bool force) {
    if (!force && (!m_dirty || !isVisible()))
        return;
    if (!force && m_minimumIntervalMs > 0 && m_lastRefresh.isValid() &&
        m_lastRefresh.elapsed() < m_minimumIntervalMs)
        return;
    m_lastRefresh.start();
    m_dirty = false;
    refresh();
}

void RunView::showEvent(QShowEvent* event) {
    QWidget::showEvent(event);
    refreshIfNeeded();
}

} // namespace ts::gui
