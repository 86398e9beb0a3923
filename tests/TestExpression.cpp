#include "ErrorOf.h"
#include "space/ConstraintProgram.h"
#include "space/Expression.h"
#include "space/Parameter.h"
#include "space/SpaceMode.h"
#include "space/Value.h"
#include "util/Error.h"

#include <QTest>

#include <map>

using namespace ts;

namespace {

using Variables = std::map<std::string, Value, std::less<>>;

Expression::Lookup lookupIn(const Variables& variables) {
    return [&variables](std::string_view name) -> std::optional<Value> {
        const auto it = variables.find(name);
        if (it == variables.end()) {
            return std::nullopt;
        }
        return it->second;
    };
}

Value eval(const std::string& text, const Variables& variables = {}) {
    return Expression::parse(text).evaluate(lookupIn(variables));
}

bool holds(const std::string& text, const Variables& variables = {}) {
    return Expression::parse(text).test(lookupIn(variables));
}

using ts::test::errorOf;

} // namespace

class TestExpression : public QObject {
    Q_OBJECT

private slots:
    void valueToString();
    void typeNames();
    void arithmeticKeepsPythonTypes();
    void floorDivisionAndModuloRoundDown();
    void powerIsRightAssociative();
    void comparisonsChain();
    void booleanOperatorsFollowPythonPrecedence();
    void builtins();
    void strings();
    void conditionalAndMembership();
    void divisionByZeroIsAnError();
    void variablesExcludeLoopVariablesAndBuiltins();
    void unknownNameIsAnError();
    void valueListsOfEveryT1Form();
    void valueListErrors();
    void parseErrorsNameTextAndColumn();
    void compiledProgramMatchesInterpreter();
};

void TestExpression::valueToString() {
    QCOMPARE(toString(Value{std::int64_t{16}}), std::string("16"));
    QCOMPARE(toString(Value{std::int64_t{-3}}), std::string("-3"));
    QCOMPARE(toString(Value{1.5}), std::string("1.5"));
    QCOMPARE(toString(Value{1.0}), std::string("1.0"));
    QCOMPARE(toString(Value{0.1}), std::string("0.1"));
    QCOMPARE(toString(Value{-0.5}), std::string("-0.5"));
    QCOMPARE(toString(Value{0.0001}), std::string("0.0001"));
    QCOMPARE(toString(Value{0.00001}), std::string("1e-05"));
    QCOMPARE(toString(Value{2.5e-7}), std::string("2.5e-07"));
    QCOMPARE(toString(Value{123456789.0}), std::string("123456789.0"));
    QCOMPARE(toString(Value{1e16}), std::string("1e+16"));
    QCOMPARE(toString(Value{1.5e22}), std::string("1.5e+22"));
    QCOMPARE(toString(Value{1e15}), std::string("1000000000000000.0"));
    QCOMPARE(toString(Value{true}), std::string("True"));
    QCOMPARE(toString(Value{false}), std::string("False"));
    QCOMPARE(toString(Value{std::string("abc")}), std::string("abc"));
    QCOMPARE(toNumber(Value{true}), 1.0);
    QVERIFY(isNumeric(Value{2.0}));
    QVERIFY(!isNumeric(Value{std::string("2")}));
    QVERIFY_THROWS_EXCEPTION(Error, toNumber(Value{std::string("x")}));
}

void TestExpression::typeNames() {
    QCOMPARE(std::string(toString(ParameterType::Integer)), std::string("int"));
    QCOMPARE(std::string(toString(ParameterType::Real)), std::string("float"));
    QCOMPARE(std::string(toString(ParameterType::String)), std::string("string"));
    QCOMPARE(std::string(toString(ParameterType::Bool)), std::string("bool"));
    QCOMPARE(std::string(toString(SpaceMode::Constrained)), std::string("constrained"));
    QCOMPARE(std::string(toString(SpaceMode::Product)), std::string("product"));
    QVERIFY(spaceModeFromString("product") == SpaceMode::Product);
    QVERIFY(spaceModeFromString("constrained") == SpaceMode::Constrained);
    QVERIFY(!spaceModeFromString("Product").has_value());
}

