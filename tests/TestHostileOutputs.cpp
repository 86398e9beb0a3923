// Outputs the user names, attacked: every output option (export -o, compare --json/--trace, score --json)
// refuses a symbolic link, FIFO, device or directory and leaves it as it was; a full device or file system
// fails with one sentence and leaves no file behind and an earlier file intact; stdout into a full device
// fails every command with one sentence. The generated C++ header turns hostile names (trigraphs, comment
// markers, newlines, quotes, backslashes, NUL, bytes that are not UTF-8) into data that compiles under every
// preprocessor mode and looks up to the right values, and refuses namespaces that are keywords or reserved.
#include "CliRun.h"
#include "deploy/DeploymentHeader.h"
#include "store/RecordStore.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

#include <fstream>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

using namespace ts;

namespace {

using Result = ts::test::CliResult;

const QString kPnpoly = TUNESCOPE_TEST_DATA "/kt_pnpoly.json";

// Runs the CLI with stdout going to `stdoutFile` (a path such as /dev/full).
Result cliWithStdout(const QStringList& arguments, const QString& stdoutFile) {
    QProcess process;
    process.setStandardOutputFile(stdoutFile);
    process.start(TUNESCOPE_CLI, arguments);
    process.waitForFinished(180000);
    return {process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1, QString(),
            QString::fromUtf8(process.readAllStandardError())};
}

// Exit status 1 and exactly one line on stderr (warnings and progress lines aside) holding every one of
// `parts`.
void expectOneSentence(const Result& r, const QStringList& parts) {
    QCOMPARE(r.exitCode, 1);
    QStringList lines = r.err.trimmed().split('\n');
    lines.removeIf([](const QString& line) { return line.startsWith("warning:") || line.startsWith("["); });
    QVERIFY2(lines.size() == 1, qPrintable(r.err));
    QVERIFY2(lines[0].startsWith("tunescope-cli: "), qPrintable(lines[0]));
    for (const QString& part : parts)
        QVERIFY2(lines[0].contains(part), qPrintable(lines[0] + " lacks " + part));
}

QByteArray readAll(const QString& path) {
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray("<unreadable>");
}

void writeText(const QString& path, const QByteArray& bytes) {
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
    QCOMPARE(file.write(bytes), bytes.size());
}

// Every entry of a folder, hidden ones included: what an output may have left behind.
QStringList entries(const QString& folder) {
    return QDir(folder).entryList(QDir::AllEntries | QDir::Hidden | QDir::System | QDir::NoDotAndDotDot,
                                  QDir::Name);
}

// The number of sessions in a records database, -1 when it is no longer one.
long sessionCount(const QString& db) {
    try {
        return static_cast<long>(RecordStore(db.toStdString()).sessions().size());
    } catch (const std::exception&) {
        return -1;
    }
}

mode_t kindOf(const QString& path) {
    struct stat info {};
    return ::lstat(QFile::encodeName(path).constData(), &info) == 0 ? (info.st_mode & S_IFMT) : 0;
}

QString hex(const std::string& text) {
    return QString::fromLatin1(QByteArray(text.data(), static_cast<qsizetype>(text.size())).toHex());
}

// The places an output is named, with TARGET standing for it.
QList<QStringList> outputOptions(const QString& db, const QString& trace) {
    return {
        {"export", "--db", db, "--format", "csv", "-o", "TARGET"},
        {"export", "--db", db, "--format", "header", "-o", "TARGET"},
        {"compare", "--dataset", kPnpoly, "--budgets", "5", "--repeats", "1", "--json", "TARGET"},
        {"compare", "--dataset", kPnpoly, "--budgets", "5", "--repeats", "1", "--trace", "TARGET"},
        {"score", "--dataset", kPnpoly, "--trace", trace, "--budgets", "5", "--json", "TARGET"},
    };
}

QStringList withTarget(QStringList arguments, const QString& target) {
    arguments.replaceInStrings(QRegularExpression("^TARGET$"), target);
    return arguments;
}

// Unmounts the file system mounted on `path` when the test ends, however it ends.
struct Mount {
    QString path;
    bool mounted = false;
    ~Mount() {
        if (mounted)
            QProcess::execute("umount", {path});
    }
};

// A Kernel Tuner cache whose names and string values hold what preprocessors and comments react to.
nlohmann::json hostileDataset(const std::string& kernel, const std::string& device, const std::string& a,
                              const std::string& b, const std::vector<std::string>& bValues) {
    nlohmann::json cache = nlohmann::json::object();
    double time = 4.0;
    for (int aValue : {1, 2})
        for (const std::string& bValue : bValues) {
            nlohmann::json line{{a, aValue}, {b, bValue}, {"time", time}, {"times", {time, time}}};
            cache[std::to_string(aValue) + "," + bValue] = line;
            time -= 1.0; // the last config is the fastest
        }
    return {{"device_name", device},
            {"kernel_name", kernel},
            {"problem_size", 1000},
            {"tune_params_keys", {a, b}},
            {"tune_params", {{a, {1, 2}}, {b, bValues}}},
            {"objective", "time"},
            {"cache", cache}};
}

// A program that looks a hex-encoded kernel and device up in tuned.h (namespace outer::inner) and prints
// the rule, the number of values and, hex-encoded, the text of each hex-named parameter.
constexpr const char* kLookupProgram = R"(#include "tuned.h"
#include <cstdio>
#include <string>
static std::string unhex(const char* text) {
    std::string out;
    for (; text[0] != 0 && text[1] != 0; text += 2)
        out += static_cast<char>(std::stoi(std::string(text, 2), nullptr, 16));
    return out;
}
int main(int argc, char** argv) {
    if (argc < 4)
        return 2;
    const std::string kernel = unhex(argv[1]);
    const std::string device = unhex(argv[2]);
    const std::int64_t shape[] = {std::stoll(argv[3])};
    const outer::inner::Answer answer = outer::inner::lookup(kernel, shape, 1, device);
    std::printf("%s %zu", std::string(outer::inner::ruleName(answer.rule)).c_str(), answer.count);
    for (int i = 4; i < argc; ++i) {
        const outer::inner::Param* param = answer.find(unhex(argv[i]));
        std::printf(" ");
        if (param == nullptr)
            std::printf("missing");
        else
            for (const char c : param->text)
                std::printf("%02x", static_cast<unsigned char>(c));
    }
    std::printf("\n");
}
)";

