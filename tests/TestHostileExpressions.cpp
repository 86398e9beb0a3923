// Hostile expressions and spec files: generated inputs nested tens of thousands deep, flat chains of
// 20,000 terms, divisions by zero. Each must end in one sentence naming the input and the limit (or just
// work), never in a stack overflow, through every path that reads them: the parser, the search space, the
// T1 reader, the kernel catalog (which the GUI loads too) and the CLI.
#include "ErrorOf.h"
#include "kernels/KernelCatalog.h"
#include "kernels/KernelSpecReader.h"
#include "space/ConstraintProgram.h"
#include "space/Expression.h"
#include "space/ExpressionNode.h"
#include "space/ExpressionParser.h"
#include "space/SearchSpace.h"
#include "space/T1Reader.h"
#include "util/BoundedJson.h"
#include "util/Error.h"

// After the core headers: Qt defines `slots`, a parameter name there.
#include "CliRun.h"

#include <QFile>
#include <QProcessEnvironment>
#include <QTemporaryDir>
#include <QTest>

#include <filesystem>
#include <fstream>
#include <functional>

using namespace ts;

namespace {

namespace fs = std::filesystem;

constexpr int kDeep = 50'000;
constexpr int kFlat = 20'000;
const std::string kLimitPhrase =
    "it nests more than " + std::to_string(ExpressionParser::kMaxNesting) + " levels deep at column ";

using ts::test::errorOf;

std::string repeat(const std::string& piece, int times) {
    std::string out;
    out.reserve(piece.size() * static_cast<std::size_t>(times));
    for (int i = 0; i < times; ++i) {
        out += piece;
    }
    return out;
}

// One generator per recursive production of the grammar: depth -> text.
using Generator = std::function<std::string(int)>;

struct Shape {
    const char* name;
    Generator make;
    int levels; // nesting levels per repetition; 0: never valid text
};

const std::vector<Shape>& shapes() {
    static const std::vector<Shape> all{
        {"unary minus", [](int n) { return repeat("-", n) + "a"; }, 1},
        {"unary plus and minus", [](int n) { return repeat("+ -", n) + "a"; }, 2},
        {"not", [](int n) { return repeat("not ", n) + "a"; }, 1},
        {"parentheses", [](int n) { return repeat("(", n) + "a" + repeat(")", n); }, 1},
        {"unclosed parentheses", [](int n) { return repeat("(", n); }, 0},
        {"power chain", [](int n) { return repeat("a ** ", n) + "a"; }, 1},
        {"nested lists", [](int n) { return repeat("[", n) + "a" + repeat("]", n); }, 1},
        {"calls", [](int n) { return repeat("abs(", n) + "a" + repeat(")", n); }, 1},
        {"if-else chain", [](int n) { return repeat("a if a else ", n) + "a"; }, 1},
        {"comprehension iterables", [](int n) { return repeat("[x for x in ", n) + "a" + repeat("]", n); },
         1},
        {"mixed", [](int n) { return repeat("-(not [", n) + "a" + repeat("])", n); }, 4},
    };
    return all;
}

// The sentence a parse of `text` in `role` gives when it nests too deep: the role, the start of the text
// and the limit, on one line.
void expectNestingSentence(const std::string& message, const std::string& role, const std::string& text) {
    const std::string start = "Cannot parse " + role + " \"" + text.substr(0, 60) + "...\": " + kLimitPhrase;
    QVERIFY2(message.rfind(start, 0) == 0, message.c_str());
    QVERIFY2(message.back() == '.', message.c_str());
    QVERIFY2(message.find('\n') == std::string::npos, message.c_str());
    QVERIFY2(message.size() < start.size() + 16, message.c_str()); // not the whole 100 KB text
}

void writeFile(const fs::path& path, const std::string& text) {
    fs::create_directories(path.parent_path());
    std::ofstream(path) << text;
}

// A T1 file over a in [1, 2, 3]: `condition` is its one condition, `values` a's value list.
std::string t1Text(const std::string& condition, const std::string& values = "[1, 2, 3]",
                   const std::string& extra = "") {
    return R"({"General": {"BenchmarkName": "hostile")" + extra +
           R"(}, "ConfigurationSpace": {"TuningParameters": [{"Name": "a", "Type": "int", "Values": ")" +
           values + R"("}], "Conditions": [{"Expression": ")" + condition + R"("}]}})";
}

