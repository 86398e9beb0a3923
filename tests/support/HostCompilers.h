#pragma once

#include <QProcess>
#include <QStandardPaths>
#include <QString>
#include <QStringList>

// The host compilers a generated header is compiled with, and running such a program to its end.
namespace ts::test {

// Runs a process to its end; returns its exit code (-1 when it crashed or did not finish).
inline int runProcess(QProcess& process, const QString& program, const QStringList& arguments) {
    process.start(program, arguments);
    if (!process.waitForFinished(180000) || process.exitStatus() != QProcess::NormalExit)
        return -1;
    return process.exitCode();
}

// g++ and clang++, those of them found on the PATH.
inline QStringList compilers() {
    QStringList found;
    for (const char* name : {"g++", "clang++"}) {
        const QString path = QStandardPaths::findExecutable(name);
        if (!path.isEmpty())
            found << path;
    }
    return found;
}

} // namespace ts::test