QStringList compilerModes() {
    return {"-std=c++17", "-std=c++17 -trigraphs", "-std=gnu++17 -trigraphs", "-std=c++20 -trigraphs"};
}

// Compiles kLookupProgram against `header` in every compiler mode (warnings are errors, trigraph warnings
// included) and checks what it prints for `arguments`.
void compileAndLookUp(const QString& folder, const QString& header, const QStringList& arguments,
                      const QString& expected) {
    const QString compiler = QStandardPaths::findExecutable("g++");
    if (compiler.isEmpty())
        QSKIP("g++ is not on PATH");
    QCOMPARE(QFileInfo(header).fileName(), QString("tuned.h"));
    const QString source = folder + "/lookup.cpp";
    writeText(source, kLookupProgram);
    for (const QString& mode : compilerModes()) {
        const QString binary = folder + "/lookup";
        QFile::remove(binary);
        QProcess build;
        build.start(compiler, mode.split(' ') + QStringList{"-Wall", "-Wextra", "-Werror", "-I", folder,
                                                            source, "-o", binary});
        QVERIFY(build.waitForFinished(180000));
        QVERIFY2(build.exitCode() == 0, qPrintable(mode + ": " + build.readAllStandardError()));
        QProcess run;
        run.start(binary, arguments);
        QVERIFY(run.waitForFinished(30000));
        QCOMPARE(QString::fromLatin1(run.readAllStandardOutput()), expected);
    }
}

} // namespace

class TestHostileOutputs : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void outputsRefuseWhatIsNotARegularFile_data();
    void outputsRefuseWhatIsNotARegularFile();
    void aDirectoryIsNamedAsOne();
    void anOutputNeverReplacesItsInput_data();
    void anOutputNeverReplacesItsInput();
    void aRegularFileIsReplacedKeepingItsPermissions();
    void aReadOnlyFileIsNotReplaced();
    void aFullFileSystemLeavesNoFileAndTheEarlierOneIntact_data();
    void aFullFileSystemLeavesNoFileAndTheEarlierOneIntact();
    void standardOutputIntoAFullDeviceFails_data();
    void standardOutputIntoAFullDeviceFails();
    void tuneIntoAFullStandardOutputKeepsTheSession();
    void headerOfHostileRecordsCompilesAndLooksUp();
    void headerOfNulAndNonUtf8NamesCompilesAndLooksUp();
    void headerNamespaceMustBeAUsableName_data();
    void headerNamespaceMustBeAUsableName();