void TestExpression::arithmeticKeepsPythonTypes() {
    QCOMPARE(eval("1 + 2 * 3"), Value{std::int64_t{7}});
    QCOMPARE(eval("(1 + 2) * 3"), Value{std::int64_t{9}});
    QCOMPARE(eval("10 - 2 - 3"), Value{std::int64_t{5}});
    QCOMPARE(eval("7 / 2"), Value{3.5});
    QCOMPARE(eval("6 / 3"), Value{2.0}); // true division always gives a float
    QCOMPARE(eval("1.5 + 1"), Value{2.5});
    QCOMPARE(eval("-3 + +5"), Value{std::int64_t{2}});
    QCOMPARE(eval("True + True"), Value{std::int64_t{2}});
    QCOMPARE(eval("a * b", {{"a", std::int64_t{16}}, {"b", 2.0}}), Value{32.0});
    QCOMPARE(eval("1_000 + 0x10"), Value{std::int64_t{1016}});
    // Found by the expression fuzzer: repeating an empty string a huge number of times must not loop.
    QCOMPARE(eval("0 * s * 44444444444", {{"s", std::string("ab")}}), Value{std::string()});
    QCOMPARE(eval("1e3"), Value{1000.0});
    QCOMPARE(eval(".5 * 4"), Value{2.0});
    QCOMPARE(eval("9223372036854775807 - 1"), Value{std::int64_t{9223372036854775806}});
}

void TestExpression::floorDivisionAndModuloRoundDown() {
    QCOMPARE(eval("-7 // 2"), Value{std::int64_t{-4}});
    QCOMPARE(eval("7 // -2"), Value{std::int64_t{-4}});
    QCOMPARE(eval("7 // 2"), Value{std::int64_t{3}});
    QCOMPARE(eval("-7 % 3"), Value{std::int64_t{2}});
    QCOMPARE(eval("7 % -3"), Value{std::int64_t{-2}});
    QCOMPARE(eval("-6 % 3"), Value{std::int64_t{0}});
    QCOMPARE(eval("-7.5 % 2"), Value{0.5});
    QCOMPARE(eval("7.5 % -2"), Value{-0.5});
    QCOMPARE(eval("5.5 // 2"), Value{2.0});
    QCOMPARE(eval("-5.5 // 2"), Value{-3.0});
    QCOMPARE(eval("16 % (64 / 32)"), Value{0.0});
}

void TestExpression::powerIsRightAssociative() {
    QCOMPARE(eval("2 ** 10"), Value{std::int64_t{1024}});
    QCOMPARE(eval("2 ** 3 ** 2"), Value{std::int64_t{512}});
    QCOMPARE(eval("-2 ** 2"), Value{std::int64_t{-4}});
    QCOMPARE(eval("(-2) ** 2"), Value{std::int64_t{4}});
    QCOMPARE(eval("2 ** -1"), Value{0.5});
    QCOMPARE(eval("2 ** -1 ** 2"), Value{0.5});
    QCOMPARE(eval("4 ** 0.5"), Value{2.0});
}

void TestExpression::comparisonsChain() {
    QCOMPARE(eval("1 < 2 < 3"), Value{true});
    QCOMPARE(eval("1 < 3 < 2"), Value{false});
    QCOMPARE(eval("3 > 2 >= 2 == 2 != 5"), Value{true});
    const Variables inside{{"a", std::int64_t{16}}, {"b", std::int64_t{8}}};
    const Variables below{{"a", std::int64_t{2}}, {"b", std::int64_t{8}}};
    const Variables above{{"a", std::int64_t{256}}, {"b", std::int64_t{8}}};
    QVERIFY(holds("32 <= a*b <= 1024", inside));
    QVERIFY(!holds("32 <= a*b <= 1024", below));
    QVERIFY(!holds("32 <= a*b <= 1024", above));
    QCOMPARE(eval("1 == 1.0"), Value{true});
    QCOMPARE(eval("True == 1"), Value{true});
    QCOMPARE(eval("2 < 2.5"), Value{true});
    // A failed link stops the chain: the division by zero is never evaluated.
    QCOMPARE(eval("1 > 2 > 1 / 0"), Value{false});
}

void TestExpression::booleanOperatorsFollowPythonPrecedence() {
    QCOMPARE(eval("True or False and False"), Value{true});
    QCOMPARE(eval("(True or False) and False"), Value{false});
    QCOMPARE(eval("not 1 == 2"), Value{true});
    QCOMPARE(eval("not True and False"), Value{false});
    QCOMPARE(eval("not (True and False)"), Value{true});
    QCOMPARE(eval("0 or 5"), Value{std::int64_t{5}});
    QCOMPARE(eval("3 and 0"), Value{std::int64_t{0}});
    QCOMPARE(eval("False and 1 / 0"), Value{false});
    QCOMPARE(eval("True or 1 / 0"), Value{true});
    QCOMPARE(eval("1 + 1 == 2 and 2 * 3 > 5"), Value{true});
}

