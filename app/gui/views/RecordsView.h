#pragma once

#include "store/SessionRecord.h"

#include <QWidget>
#include <vector>

class QLabel;
class QPushButton;
class QTableWidget;

namespace ts::gui {

class ElidedLabel;
class ErrorReporter;

// The sessions of the records database: list (newest first), open one into every view, resume an
// interrupted one (status running or cancelled), export. Reads the database on the UI thread (a session
// list is one small query).
class RecordsView : public QWidget {
    Q_OBJECT
public:
    RecordsView(ErrorReporter& errors, QWidget* parent = nullptr);

    void setDatabasePath(const QString& path);
    QString databasePath() const { return m_path; }
    // Re-reads the session list; a database that cannot be opened is reported.
    void reload();
    const std::vector<SessionRecord>& sessions() const { return m_sessions; }
    QTableWidget* table() const { return m_table; }
    // Selects the row of a session id; false when it is not listed.
    bool selectSession(std::int64_t id);
    // The export formats offered by Export..., in the order of exportSession's `format`.
    static QStringList exportFormats();
    // Writes a session in one of exportFormats() to `path` (atomically: a failed export leaves no file and
    // an existing one intact). On success emits exported with a sentence naming the session, format, file and
    // size, and shows that sentence under the table; a failure is reported through the ErrorReporter.
    bool exportSession(std::int64_t id, const QString& path, int format);
    // The last export's confirmation ("" before any).
    QString notice() const;

signals:
    void openRequested(qint64 sessionId);
    void resumeRequested(qint64 sessionId);
    void exported(const QString& message);

private:
    static constexpr int kMaxColumnWidth = 320;

    void fitColumns();
    std::optional<std::int64_t> selectedSession() const;
    void exportSelected();
    void updateButtons();

    ErrorReporter& m_errors;
    QString m_path;
    std::vector<SessionRecord> m_sessions;
    ElidedLabel* m_pathLabel;
    QLabel* m_notice;
    QTableWidget* m_table;
    QPushButton* m_open;
    QPushButton* m_resume;
    QPushButton* m_export;
};

} // namespace ts::gui