// A minimal valid kernel spec whose cpu variant has the given constraint.
std::string kernelSpec(const std::string& name, const std::string& constraint) {
    return R"({
  "name": ")" +
           name +
           R"(",
  "description": "y = x",
  "problem": [ {"name": "N", "default": 64} ],
  "arguments": [ {"name": "y", "type": "float32", "count": "N", "output": true} ],
  "reference": {"source": "ref.cpp"},
  "variants": { "cpu": {
      "source": "k.cpp",
      "parameters": [ {"name": "T", "values": [1, 2, 4], "default": 1} ],
      "constraints": [")" +
           constraint + R"("] } }
})";
}

fs::path writeKernel(const fs::path& folder, const std::string& spec) {
    writeFile(folder / "k.cpp", "// kernel\n");
    writeFile(folder / "ref.cpp", "// reference\n");
    writeFile(folder / "kernel.json", spec);
    return folder / "kernel.json";
}

std::vector<Parameter> aIn(std::vector<std::int64_t> values) {
    Parameter parameter{"a", ParameterType::Integer, {}};
    for (const auto v : values) {
        parameter.values.emplace_back(std::in_place_type<std::int64_t>, v);
    }
    return {parameter};
}

Expression::Lookup aIs(std::int64_t a) {
    return [a](std::string_view name) -> std::optional<Value> {
        return name == "a" ? std::optional<Value>(a) : std::nullopt;
    };
}

QByteArray fileBytes(const QString& path) {
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

} // namespace

class TestHostileExpressions : public QObject {
    Q_OBJECT

private slots:
    void deepExpressionIsOneSentenceWithTheLimit_data();
    void deepExpressionIsOneSentenceWithTheLimit();
    void excerptKeepsUtf8Whole();
    void nestingUpToTheLimitWorks_data();
    void nestingUpToTheLimitWorks();
    void flatChainsOfTwentyThousandTermsWork();
    void divisionByZeroNamesTheConstraint();
    void deepT1FileIsOneSentence();
    void catalogSkipsADeepSpec();
    void cliListsOtherKernelsAndReportsTheDeepSpec();
    void cliReportsDivisionByZeroAndKeepsTheDatabase();
};

void TestHostileExpressions::deepExpressionIsOneSentenceWithTheLimit_data() {
    QTest::addColumn<int>("shape");
    for (std::size_t i = 0; i < shapes().size(); ++i) {
        QTest::newRow(shapes()[i].name) << static_cast<int>(i);
    }
}

void TestHostileExpressions::deepExpressionIsOneSentenceWithTheLimit() {
    QFETCH(int, shape);
    const std::string text = shapes()[static_cast<std::size_t>(shape)].make(kDeep);
    expectNestingSentence(errorOf([&] { Expression::parse(text, "constraint"); }), "constraint", text);
    // Through a search space, and as a value list (T1 files and kernel specs read those).
    expectNestingSentence(errorOf([&] { (void)SearchSpace(aIn({1, 2}), {text}); }), "constraint", text);
    expectNestingSentence(errorOf([&] { evaluateValueList(text); }), "value list", text);
}

void TestHostileExpressions::excerptKeepsUtf8Whole() {
    // The quoted start of a long text ends before a character, not inside its UTF-8 bytes.
    const std::string text = repeat("(", 58) + "'\u00e9' + " + repeat("(", kDeep) + "1";
    const std::string message = errorOf([&] { Expression::parse(text, "constraint"); });
    QVERIFY2(message.rfind("Cannot parse constraint \"" + repeat("(", 58) + "'...\": " + kLimitPhrase, 0) ==
                 0,
             message.c_str());
    const QByteArray bytes = QByteArray::fromStdString(message);
    QCOMPARE(QString::fromUtf8(bytes).toUtf8(), bytes);
}

void TestHostileExpressions::nestingUpToTheLimitWorks_data() {
    QTest::addColumn<int>("shape");
    for (std::size_t i = 0; i < shapes().size(); ++i) {
        if (shapes()[i].levels > 0) {
            QTest::newRow(shapes()[i].name) << static_cast<int>(i);
        }
    }
}