void TestExpression::builtins() {
    QCOMPARE(eval("min(3, 1, 2)"), Value{std::int64_t{1}});
    QCOMPARE(eval("max(3, 1, 2)"), Value{std::int64_t{3}});
    QCOMPARE(eval("max([1, 5, 2])"), Value{std::int64_t{5}});
    QCOMPARE(eval("min(2, 1.5)"), Value{1.5});
    QCOMPARE(eval("max(a, 2 * a)", {{"a", 1.5}}), Value{3.0});
    QVERIFY_THROWS_EXCEPTION(Error, eval("max(4)")); // a lone argument must be a list, as in Python
    QVERIFY_THROWS_EXCEPTION(Error, eval("min([])"));
}

void TestExpression::strings() {
    QCOMPARE(eval("'ab' + \"cd\""), Value{std::string("abcd")});
    QCOMPARE(eval("'abc' == \"abc\""), Value{true});
    QCOMPARE(eval("'a' != 'b'"), Value{true});
    QCOMPARE(eval("'a' < 'b'"), Value{true});
    QCOMPARE(eval("'it\\'s'"), Value{std::string("it's")});
    QCOMPARE(eval("'1' == 1"), Value{false});
    const Variables fast{{"mode", std::string("fast")}, {"n", std::int64_t{4}}};
    QVERIFY(holds("mode == 'fast' and n > 2", fast));
    QVERIFY(!holds("mode == \"slow\" or n > 8", fast));
    QCOMPARE(eval("len('hello')"), Value{std::int64_t{5}});
    const std::string message = errorOf([] { eval("'a' < 1"); });
    QVERIFY2(message.find("\"'a' < 1\"") != std::string::npos, message.c_str());
}

void TestExpression::conditionalAndMembership() {
    QCOMPARE(eval("1 if x > 0 else 2", {{"x", std::int64_t{3}}}), Value{std::int64_t{1}});
    QCOMPARE(eval("1 if x > 0 else 2", {{"x", std::int64_t{-3}}}), Value{std::int64_t{2}});
    QCOMPARE(eval("3 in [1, 2, 3]"), Value{true});
    QCOMPARE(eval("4 not in [1, 2]"), Value{true});
    QCOMPARE(eval("2.0 in [1, 2]"), Value{true});
    QCOMPARE(eval("abs(-3) + int(3.9) + int(-3.9)"), Value{std::int64_t{3}});
    QCOMPARE(eval("float(2)"), Value{2.0});
    QCOMPARE(eval("len([1, 2, 3])"), Value{std::int64_t{3}});
    QCOMPARE(eval("sum([1, 2, 3.5])"), Value{6.5});
}

void TestExpression::divisionByZeroIsAnError() {
    // As in Python (ZeroDivisionError): a constraint that divides by zero is a mistake to report with the
    // constraint and the config, not a silently false constraint.
    const Variables zero{{"a", std::int64_t{4}}, {"b", std::int64_t{0}}};
    QCOMPARE(errorOf([&] { holds("a % b == 0", zero); }),
             std::string("Cannot evaluate expression \"a % b == 0\" at a=4, b=0: modulo by zero."));
    QCOMPARE(errorOf([&] { holds("a / b > 1", zero); }),
             std::string("Cannot evaluate expression \"a / b > 1\" at a=4, b=0: division by zero."));
    QCOMPARE(errorOf([&] { holds("a // b >= 0", zero); }),
             std::string("Cannot evaluate expression \"a // b >= 0\" at a=4, b=0: floor division by zero."));
    QCOMPARE(
        errorOf([&] { holds("b ** -1 > 0", zero); }),
        std::string("Cannot evaluate expression \"b ** -1 > 0\" at b=0: zero raised to a negative power."));
    QCOMPARE(errorOf([&] { holds("not (a / 0.0 > 1)", zero); }),
             std::string("Cannot evaluate expression \"not (a / 0.0 > 1)\" at a=4: division by zero."));
    // Guarded as Python code would be, the constraint is fine.
    QVERIFY(holds("b == 0 or a % b == 0", zero));
    QVERIFY(!holds("b != 0 and a % b == 0", zero));
    const std::string message = errorOf([&] { eval("a / b", zero); });
    QVERIFY2(message.find("division by zero") != std::string::npos, message.c_str());
    QVERIFY2(message.find("\"a / b\"") != std::string::npos, message.c_str());
}

