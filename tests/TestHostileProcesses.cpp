// Hostile processes: a kernel that loops forever (and one that forks a child that does too) while the tuning
// CLI is killed with SIGKILL, stopped with SIGTERM once, or twice. Whatever ends the CLI, no worker and
// nothing a worker started outlives it; one signal ends the session as cancelled (resumable) with every
// finished trial kept, and a second stops the process at once.
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <sqlite3.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <fstream>
#include <optional>
#include <poll.h>
#include <sstream>
#include <sys/syscall.h>
#include <thread>
#include <unistd.h>

namespace {

using Clock = std::chrono::steady_clock;
constexpr std::chrono::seconds kStartDeadline{180}; // compiling the config on a busy machine included
constexpr std::chrono::seconds kExitDeadline{20};   // for a process that must die now
const QString kFaulty = TUNESCOPE_TEST_DATA "/kernels/faulty/kernel.json";
const QString kSpawner = TUNESCOPE_TEST_DATA "/kernels/spawner/kernel.json";

// One line of /proc/PID/stat, split after the command name (which may hold spaces and parentheses).
struct ProcStat {
    char state = '?';
    pid_t parent = 0;
    double cpuSeconds = 0.0; // user + system
};

std::optional<ProcStat> procStat(pid_t pid) {
    std::ifstream file("/proc/" + std::to_string(pid) + "/stat");
    std::string line;
    if (!std::getline(file, line))
        return std::nullopt;
    const auto close = line.rfind(')');
    if (close == std::string::npos)
        return std::nullopt;
    std::istringstream fields(line.substr(close + 2));
    ProcStat stat;
    std::string skip;
    long long utime = 0;
    long long stime = 0;
    fields >> stat.state >> stat.parent;
    for (int field = 5; field <= 13; ++field) // pgrp .. cmajflt
        fields >> skip;
    fields >> utime >> stime;
    stat.cpuSeconds = static_cast<double>(utime + stime) / static_cast<double>(::sysconf(_SC_CLK_TCK));
    return stat;
}

std::string executableOf(pid_t pid) {
    std::error_code error;
    return std::filesystem::read_symlink("/proc/" + std::to_string(pid) + "/exe", error).filename().string();
}

// The live children of `parent`, optionally only those running `executable`.
std::vector<pid_t> childrenOf(pid_t parent, const std::string& executable = {}) {
    std::vector<pid_t> children;
    for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
        const std::string name = entry.path().filename().string();
        if (name.find_first_not_of("0123456789") != std::string::npos)
            continue;
        const pid_t pid = std::stoi(name);
        const std::optional<ProcStat> stat = procStat(pid);
        if (stat && stat->parent == parent && stat->state != 'Z' &&
            (executable.empty() || executableOf(pid) == executable))
            children.push_back(pid);
    }
    return children;
}

// A process watched through a pidfd: its exit is seen however it ends and whoever reaps it, and a recycled
// pid cannot fool the watch. One still alive at the end of the test (a failed check) is killed, so a failure
// leaves no process spinning.
class Watched {
public:
    explicit Watched(pid_t pid) : m_pid(pid), m_fd(static_cast<int>(::syscall(SYS_pidfd_open, pid, 0))) {}
    ~Watched() {
        if (m_fd < 0)
            return;
        ::syscall(SYS_pidfd_send_signal, m_fd, SIGKILL, nullptr, 0); // ESRCH when it has ended: fine
        ::close(m_fd);
    }
    Watched(const Watched&) = delete;
    Watched& operator=(const Watched&) = delete;
    bool valid() const { return m_fd >= 0; }
    pid_t pid() const { return m_pid; }
    // True once the process has ended (a zombie no one reaps has ended too).
    bool endsWithin(std::chrono::milliseconds timeout) const {
        pollfd fd{m_fd, POLLIN, 0};
        int ready;
        do {
            ready = ::poll(&fd, 1, static_cast<int>(timeout.count()));
        } while (ready < 0 && errno == EINTR);
        return ready == 1;
    }

private:
    pid_t m_pid;
    int m_fd;
};

// Polls `condition` every 20 ms until it holds or the deadline passes (or the CLI ended).
template <typename Condition>
bool waitFor(QProcess& cli, std::chrono::seconds deadline, Condition condition) {
    const auto end = Clock::now() + deadline;
    while (Clock::now() < end) {
        if (condition())
            return true;
        if (cli.state() == QProcess::NotRunning)
            return false;
        cli.waitForFinished(20);
    }
    return condition();
}

