#pragma once

#include <QTableWidget>
#include <utility>
#include <vector>

namespace ts::gui {

// The Hardware view's two-column table of device features (name, value). Every cell shows all of its text
// at any width: the feature column is as wide as its longest name but at most half the table, the value
// column takes the rest, both wrap, and rows grow to their wrapped text. It refits whenever its viewport
// changes width (the dock, the view's splitter, a vertical scroll bar coming or going), not only when the
// view resizes. The full text is also each cell's tool tip.
class FeatureTable : public QTableWidget {
    Q_OBJECT
public:
    explicit FeatureTable(QWidget* parent = nullptr);

    void setRows(const std::vector<std::pair<QString, QString>>& rows);

protected:
    void resizeEvent(QResizeEvent* event) override;
    bool viewportEvent(QEvent* event) override;

private:
    void fit();

    int m_fittedWidth = -1; // the viewport width the columns and rows were last fitted to
};

} // namespace ts::gui