void TestExpression::variablesExcludeLoopVariablesAndBuiltins() {
    const auto expression = Expression::parse("a * b + min(a, c) + len([i * d for i in range(e)]) + i");
    const std::vector<std::string> expected{"a", "b", "c", "d", "e", "i"};
    QCOMPARE(expression.variables(), expected);
    QCOMPARE(expression.text(), std::string("a * b + min(a, c) + len([i * d for i in range(e)]) + i"));
    QVERIFY(Expression::parse("[j for j in [1, 2]]").variables().empty());
    QVERIFY(Expression::parse("True and 3 > 2").variables().empty());
}

void TestExpression::unknownNameIsAnError() {
    const std::string message = errorOf([] { eval("a + b", {{"a", std::int64_t{1}}}); });
    QVERIFY2(message.find("\"b\"") != std::string::npos, message.c_str());
    QVERIFY2(message.find("\"a + b\"") != std::string::npos, message.c_str());
    QVERIFY_THROWS_EXCEPTION(Error, holds("x > 1"));
}

void TestExpression::valueListsOfEveryT1Form() {
    const auto ints = [](std::initializer_list<std::int64_t> list) {
        std::vector<Value> out;
        for (const auto i : list) {
            out.emplace_back(std::in_place_type<std::int64_t>, i);
        }
        return out;
    };
    QCOMPARE(evaluateValueList("[16, 32, 48]"), ints({16, 32, 48}));
    QCOMPARE(evaluateValueList("[0]"), ints({0}));
    QCOMPARE(evaluateValueList("[2**i for i in range(0, 6)]"), ints({1, 2, 4, 8, 16, 32}));
    QCOMPARE(evaluateValueList("[i for i in range(1, 11)]"), ints({1, 2, 3, 4, 5, 6, 7, 8, 9, 10}));
    QCOMPARE(evaluateValueList("[i for i in range(1, 10+1)]"), ints({1, 2, 3, 4, 5, 6, 7, 8, 9, 10}));
    const auto hotspot = evaluateValueList("[1, 2, 4, 8, 16] + list(range(32, 1024+1, 32))");
    QCOMPARE(hotspot.size(), std::size_t{37});
    QCOMPARE(hotspot[5], Value{std::int64_t{32}});
    QCOMPARE(hotspot.back(), Value{std::int64_t{1024}});
    QCOMPARE(evaluateValueList("list(range(4))"), ints({0, 1, 2, 3}));
    QCOMPARE(evaluateValueList("list(range(10, 0, -3))"), ints({10, 7, 4, 1}));
    QCOMPARE(evaluateValueList("[x * 2 for x in [1, 2, 3] if x != 2]"), ints({2, 6}));
    QCOMPARE(evaluateValueList("[1, 2,]"), ints({1, 2}));
    QCOMPARE(evaluateValueList("[0.5, 1.0]"), (std::vector<Value>{0.5, 1.0}));
    QCOMPARE(evaluateValueList("['a', \"b\"]"), (std::vector<Value>{std::string("a"), std::string("b")}));
    QCOMPARE(evaluateValueList("[True, False]"), (std::vector<Value>{true, false}));
    QCOMPARE(evaluateValueList("[2**i for i in range(3)] * 2"), ints({1, 2, 4, 1, 2, 4}));
}

void TestExpression::valueListErrors() {
    const std::string notList = errorOf([] { evaluateValueList("3"); });
    QVERIFY2(notList.find("\"3\"") != std::string::npos && notList.find("not a list") != std::string::npos,
             notList.c_str());
    const std::string empty = errorOf([] { evaluateValueList("[]"); });
    QVERIFY2(empty.find("empty") != std::string::npos, empty.c_str());
    const std::string named = errorOf([] { evaluateValueList("[x, 1]"); });
    QVERIFY2(named.find("\"x\"") != std::string::npos, named.c_str());
    const std::string unclosed = errorOf([] { evaluateValueList("[1, 2"); });
    QCOMPARE(unclosed, std::string("Cannot parse value list \"[1, 2\": unexpected end at column 6."));
    QVERIFY_THROWS_EXCEPTION(Error, evaluateValueList("list(range(1, 5, 0))"));
}

