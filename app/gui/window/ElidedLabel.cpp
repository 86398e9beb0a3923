#include "window/ElidedLabel.h"

#include <QResizeEvent>
#include <algorithm>

namespace ts::gui {

ElidedLabel::ElidedLabel(QWidget* parent) : QLabel(parent) {
    setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
}

void ElidedLabel::setFullText(const QString& text) {
    m_full = text;
    setToolTip(text);
    updateGeometry();
    elide();
}

QSize ElidedLabel::minimumSizeHint() const {
    const QSize hint = QLabel::minimumSizeHint();
    return {12 * fontMetrics().averageCharWidth(), hint.height()}; // a few characters and the ellipsis
}

QSize ElidedLabel::sizeHint() const {
    const QSize hint = QLabel::sizeHint();
    return {fontMetrics().horizontalAdvance(m_full) + 2 * margin() + 2, hint.height()};
}

void ElidedLabel::resizeEvent(QResizeEvent* event) {
    QLabel::resizeEvent(event);
    elide();
}

void ElidedLabel::elide() {
    const int room = std::max(0, contentsRect().width() - 2 * margin());
    const QString shown = fontMetrics().elidedText(m_full, Qt::ElideMiddle, room);
    if (shown != text())
        setText(shown);
}

} // namespace ts::gui
