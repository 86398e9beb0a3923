#pragma once

#include <QSplitter>

namespace ts::gui {

// A splitter that lays its widgets side by side when it is wide enough for them, and one above the other when
// it is not, so that a narrow dock scrolls down instead of sideways. "Wide enough" is kRoomFactor times the
// sum of the widgets' minimum widths: side by side the splitter is never narrower than that sum (a scroll
// area gives it at least its minimum), so a threshold above it is stable (no flipping back and forth).
class AdaptiveSplitter : public QSplitter {
    Q_OBJECT
public:
    explicit AdaptiveSplitter(QWidget* parent = nullptr);

    // The width from which the widgets sit side by side.
    int sideBySideWidth() const;

    static constexpr double kRoomFactor = 1.2;

protected:
    void resizeEvent(QResizeEvent* event) override;
};

} // namespace ts::gui