void TestHostileExpressions::nestingUpToTheLimitWorks() {
    // The limit counts nesting levels exactly: the deepest text within it parses, one repetition more not.
    QFETCH(int, shape);
    const Shape& s = shapes()[static_cast<std::size_t>(shape)];
    const int most = ExpressionParser::kMaxNesting / s.levels;
    const Expression deepest = Expression::parse(s.make(most), "constraint");
    const std::string tooDeep = s.make(most + 1);
    const std::string message = errorOf([&] { Expression::parse(tooDeep, "constraint"); });
    QVERIFY2(message.find(kLimitPhrase) != std::string::npos, message.c_str());

    // The deepest accepted tree evaluates, and the compiled program agrees with the interpreter.
    std::optional<bool> interpreted;
    try {
        interpreted = deepest.test(aIs(1));
    } catch (const Error&) {
    }
    const auto program = ConstraintProgram::compile(
        deepest.root(), [](std::string_view) { return std::optional<std::uint32_t>(0); });
    if (program) {
        const PythonNumber one[1] = {PythonNumber::fromInt(1)};
        QCOMPARE(program->test(one), interpreted);
    }
    if (std::string(s.name) == "unary minus" || std::string(s.name) == "parentheses") {
        QCOMPARE(deepest.evaluate(aIs(3)), Value{std::int64_t{most % 2 == 0 || s.name[0] == 'p' ? 3 : -3}});
    }
}

void TestHostileExpressions::flatChainsOfTwentyThousandTermsWork() {
    // Left-associative chains are flat nodes: as long as memory allows, and no deeper than one term.
    const std::string sum = "a" + repeat(" + a", kFlat - 1);
    const Expression parsedSum = Expression::parse(sum, "constraint");
    QCOMPARE(parsedSum.root().children.size(), std::size_t(kFlat));
    QCOMPARE(parsedSum.evaluate(aIs(2)), Value{std::int64_t{2 * kFlat}});
    // Ten times longer, a nested tree would overflow the stack when walked.
    const std::string longSum = "a" + repeat(" - a + a", 10 * kFlat);
    QCOMPARE(Expression::parse(longSum, "constraint").evaluate(aIs(3)), Value{std::int64_t{3}});
    const std::string mixed = "a" + repeat(" - a + a * 1 // 1 % 7", kFlat / 2);
    QCOMPARE(Expression::parse(mixed, "constraint").evaluate(aIs(5)), Value{std::int64_t{5}});
    const std::string product = "a" + repeat(" * 1", kFlat);
    QCOMPARE(Expression::parse(product, "constraint").evaluate(aIs(7)), Value{std::int64_t{7}});
    const std::string conjunction = "a > 0" + repeat(" and a > 0", kFlat);
    QCOMPARE(Expression::parse(conjunction, "constraint").evaluate(aIs(1)), Value{true});
    const std::string chain = "0" + repeat(" < a", kFlat);
    QCOMPARE(Expression::parse(chain, "constraint").evaluate(aIs(1)), Value{false});
    const std::string minimum = "min(a" + repeat(", a", kFlat) + ")";
    QCOMPARE(Expression::parse(minimum, "constraint").evaluate(aIs(4)), Value{std::int64_t{4}});
    const std::string list = "[a" + repeat(", a", kFlat) + "]";
    QCOMPARE(evaluateValueList("[1" + repeat(", 1", kFlat) + "]").size(), std::size_t(kFlat + 1));
    QCOMPARE(Expression::parse("len(" + list + ")", "constraint").evaluate(aIs(1)),
             Value{std::int64_t{kFlat + 1}});

    // A space with such a constraint, compiled (numbers only) and interpreted (a string parameter).
    const SearchSpace space(aIn({1, 2, 3}), {sum + " <= " + std::to_string(2 * kFlat)});
    QCOMPARE(space.validCount(), SearchSpace::Index{2});
    const auto program = ConstraintProgram::compile(
        Expression::parse(sum).root(), [](std::string_view) { return std::optional<std::uint32_t>(0); });
    QVERIFY(program.has_value());
    std::vector<Parameter> withString = aIn({1, 2, 3});
    withString.push_back({"s", ParameterType::String, {std::string("x"), std::string("y")}});
    const SearchSpace interpreted(withString, {"s == 'x' and " + sum + " <= " + std::to_string(2 * kFlat)});
    QCOMPARE(interpreted.validCount(), SearchSpace::Index{2});
}