private:
    QTemporaryDir m_dir;
    QString m_db;
    QString m_trace;
    QString m_dataset;
};

void TestHostileOutputs::initTestCase() {
    QVERIFY(m_dir.isValid());
    m_db = m_dir.filePath("records.db");
    const Result tune = ts::test::runCli(
        {"tune", "--db", m_db, "--dataset", kPnpoly, "--strategy", "brute_force", "--budget", "24"});
    QVERIFY2(tune.exitCode == 0, qPrintable(tune.err));
    // A copy to attack: a broken build must not overwrite the repository's test data.
    m_dataset = m_dir.filePath("kt_pnpoly.json");
    QVERIFY(QFile::copy(kPnpoly, m_dataset));
    m_trace = m_dir.filePath("trace.jsonl");
    const Result compare = ts::test::runCli(
        {"compare", "--dataset", kPnpoly, "--budgets", "5", "--repeats", "2", "--trace", m_trace});
    QVERIFY2(compare.exitCode == 0, qPrintable(compare.err));
    QVERIFY(QFileInfo(m_trace).size() > 0);
}

void TestHostileOutputs::outputsRefuseWhatIsNotARegularFile_data() {
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<QString>("kind");
    const QStringList kinds{"symbolic link", "FIFO", "character device"};
    for (const QStringList& arguments : outputOptions(m_db, m_trace))
        for (const QString& kind : kinds)
            QTest::addRow("%s %s into a %s", qPrintable(arguments[0]),
                          qPrintable(arguments[arguments.size() - 2]), qPrintable(kind))
                << arguments << kind;
}

void TestHostileOutputs::outputsRefuseWhatIsNotARegularFile() {
    QFETCH(QStringList, arguments);
    QFETCH(QString, kind);
    QTemporaryDir dir;
    const QString real = dir.filePath("real.txt");
    writeText(real, "earlier\n");
    QString target = dir.filePath("target");
    mode_t expected = 0;
    if (kind == "symbolic link") {
        QVERIFY(QFile::link(real, target));
        expected = S_IFLNK;
    } else if (kind == "FIFO") {
        QCOMPARE(::mkfifo(QFile::encodeName(target).constData(), 0600), 0);
        expected = S_IFIFO;
    } else if (geteuid() == 0) {
        // As root, a node of our own (the kind of /dev/full): a broken build replaces only that.
        QCOMPARE(::mknod(QFile::encodeName(target).constData(), S_IFCHR | 0600, makedev(1, 7)), 0);
        expected = S_IFCHR;
    } else {
        target = "/dev/full"; // not root: no build can replace it
        expected = S_IFCHR;
    }
    const QStringList before = entries(dir.path());
    const Result r = ts::test::runCli(withTarget(arguments, target));
    expectOneSentence(r, {target, kind, "not a regular file"});
    QCOMPARE(kindOf(target), expected);
    QCOMPARE(readAll(real), QByteArray("earlier\n"));
    QCOMPARE(entries(dir.path()), before);
}

void TestHostileOutputs::aDirectoryIsNamedAsOne() {
    for (const QStringList& arguments : outputOptions(m_db, m_trace)) {
        QTemporaryDir dir;
        const QString folder = dir.filePath("folder");
        QVERIFY(QDir().mkdir(folder));
        writeText(folder + "/inside.txt", "kept\n");
        for (const QString& target : {folder, folder + "/", folder + "/."}) {
            const Result r = ts::test::runCli(withTarget(arguments, target));
            QVERIFY2(!r.err.contains("Success"), qPrintable(r.err));
            expectOneSentence(r, {target, "directory"});
            QCOMPARE(entries(folder), QStringList{"inside.txt"});
            QCOMPARE(entries(dir.path()), QStringList{"folder"});
        }
    }
}

void TestHostileOutputs::anOutputNeverReplacesItsInput_data() {
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<QString>("input");
    QTest::newRow("export over its database")
        << QStringList{"export", "--db", m_db, "--format", "csv", "-o", "INPUT"} << m_db;
    QTest::newRow("compare over its dataset")
        << QStringList{"compare", "--dataset", "INPUT", "--budgets", "5", "--repeats", "1", "--json", "INPUT"}
        << m_dataset;
    QTest::newRow("score over its trace")
        << QStringList{"score", "--dataset", kPnpoly, "--trace", "INPUT", "--budgets", "5", "--json", "INPUT"}
        << m_trace;
}