// The CLI's worker once it has spent a second of CPU time: far more than starting and computing the
// reference take, so it is inside the kernel's endless loop. 0 when that did not happen in time.
pid_t loopingWorker(QProcess& cli) {
    const auto cliPid = static_cast<pid_t>(cli.processId());
    pid_t worker = 0;
    waitFor(cli, kStartDeadline, [&] {
        const std::vector<pid_t> workers = childrenOf(cliPid, "tunescope-worker");
        worker = workers.empty() ? 0 : workers.front();
        const std::optional<ProcStat> stat = worker ? procStat(worker) : std::nullopt;
        return stat && stat->cpuSeconds >= 0.5; // past start-up: inside the kernel's loop
    });
    return worker;
}

QProcessEnvironment testEnvironment(const QTemporaryDir& dir) {
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert("TUNESCOPE_CACHE_DIR", dir.filePath("builds"));
    return environment;
}

// tune on the configs of the faulty kernel that loop forever, one per batch.
QStringList hangingTune(const QString& db, const QString& budget, const QString& timeout) {
    return {"tune",       "--kernel-spec", kFaulty,    "--constraint", "MODE == 'hang'",
            "--strategy", "random_sample", "--budget", budget,         "--batch-size",
            "1",          "--timeout",     timeout,    "--db",         db};
}

// One value of a query on a read-only connection of the test's own.
QString queryText(const QString& db, const char* sql) {
    sqlite3* handle = nullptr;
    if (sqlite3_open_v2(db.toUtf8().constData(), &handle, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK)
        qFatal("cannot open %s", qPrintable(db));
    sqlite3_stmt* statement = nullptr;
    if (sqlite3_prepare_v2(handle, sql, -1, &statement, nullptr) != SQLITE_OK)
        qFatal("cannot prepare %s: %s", sql, sqlite3_errmsg(handle));
    QString result;
    if (sqlite3_step(statement) == SQLITE_ROW)
        result = QString::fromUtf8(reinterpret_cast<const char*>(sqlite3_column_text(statement, 0)));
    sqlite3_finalize(statement);
    sqlite3_close(handle);
    return result;
}

} // namespace

class TestHostileProcesses : public QObject {
    Q_OBJECT

private slots:
    void sigkillOfTheCliKillsTheLoopingWorker();
    void sigkillOfTheCliKillsWhatTheKernelStarted();
    void signalEndsTheSessionAsCancelledAndResumable_data();
    void signalEndsTheSessionAsCancelledAndResumable();
    void secondSigtermStopsAtOnce();
};

void TestHostileProcesses::sigkillOfTheCliKillsTheLoopingWorker() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QProcess cli;
    cli.setProcessEnvironment(testEnvironment(dir));
    cli.start(TUNESCOPE_CLI, hangingTune(dir.filePath("records.db"), "1", "600"));
    QVERIFY(cli.waitForStarted());
    const pid_t worker = loopingWorker(cli);
    QVERIFY2(worker > 0, qPrintable("no worker looped: " + QString::fromUtf8(cli.readAllStandardError())));
    Watched watched(worker);
    QVERIFY(watched.valid());

    ::kill(static_cast<pid_t>(cli.processId()), SIGKILL);
    QVERIFY(cli.waitForFinished(30000));
    QCOMPARE(cli.exitStatus(), QProcess::CrashExit);
    QVERIFY2(watched.endsWithin(kExitDeadline), "the worker outlived the CLI killed with SIGKILL");
}

void TestHostileProcesses::sigkillOfTheCliKillsWhatTheKernelStarted() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QProcess cli;
    cli.setProcessEnvironment(testEnvironment(dir));
    cli.start(TUNESCOPE_CLI, {"tune", "--kernel-spec", kSpawner, "--strategy", "random_sample", "--budget",
                              "1", "--timeout", "600", "--db", dir.filePath("records.db")});
    QVERIFY(cli.waitForStarted());
    const pid_t worker = loopingWorker(cli);
    QVERIFY2(worker > 0, qPrintable("no worker looped: " + QString::fromUtf8(cli.readAllStandardError())));
    pid_t spawned = 0;
    QVERIFY2(waitFor(cli, kStartDeadline,
                     [&] {
                         const std::vector<pid_t> children = childrenOf(worker);
                         spawned = children.empty() ? 0 : children.front();
                         return spawned > 0;
                     }),
             "the kernel's child process never showed up");
    Watched watchedWorker(worker);
    Watched watchedChild(spawned);
    QVERIFY(watchedWorker.valid() && watchedChild.valid());

    ::kill(static_cast<pid_t>(cli.processId()), SIGKILL);
    QVERIFY(cli.waitForFinished(30000));
    QVERIFY2(watchedWorker.endsWithin(kExitDeadline), "the worker outlived the CLI killed with SIGKILL");
    QVERIFY2(watchedChild.endsWithin(kExitDeadline), "the process the kernel forked outlived the CLI");
}

void TestHostileProcesses::signalEndsTheSessionAsCancelledAndResumable_data() {
    QTest::addColumn<int>("signal");
    QTest::addColumn<QString>("name");
    QTest::newRow("SIGTERM") << SIGTERM << "SIGTERM";
    QTest::newRow("SIGINT") << SIGINT << "SIGINT";
}