void TestHostileExpressions::divisionByZeroNamesTheConstraint() {
    // For every config, or only some: the first config that divides by zero is named with the constraint,
    // not "No configuration satisfies the constraints".
    QCOMPARE(errorOf([] {
                 (void)SearchSpace(aIn({1, 2, 4}), {"a / 0 > 1"});
             }),
             std::string("Cannot evaluate constraint \"a / 0 > 1\" at a=1: division by zero."));
    QCOMPARE(errorOf([] {
                 (void)SearchSpace(aIn({1, 2, 4}), {"8 // (a - 2) > 0"});
             }),
             std::string("Cannot evaluate constraint \"8 // (a - 2) > 0\" at a=2: floor division by zero."));
    QCOMPARE(errorOf([] {
                 (void)SearchSpace(aIn({1, 2, 4}), {"a > 1", "8 % (a - 4) == 0"});
             }),
             std::string("Cannot evaluate constraint \"8 % (a - 4) == 0\" at a=4: modulo by zero."));
    QCOMPARE(errorOf([] {
                 (void)SearchSpace(aIn({1, 2, 4}), {"1 / 0 > 1"});
             }),
             std::string("Cannot evaluate constraint \"1 / 0 > 1\": division by zero."));
    // The interpreter path (a string parameter does not compile) says the same.
    std::vector<Parameter> withString = aIn({1, 2, 4});
    withString.push_back({"s", ParameterType::String, {std::string("x")}});
    QCOMPARE(errorOf([&] { (void)SearchSpace(withString, {"s == 'x' and 8 % (a - 4) == 0"}); }),
             std::string("Cannot evaluate constraint \"s == 'x' and 8 % (a - 4) == 0\" at s='x', a=4: "
                         "modulo by zero."));
    // Guarded, the constraint is fine.
    QCOMPARE(SearchSpace(aIn({1, 2, 4}), {"a != 4 and 8 % (a - 4) == 0"}).validIndices(),
             std::vector<SearchSpace::Index>{1}); // 8 % -3 is -1 in Python, 8 % -2 is 0

    // A kernel spec whose constraint divides by zero at the default config names the file and the key.
    QTemporaryDir dir;
    const fs::path file =
        writeKernel(fs::path(dir.path().toStdString()) / "divide", kernelSpec("divide", "N % (T - 1) == 0"));
    QCOMPARE(errorOf([&] { readKernelSpec(file); }),
             file.string() + ": variants.cpu.constraints[0] fails on the default config (Cannot evaluate "
                             "constraint \"N % (T - 1) == 0\" at N=64, T=1: modulo by zero.).");
}

void TestHostileExpressions::deepT1FileIsOneSentence() {
    QTemporaryDir dir;
    const fs::path root(dir.path().toStdString());
    const std::string deep = repeat("(", kDeep) + "a" + repeat(")", kDeep) + " > 1";
    writeFile(root / "condition.json", t1Text(deep));
    const std::string condition = errorOf([&] { readT1Space(root / "condition.json"); });
    expectNestingSentence(condition.substr(std::string("condition.json: ").size()), "constraint", deep);
    QVERIFY2(condition.rfind("condition.json: ", 0) == 0, condition.c_str());

    const std::string deepList = repeat("[", kDeep) + "1" + repeat("]", kDeep);
    writeFile(root / "values.json", t1Text("a > 1", deepList));
    const std::string values = errorOf([&] { readT1Space(root / "values.json"); });
    QVERIFY2(values.rfind("values.json: \"ConfigurationSpace.TuningParameters[0].Values\" ", 0) == 0,
             values.c_str());
    QVERIFY2(values.find(kLimitPhrase) != std::string::npos, values.c_str());

    // JSON itself nested deeper than the readers accept, anywhere in the file.
    const std::string json = ", \"Notes\": " + repeat("[", kDeep) + repeat("]", kDeep);
    writeFile(root / "json.json", t1Text("a > 1", "[1, 2, 3]", json));
    QCOMPARE(errorOf([&] { readT1Space(root / "json.json"); }), jsonTooDeepMessage("json.json"));
    // Up to the limit, the same file reads.
    const std::string deepestJson =
        ", \"Notes\": " + repeat("[", kMaxJsonDepth - 2) + repeat("]", kMaxJsonDepth - 2);
    writeFile(root / "fine.json", t1Text("a > 1", "[1, 2, 3]", deepestJson));
    QCOMPARE(readT1Space(root / "fine.json").space.validCount(), SearchSpace::Index{2});
}

void TestHostileExpressions::catalogSkipsADeepSpec() {
    // KernelCatalog is what `kernels`, `tune --kernel` and the GUI's kernel list (MainWindow::
    // addCatalogKernels) load: a deep spec is one problem, the others load.
    QTemporaryDir dir;
    const fs::path root(dir.path().toStdString());
    const std::string deep = repeat("-", kDeep) + "T > 0";
    const fs::path deepFile = writeKernel(root / "deep", kernelSpec("deep", deep));
    const fs::path jsonFile =
        writeKernel(root / "deepjson", "{\"x\": " + repeat("[", kDeep) + repeat("]", kDeep) + "}");
    writeKernel(root / "fine", kernelSpec("fine", "T <= N"));
    const KernelCatalog catalog({root});
    QCOMPARE(catalog.all().size(), std::size_t(1));
    QCOMPARE(catalog.all().front().name, std::string("fine"));
    QCOMPARE(catalog.problems().size(), std::size_t(2));
    const std::string& deepProblem = catalog.problems()[0];
    const std::string prefix = deepFile.string() + ": ";
    QVERIFY2(deepProblem.rfind(prefix, 0) == 0, deepProblem.c_str());
    expectNestingSentence(deepProblem.substr(prefix.size()), "variants.cpu.constraints[0]", deep);
    QCOMPARE(catalog.problems()[1], jsonTooDeepMessage(jsonFile.string()));
    QCOMPARE(errorOf([&] { catalog.find("deep"); }), deepProblem);
}