void TestExpression::parseErrorsNameTextAndColumn() {
    QCOMPARE(errorOf([] { Expression::parse("a * * b", "constraint"); }),
             std::string("Cannot parse constraint \"a * * b\": unexpected '*' at column 5."));
    QCOMPARE(errorOf([] { Expression::parse("(a + b"); }),
             std::string("Cannot parse expression \"(a + b\": unexpected end at column 7."));
    QCOMPARE(errorOf([] { Expression::parse("a + $"); }),
             std::string("Cannot parse expression \"a + $\": unexpected character '$' at column 5."));
    QCOMPARE(errorOf([] { Expression::parse("x == 'abc"); }),
             std::string("Cannot parse expression \"x == 'abc\": unterminated string at column 6."));
    QCOMPARE(errorOf([] { Expression::parse("1 + foo(2)"); }),
             std::string("Cannot parse expression \"1 + foo(2)\": unknown function \"foo\" at column 5."));
    QCOMPARE(errorOf([] { Expression::parse("a b"); }),
             std::string("Cannot parse expression \"a b\": unexpected 'b' at column 3."));
    QCOMPARE(errorOf([] { Expression::parse("a and or b"); }),
             std::string("Cannot parse expression \"a and or b\": unexpected 'or' at column 7."));
    QVERIFY_THROWS_EXCEPTION(Error, Expression::parse("   "));
    QVERIFY_THROWS_EXCEPTION(Error, Expression::parse("a = 1"));
    QVERIFY_THROWS_EXCEPTION(Error, Expression::parse("[i for 3 in range(2)]"));
}

void TestExpression::compiledProgramMatchesInterpreter() {
    // The fast path used to enumerate spaces must agree with the interpreter on every input, including
    // floats, negatives and zeros (where the interpreter throws, the program answers nullopt).
    const std::vector<std::string> constraints{
        "a * b <= 16",
        "32 <= a * b <= 1024",
        "a % b == 0",
        "a // b > -2",
        "a / b >= 0.5",
        "-a ** 2 < b",
        "not (a == 2 and b == 4) or c > 0.5",
        "min(a, b, c) > 0 and max([a, b]) < 8",
        "abs(a - b) + int(c * 3) == 3",
        "a if c > 1 else b",
        "a in [1, 2, 4] and b not in [0, 3]",
        "(a * 4 + c) % 3 != 1 or b ** 2 == 4",
        "(2 + c) * a * 4 <= 49152 and a > c",
    };
    const std::vector<Value> as{std::int64_t{-3}, std::int64_t{0}, std::int64_t{1},  std::int64_t{2},
                                std::int64_t{4},  std::int64_t{7}, std::int64_t{16}, 2.5};
    const std::vector<Value> bs{
        std::int64_t{-2}, std::int64_t{0}, std::int64_t{1}, std::int64_t{3}, std::int64_t{4}, 0.5, -1.5};
    const std::vector<Value> cs{std::int64_t{0}, 0.25, 1.5, true};
    for (const auto& text : constraints) {
        const auto expression = Expression::parse(text);
        const auto program = ConstraintProgram::compile(expression.root(), [](std::string_view name) {
            return std::optional<std::uint32_t>(static_cast<std::uint32_t>(name[0] - 'a'));
        });
        QVERIFY2(program.has_value(), text.c_str());
        int trueCount = 0;
        for (const auto& a : as) {
            for (const auto& b : bs) {
                for (const auto& c : cs) {
                    const Variables variables{{"a", a}, {"b", b}, {"c", c}};
                    PythonNumber numbers[3];
                    const Value* values[3] = {&a, &b, &c};
                    for (int k = 0; k < 3; ++k) {
                        numbers[k] =
                            std::holds_alternative<double>(*values[k])
                                ? PythonNumber::fromDouble(std::get<double>(*values[k]))
                                : PythonNumber::fromInt(static_cast<std::int64_t>(toNumber(*values[k])));
                    }
                    std::optional<bool> expected;
                    try {
                        expected = holds(text, variables);
                    } catch (const Error&) {
                    }
                    trueCount += expected == true ? 1 : 0;
                    const std::string where =
                        text + " at a=" + toString(a) + " b=" + toString(b) + " c=" + toString(c);
                    QVERIFY2(program->test(numbers) == expected, where.c_str());
                }
            }
        }
        QVERIFY2(trueCount > 0, text.c_str()); // every constraint is exercised both ways
        QVERIFY2(trueCount < static_cast<int>(as.size() * bs.size() * cs.size()), text.c_str());
    }
    // Strings and lists do not compile: the caller falls back to the interpreter.
    const auto none = [](std::string_view) { return std::optional<std::uint32_t>(0); };
    QVERIFY(!ConstraintProgram::compile(Expression::parse("a == 'x'").root(), none).has_value());
    QVERIFY(!ConstraintProgram::compile(Expression::parse("len([a]) == 1").root(), none).has_value());
    const auto noSlot = [](std::string_view) { return std::optional<std::uint32_t>(); };
    QVERIFY(!ConstraintProgram::compile(Expression::parse("a > 1").root(), noSlot).has_value());
}

QTEST_APPLESS_MAIN(TestExpression)
#include "TestExpression.moc"