void TestHostileOutputs::anOutputNeverReplacesItsInput() {
    QFETCH(QStringList, arguments);
    QFETCH(QString, input);
    const QByteArray before = readAll(input);
    const Result r = ts::test::runCli(arguments.replaceInStrings(QRegularExpression("^INPUT$"), input));
    expectOneSentence(r, {input, "is the input file"});
    QCOMPARE(readAll(input), before);
    QCOMPARE(sessionCount(m_db), 1L);
}

void TestHostileOutputs::aRegularFileIsReplacedKeepingItsPermissions() {
    QTemporaryDir dir;
    const QString target = dir.filePath("trials.csv");
    writeText(target, "earlier\n");
    QCOMPARE(::chmod(QFile::encodeName(target).constData(), 0640), 0);
    const QStringList arguments{"export", "--db", m_db, "--format", "csv", "-o"};
    const Result r = ts::test::runCli(arguments + QStringList{target});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    const Result expected = ts::test::runCli(arguments + QStringList{"-"});
    QVERIFY(expected.out.size() > 100);
    QCOMPARE(QString::fromUtf8(readAll(target)), expected.out);
    struct stat info {};
    QCOMPARE(::stat(QFile::encodeName(target).constData(), &info), 0);
    QCOMPARE(info.st_mode & 07777, mode_t{0640});
    QCOMPARE(entries(dir.path()), QStringList{"trials.csv"});
}

void TestHostileOutputs::aReadOnlyFileIsNotReplaced() {
    // Root may write anything: run the CLI as nobody then, in a folder anyone may write to.
    QString program = TUNESCOPE_CLI;
    QStringList prefix;
    if (geteuid() == 0) {
        program = QStandardPaths::findExecutable("setpriv");
        if (program.isEmpty())
            QSKIP("running as root without setpriv (util-linux) to drop the privileges");
        prefix = {"--reuid", "65534", "--regid", "65534", "--clear-groups", TUNESCOPE_CLI};
    }
    QTemporaryDir dir;
    QCOMPARE(::chmod(QFile::encodeName(dir.path()).constData(), 0777), 0);
    const QString target = dir.filePath("scores.json");
    writeText(target, "earlier\n");
    QCOMPARE(::chmod(QFile::encodeName(target).constData(), 0444), 0);
    QProcess process;
    process.start(program, prefix + QStringList{"compare", "--dataset", kPnpoly, "--budgets", "5",
                                                "--repeats", "1", "--json", target});
    QVERIFY(process.waitForFinished(180000));
    const Result r{process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1, QString(),
                   QString::fromUtf8(process.readAllStandardError())};
    expectOneSentence(r, {target, "Permission denied"});
    QCOMPARE(readAll(target), QByteArray("earlier\n"));
    QCOMPARE(entries(dir.path()), QStringList{"scores.json"});
}

void TestHostileOutputs::aFullFileSystemLeavesNoFileAndTheEarlierOneIntact_data() {
    QTest::addColumn<QStringList>("arguments");
    for (const QStringList& arguments : outputOptions(m_db, m_trace))
        QTest::addRow("%s %s", qPrintable(arguments[0]), qPrintable(arguments[arguments.size() - 2]))
            << arguments;
}

void TestHostileOutputs::aFullFileSystemLeavesNoFileAndTheEarlierOneIntact() {
    QFETCH(QStringList, arguments);
    if (geteuid() != 0)
        QSKIP("mounting a small file system needs root");
    QTemporaryDir dir;
    Mount mount{dir.filePath("full")};
    QVERIFY(QDir().mkdir(mount.path));
    QProcess mounting;
    mounting.start("mount", {"-t", "tmpfs", "-o", "size=64k", "tmpfs", mount.path});
    if (!mounting.waitForFinished(30000) || mounting.exitStatus() != QProcess::NormalExit ||
        mounting.exitCode() != 0)
        QSKIP(qPrintable("mount -t tmpfs failed: " + QString::fromUtf8(mounting.readAllStandardError())));
    mount.mounted = true;
    const QString earlier = mount.path + "/earlier.out";
    writeText(earlier, "earlier\n");
    {
        // Fill every block that is left.
        std::ofstream filler((mount.path + "/filler").toStdString(), std::ios::binary);
        const std::string block(4096, 'x');
        for (int i = 0; i < 64 && filler.write(block.data(), block.size()) && filler.flush(); ++i) {
        }
    }
    const QStringList before = entries(mount.path);
    for (const QString& target : {earlier, mount.path + "/new.out"}) {
        const Result r = ts::test::runCli(withTarget(arguments, target));
        expectOneSentence(r, {target, "No space left on device"});
        QCOMPARE(entries(mount.path), before);
        QCOMPARE(readAll(earlier), QByteArray("earlier\n"));
    }
}

