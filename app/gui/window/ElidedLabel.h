#pragma once

#include <QLabel>

namespace ts::gui {

// A one-line label for text that may be longer than the room it gets (a file path): shows the text elided in
// the middle to its width, the whole text in its tool tip, and never asks its layout for more than a short
// minimum, so a long path cannot widen its dock.
class ElidedLabel : public QLabel {
    Q_OBJECT
public:
    explicit ElidedLabel(QWidget* parent = nullptr);

    void setFullText(const QString& text);
    const QString& fullText() const { return m_full; }

    QSize minimumSizeHint() const override;
    QSize sizeHint() const override;

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    void elide();

    QString m_full;
};

} // namespace ts::gui