// One SIGTERM (or Ctrl-C's SIGINT) while a config loops: that measurement times out (its --timeout), its
// trial is committed, and the session ends as cancelled with status 128 + the signal; `tune --resume`
// continues it to its budget.
void TestHostileProcesses::signalEndsTheSessionAsCancelledAndResumable() {
    QFETCH(int, signal);
    QFETCH(QString, name);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString db = dir.filePath("records.db");
    QProcess cli;
    cli.setProcessEnvironment(testEnvironment(dir));
    // The timeout leaves a looping worker time to show its CPU use even on a loaded machine.
    cli.start(TUNESCOPE_CLI, hangingTune(db, "2", "12"));
    QVERIFY(cli.waitForStarted());
    const pid_t worker = loopingWorker(cli);
    QVERIFY2(worker > 0, qPrintable("no worker looped: " + QString::fromUtf8(cli.readAllStandardError())));
    Watched watched(worker);
    QVERIFY(watched.valid());

    ::kill(static_cast<pid_t>(cli.processId()), signal);
    QVERIFY2(cli.waitForFinished(60000), "one signal did not end the CLI once its measurement timed out");
    const QString err = QString::fromUtf8(cli.readAllStandardError());
    QCOMPARE(cli.exitStatus(), QProcess::NormalExit);
    QVERIFY2(cli.exitCode() == 128 + signal, qPrintable(err));
    QVERIFY2(err.contains(name + ": stopping once the measurements in flight end"), qPrintable(err));
    const QString last = err.trimmed().section('\n', -1);
    QVERIFY2(last == QString("tunescope-cli: Session 1 was interrupted by %1 after 1 evaluations; "
                             "`tunescope-cli tune --resume 1 --db %2` continues it.")
                         .arg(name, db),
             qPrintable(last));
    QVERIFY2(watched.endsWithin(kExitDeadline), "the worker outlived the CLI stopped with one signal");
    QCOMPARE(queryText(db, "SELECT status FROM sessions WHERE id = 1"), QString("cancelled"));
    QCOMPARE(queryText(db, "SELECT status FROM trials WHERE session = 1"), QString("timeout"));

    QProcess resumed;
    resumed.setProcessEnvironment(testEnvironment(dir));
    resumed.start(TUNESCOPE_CLI, {"tune", "--resume", "1", "--db", db});
    QVERIFY(resumed.waitForFinished(180000));
    QVERIFY2(resumed.exitCode() == 0, resumed.readAllStandardError().constData());
    QCOMPARE(queryText(db, "SELECT status FROM sessions WHERE id = 1"), QString("completed"));
    QCOMPARE(queryText(db, "SELECT count(DISTINCT config_index) FROM trials WHERE session = 1"),
             QString("2"));
}

// The first SIGTERM waits for a measurement that would run for ten minutes; the second stops the CLI at
// once, and its worker with it. What was committed stays; the session is left as running, which resumes too.
void TestHostileProcesses::secondSigtermStopsAtOnce() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString db = dir.filePath("records.db");
    QProcess cli;
    cli.setProcessEnvironment(testEnvironment(dir));
    cli.setReadChannel(QProcess::StandardError);
    cli.start(TUNESCOPE_CLI, hangingTune(db, "1", "600"));
    QVERIFY(cli.waitForStarted());
    const pid_t worker = loopingWorker(cli);
    QVERIFY2(worker > 0, qPrintable("no worker looped: " + QString::fromUtf8(cli.readAllStandardError())));
    Watched watched(worker);
    QVERIFY(watched.valid());

    ::kill(static_cast<pid_t>(cli.processId()), SIGTERM);
    QByteArray err;
    QVERIFY2(waitFor(cli, kExitDeadline,
                     [&] {
                         err += cli.readAllStandardError();
                         return err.contains("SIGTERM: stopping once the measurements in flight end");
                     }),
             err.constData());
    QVERIFY2(cli.state() == QProcess::Running, "one SIGTERM did not wait for the measurement in flight");
    ::kill(static_cast<pid_t>(cli.processId()), SIGTERM);
    QVERIFY2(cli.waitForFinished(static_cast<int>(kExitDeadline.count()) * 1000),
             "a second SIGTERM did not stop the CLI");
    QCOMPARE(cli.exitStatus(), QProcess::CrashExit);
    QVERIFY2(watched.endsWithin(kExitDeadline), "the worker outlived the CLI stopped with two SIGTERMs");
    QCOMPARE(queryText(db, "SELECT status FROM sessions WHERE id = 1"), QString("running"));
}

QTEST_GUILESS_MAIN(TestHostileProcesses)
#include "TestHostileProcesses.moc"