void TestHostileOutputs::standardOutputIntoAFullDeviceFails_data() {
    QTest::addColumn<QStringList>("arguments");
    QTest::newRow("info") << QStringList{"info", kPnpoly};
    QTest::newRow("info --json") << QStringList{"info", kPnpoly, "--json"};
    QTest::newRow("strategies") << QStringList{"strategies"};
    QTest::newRow("records list") << QStringList{"records", "--db", m_db, "list"};
    QTest::newRow("export -o - (small)")
        << QStringList{"export", "--db", m_db, "--format", "deploy", "-o", "-"};
    QTest::newRow("export -o - (large)")
        << QStringList{"export", "--db", m_db, "--format", "jsonl", "-o", "-"};
    QTest::newRow("compare") << QStringList{"compare", "--dataset", kPnpoly, "--budgets",
                                            "5",       "--repeats", "1"};
    QTest::newRow("compare --json -")
        << QStringList{"compare", "--dataset", kPnpoly, "--budgets", "5", "--repeats", "1", "--json", "-"};
    QTest::newRow("compare --trace -")
        << QStringList{"compare", "--dataset", kPnpoly, "--budgets", "5", "--repeats", "1", "--trace", "-"};
    QTest::newRow("score --json -") << QStringList{"score",     "--dataset", kPnpoly,  "--trace", m_trace,
                                                   "--budgets", "5",         "--json", "-"};
    QTest::newRow("help") << QStringList{"--help"};
}

void TestHostileOutputs::standardOutputIntoAFullDeviceFails() {
    QFETCH(QStringList, arguments);
    // The same command succeeds into a file: the failure below is the full device's.
    QTemporaryDir dir;
    const Result fine = cliWithStdout(arguments, dir.filePath("out"));
    QVERIFY2(fine.exitCode == 0, qPrintable(fine.err));
    QVERIFY(QFileInfo(dir.filePath("out")).size() > 0);
    const Result r = cliWithStdout(arguments, "/dev/full");
    expectOneSentence(r, {"Cannot write to standard output: No space left on device."});
}

void TestHostileOutputs::tuneIntoAFullStandardOutputKeepsTheSession() {
    QTemporaryDir dir;
    const QString db = dir.filePath("records.db");
    for (const QString& json : {QString(), QString("--json")}) {
        QStringList arguments{"tune", "--db", db, "--dataset", kPnpoly, "--budget", "10"};
        if (!json.isEmpty())
            arguments << json;
        const Result r = cliWithStdout(arguments, "/dev/full");
        expectOneSentence(r, {"Cannot write to standard output: No space left on device."});
    }
    // What was measured before the result could not be printed is recorded.
    QCOMPARE(sessionCount(db), 2L);
    RecordStore store(db.toStdString());
    const std::vector<SessionRecord> sessions = store.sessions();
    for (const SessionRecord& session : sessions)
        QCOMPARE(store.trials(session.id).size(), std::size_t{10});
}

void TestHostileOutputs::headerOfHostileRecordsCompilesAndLooksUp() {
    QTemporaryDir dir;
    const std::string kernel = "k\?\?=\?\?/\n*/ /* // \\\"q\"\?\?' \\u00e9 \xc3\xa9 \?\?/";
    const std::string device = "dev \?\?/\n#define lookup 1\n*/\?\?) \\";
    const std::string a = "a\?\?/";
    const std::string b = "b*/ /*\\";
    const std::vector<std::string> bValues{"x\?\?!", "y\"\\\n\\u0041\?\?-"};
    const QString dataset = dir.filePath("hostile.json");
    std::ofstream(dataset.toStdString()) << hostileDataset(kernel, device, a, b, bValues).dump();
    const QString db = dir.filePath("records.db");
    const Result tune = ts::test::runCli(
        {"tune", "--db", db, "--dataset", dataset, "--strategy", "brute_force", "--budget", "4"});
    QVERIFY2(tune.exitCode == 0, qPrintable(tune.err));
    const QString header = dir.filePath("tuned.h");
    const Result r = ts::test::runCli(
        {"export", "--db", db, "--format", "header", "--namespace", "outer::inner", "-o", header});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    const QByteArray text = readAll(header);
    QVERIFY2(!text.contains("\?\?"), "a trigraph can form in the header");
    for (const char c : text)
        QVERIFY2(c == '\n' || (c >= 0x20 && c < 0x7f), "the header is not plain printable ASCII");
    compileAndLookUp(dir.path(), header, {hex(kernel), hex(device), "1000", hex(a), hex(b), hex("none")},
                     QString("exact 2 %1 %2 missing\n").arg(hex("2"), hex(bValues[1])));
}

