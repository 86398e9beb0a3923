// docs/architecture.md names every core module: a module added under core/ without its line on that page
// fails here, so the page stays the map a new reader can trust.
#include <QDir>
#include <QFile>
#include <QRegularExpression>
#include <QSet>
#include <QtTest>

class TestArchitecture : public QObject {
    Q_OBJECT
private:
    static QString page() {
        QFile file(QStringLiteral(TUNESCOPE_SOURCE_DIR "/docs/architecture.md"));
        if (!file.open(QIODevice::ReadOnly))
            return {};
        return QString::fromUtf8(file.readAll());
    }

    // The modules of the table's first column: rows that start with "| `name` |".
    static QSet<QString> tabledModules(const QString& text) {
        QSet<QString> names;
        static const QRegularExpression row(QStringLiteral("^\\| `([a-z_]+)` \\|"),
                                            QRegularExpression::MultilineOption);
        for (auto it = row.globalMatch(text); it.hasNext();)
            names.insert(it.next().captured(1));
        return names;
    }

    static QStringList coreModules() {
        return QDir(QStringLiteral(TUNESCOPE_SOURCE_DIR "/core"))
            .entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name);
    }

private slots:
    void everyCoreModuleIsNamed() {
        const QString text = page();
        QVERIFY2(!text.isEmpty(), "docs/architecture.md is missing or empty");
        const QSet<QString> named = tabledModules(text);
        const QStringList modules = coreModules();
        QVERIFY2(modules.size() >= 10, "core/ was not found beside the tests");
        QStringList missing;
        for (const QString& module : modules)
            if (!named.contains(module))
                missing << module;
        QVERIFY2(missing.isEmpty(), qPrintable(QStringLiteral("docs/architecture.md does not name the core "
                                                              "module(s) %1: add a row to its module table.")
                                                   .arg(missing.join(QStringLiteral(", ")))));
    }

    void everyNamedModuleExists() {
        const QSet<QString> named = tabledModules(page());
        const QStringList modules = coreModules();
        QStringList stale;
        for (const QString& name : named)
            if (!modules.contains(name))
                stale << name;
        stale.sort();
        QVERIFY2(stale.isEmpty(), qPrintable(QStringLiteral("docs/architecture.md names %1, which core/ no "
                                                            "longer has.")
                                                 .arg(stale.join(QStringLiteral(", ")))));
    }
};

QTEST_GUILESS_MAIN(TestArchitecture)
#include "TestArchitecture.moc"