void TestHostileExpressions::cliListsOtherKernelsAndReportsTheDeepSpec() {
    QTemporaryDir dir;
    const fs::path root(dir.path().toStdString());
    const std::string deep = repeat("(", kDeep) + "T" + repeat(")", kDeep) + " > 0";
    const fs::path deepFile = writeKernel(root / "path" / "deep", kernelSpec("deep", deep));
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert("TUNESCOPE_KERNEL_PATH", QString::fromStdString((root / "path").string()));
    environment.insert("TUNESCOPE_CACHE_DIR", dir.filePath("builds"));
    environment.insert("XDG_DATA_HOME", dir.filePath("data"));

    const auto listed = ts::test::runCli({"kernels"}, environment);
    QCOMPARE(listed.exitCode, 0);
    for (const char* name : {"gemm", "softmax", "conv2d"}) {
        QVERIFY2(listed.out.contains(QString(name) + "  ["), qPrintable(listed.out));
    }
    const QStringList warnings = listed.err.trimmed().split('\n');
    QCOMPARE(warnings.size(), 1);
    const QString expectedStart = "tunescope-cli: warning: " + QString::fromStdString(deepFile.string()) +
                                  ": Cannot parse variants.cpu.constraints[0] \"" +
                                  QString::fromStdString(deep.substr(0, 60)) +
                                  "...\": " + QString::fromStdString(kLimitPhrase);
    QVERIFY2(warnings.front().startsWith(expectedStart), qPrintable(listed.err));

    // Asking for the deep kernel by name fails with that sentence (after the same warning).
    const auto named = ts::test::runCli({"kernels", "deep"}, environment);
    QVERIFY(named.exitCode != 0 && named.exitCode != -1);
    const QStringList lines = named.err.trimmed().split('\n');
    QCOMPARE(lines.size(), 2);
    QCOMPARE(lines.front(), warnings.front());
    QCOMPARE(lines.back(), QString(warnings.front()).replace("tunescope-cli: warning: ", "tunescope-cli: "));

    // An unrelated kernel tunes as if the deep spec were not there.
    const QString db = dir.filePath("records.db");
    const auto tuned = ts::test::runCli({"tune", "--kernel", "softmax", "--backend", "cpu", "--size", "8,64",
                                         "--strategy", "random_sample", "--budget", "2", "--db", db},
                                        environment);
    QVERIFY2(tuned.exitCode == 0, qPrintable(tuned.err));
    QVERIFY(QFile::exists(db));
}

void TestHostileExpressions::cliReportsDivisionByZeroAndKeepsTheDatabase() {
    QTemporaryDir dir;
    const QString db = dir.filePath("records.db");
    const QString dataset = TUNESCOPE_RESOURCES "/datasets/pnpoly_RTX_3090.json.gz";
    const auto first = ts::test::runCli({"tune", "--dataset", dataset, "--budget", "3", "--db", db});
    QVERIFY2(first.exitCode == 0, qPrintable(first.err));
    const QByteArray before = fileBytes(db);
    QVERIFY(!before.isEmpty());

    const auto divided = ts::test::runCli(
        {"tune", "--dataset", dataset, "--budget", "3", "--db", db, "--constraint", "block_size_x / 0 > 1"});
    QVERIFY(divided.exitCode != 0 && divided.exitCode != -1);
    const QString err = divided.err.trimmed();
    QVERIFY2(!err.contains('\n'), qPrintable(err));
    QVERIFY2(err.contains("\"block_size_x / 0 > 1\""), qPrintable(err));
    QVERIFY2(err.contains("division by zero"), qPrintable(err));
    QVERIFY2(!err.contains("satisf"), qPrintable(err));
    QCOMPARE(fileBytes(db), before);
}

QTEST_GUILESS_MAIN(TestHostileExpressions)
#include "TestHostileExpressions.moc"