void TestHostileOutputs::headerOfNulAndNonUtf8NamesCompilesAndLooksUp() {
    QTemporaryDir dir;
    const std::string kernel("k\0\?\?/\n\xff\xfe", 8);
    const std::string device("d\0", 2);
    const std::string parameter("p\0q\?\?=", 6);
    const std::string value("\0\x01\x7f\x80"
                            "7",
                            5); // a digit after an escape stays a digit
    nlohmann::ordered_json config;
    config[parameter] = value;
    nlohmann::ordered_json other;
    other[parameter] = "other";
    const nlohmann::ordered_json deployment{{"entries",
                                             {{{"kernel", kernel},
                                               {"device", device},
                                               {"architecture", ""},
                                               {"problem_size", {1000}},
                                               {"config", config},
                                               {"time_ms", 1.0}},
                                              {{"kernel", std::string("k")},
                                               {"device", device},
                                               {"architecture", ""},
                                               {"problem_size", {1000}},
                                               {"config", other},
                                               {"time_ms", 0.5}}}},
                                            {"defaults", nlohmann::ordered_json::object()}};
    const QString header = dir.filePath("tuned.h");
    std::string text;
    try {
        text = DeploymentHeader::generate(deployment, "outer::inner");
    } catch (const std::exception& e) {
        QFAIL(e.what());
    }
    std::ofstream(header.toStdString(), std::ios::binary) << text;
    compileAndLookUp(dir.path(), header, {hex(kernel), hex(device), "1000", hex(parameter)},
                     QString("exact 1 %1\n").arg(hex(value)));
    // Where a name of the namespace is a macro, the header says so instead of failing somewhere inside.
    QProcess build;
    build.start("g++", {"-std=c++17", "-Dinner=1", "-fsyntax-only", header});
    QVERIFY(build.waitForFinished(180000));
    QVERIFY(build.exitCode() != 0);
    QVERIFY2(
        build.readAllStandardError().contains("inner, a name of this header's namespace, is a macro here"),
        "no #error names the macro");
}

void TestHostileOutputs::headerNamespaceMustBeAUsableName_data() {
    QTest::addColumn<QString>("space");
    QTest::addColumn<QString>("problem");
    for (const char* keyword :
         {"and", "bitor", "xor_eq", "not", "compl", "class", "co_await", "concept", "requires", "char8_t",
          "consteval", "constinit", "export", "import", "module", "typeof", "defined", "a::int"})
        QTest::newRow(keyword) << keyword << "keyword";
    for (const char* reserved : {"__x", "a__b", "_Upper", "_lower", "a::_Upper", "a::b__"})
        QTest::newRow(reserved) << reserved << "reserved";
    for (const char* taken : {"std", "std2", "posix", "main", "a::std"})
        QTest::newRow(taken) << taken << "taken";
    for (const char* macro : {"linux", "unix", "errno", "assert", "stdout", "a::linux"})
        QTest::newRow(macro) << macro << "macro";
    for (const char* malformed : {"", "9lives", "a-b", "a b", "a\nb", "a::", "::a", "a:::b", "a::::b", "a:b",
                                  "caf\xc3\xa9", "a\?\?=b", "a/*b*/", "a\\u0041"})
        QTest::newRow(qPrintable(QString::fromUtf8(malformed).toUtf8().toPercentEncoding()))
            << QString::fromUtf8(malformed) << "not a name";
}

void TestHostileOutputs::headerNamespaceMustBeAUsableName() {
    QFETCH(QString, space);
    QFETCH(QString, problem);
    QTemporaryDir dir;
    const QString header = dir.filePath("tuned.h");
    const Result r =
        ts::test::runCli({"export", "--db", m_db, "--format", "header", "--namespace", space, "-o", header});
    // Refused before any work: no warning about the records either.
    QVERIFY2(!r.err.trimmed().contains('\n'), qPrintable(r.err));
    expectOneSentence(r, {"C++ namespace", problem});
    QCOMPARE(entries(dir.path()), QStringList{});
}

QTEST_APPLESS_MAIN(TestHostileOutputs)
#include "TestHostileOutputs.moc"
