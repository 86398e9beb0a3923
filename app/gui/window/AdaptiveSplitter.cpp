#include "window/AdaptiveSplitter.h"

#include <QResizeEvent>
#include <algorithm>
#include <cmath>

namespace ts::gui {

AdaptiveSplitter::AdaptiveSplitter(QWidget* parent) : QSplitter(Qt::Horizontal, parent) {
    setChildrenCollapsible(false);
}

int AdaptiveSplitter::sideBySideWidth() const {
    int sum = 0;
    for (int i = 0; i < count(); ++i) {
        const QWidget* child = widget(i);
        if (child->isHidden())
            continue;
        sum += std::max(child->minimumWidth(), child->minimumSizeHint().width()) + handleWidth();
    }
    return static_cast<int>(std::ceil(kRoomFactor * sum));
}

void AdaptiveSplitter::resizeEvent(QResizeEvent* event) {
    QSplitter::resizeEvent(event);
    const Qt::Orientation wanted = width() >= sideBySideWidth() ? Qt::Horizontal : Qt::Vertical;
    if (orientation() != wanted)
        setOrientation(wanted);
}

} // namespace ts::gui
