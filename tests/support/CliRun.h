#pragma once

#include <QProcess>
#include <QProcessEnvironment>
#include <QString>
#include <QStringList>

// Runs the built tunescope-cli (TUNESCOPE_CLI) to completion and keeps what it printed.
namespace ts::test {

struct CliResult {
    int exitCode = -1; // -1 when the process crashed or did not finish in time
    QString out;
    QString err;
};

inline CliResult runCli(const QStringList& arguments,
                        const QProcessEnvironment& environment = QProcessEnvironment::systemEnvironment(),
                        int timeoutMs = 180000) {
    QProcess process;
    process.setProcessEnvironment(environment);
    process.start(TUNESCOPE_CLI, arguments);
    process.waitForFinished(timeoutMs);
    return {process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1,
            QString::fromUtf8(process.readAllStandardOutput()),
            QString::fromUtf8(process.readAllStandardError())};
}

} // namespace ts::test
