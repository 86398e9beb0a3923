#include "space/Expression.h"

#include "space/ExpressionNode.h"
#include "space/ExpressionParser.h"
#include "space/PythonNumber.h"
#include "util/Error.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace ts {
namespace {

constexpr std::size_t kMaxListSize = 10'000'000;
// How many free names an evaluation error lists with their values ("at a=4, b=0").
constexpr std::size_t kMaxNamesInError = 8;

const char* typeName(const ExpressionValue& value) {
    switch (value.data.index()) {
    case 0:
        return "bool";
    case 1:
        return "int";
    case 2:
        return "float";
    case 3:
        return "str";
    default:
        return "list";
    }
}

bool isNumber(const ExpressionValue& value) {
    return value.data.index() <= 2;
}
bool isIntLike(const ExpressionValue& value) {
    return value.data.index() <= 1;
}
bool isString(const ExpressionValue& value) {
    return std::holds_alternative<std::string>(value.data);
}
bool isList(const ExpressionValue& value) {
    return std::holds_alternative<ExpressionList>(value.data);
}

PythonNumber toPython(const ExpressionValue& value) {
    if (const auto* b = std::get_if<bool>(&value.data)) {
        return PythonNumber::fromInt(*b ? 1 : 0);
    }
    if (const auto* i = std::get_if<std::int64_t>(&value.data)) {
        return PythonNumber::fromInt(*i);
    }
    return PythonNumber::fromDouble(std::get<double>(value.data));
}

ExpressionValue fromPython(PythonNumber number) {
    if (number.isInt) {
        return {number.i};
    }
    return {number.d};
}

bool truthy(const ExpressionValue& value) {
    if (isNumber(value)) {
        return toPython(value).truthy();
    }
    if (const auto* s = std::get_if<std::string>(&value.data)) {
        return !s->empty();
    }
    return !std::get<ExpressionList>(value.data).empty();
}

bool equals(const ExpressionValue& a, const ExpressionValue& b) {
    if (isNumber(a) && isNumber(b)) {
        return python::equal(toPython(a), toPython(b));
    }
    if (isString(a) && isString(b)) {
        return std::get<std::string>(a.data) == std::get<std::string>(b.data);
    }
    if (isList(a) && isList(b)) {
        const auto& x = std::get<ExpressionList>(a.data);
        const auto& y = std::get<ExpressionList>(b.data);
        if (x.size() != y.size()) {
            return false;
        }
        for (std::size_t i = 0; i < x.size(); ++i) {
            if (!equals(x[i], y[i])) {
                return false;
            }
        }
        return true;
    }
    return false;
}

Value toValue(const ExpressionValue& value) {
    switch (value.data.index()) {
    case 0:
        return std::get<bool>(value.data);
    case 1:
        return std::get<std::int64_t>(value.data);
    case 2:
        return std::get<double>(value.data);
    default:
        return std::get<std::string>(value.data);
    }
}

ExpressionValue fromValue(const Value& value) {
    switch (value.index()) {
    case 0:
        return {std::get<bool>(value)};
    case 1:
        return {std::get<std::int64_t>(value)};
    case 2:
        return {std::get<double>(value)};
    default:
        return {std::get<std::string>(value)};
    }
}

// The source text of an operator, for messages.
const char* symbolOf(ExpressionOp op) {
    switch (op) {
    case ExpressionOp::Add:
    case ExpressionOp::Pos:
        return "+";
    case ExpressionOp::Sub:
    case ExpressionOp::Neg:
        return "-";
    case ExpressionOp::Mul:
        return "*";
    case ExpressionOp::Div:
        return "/";
    case ExpressionOp::FloorDiv:
        return "//";
    case ExpressionOp::Mod:
        return "%";
    case ExpressionOp::Pow:
        return "**";
    default:
        return "?";
    }
}

const char* symbolOf(ExpressionCmp op) {
    static constexpr const char* kSymbols[] = {"==", "!=", "<", "<=", ">", ">=", "in", "not in"};
    return kSymbols[static_cast<int>(op)];
}

// What Python's ZeroDivisionError says for a dividing operator.
const char* zeroDivisionProblem(ExpressionOp op) {
    switch (op) {
    case ExpressionOp::FloorDiv:
        return "floor division by zero";
    case ExpressionOp::Mod:
        return "modulo by zero";
    case ExpressionOp::Pow:
        return "zero raised to a negative power";
    default:
        return "division by zero";
    }
}

std::string pythonRepr(const ExpressionValue& value) {
    if (isList(value)) {
        std::string out = "[";
        const auto& list = std::get<ExpressionList>(value.data);
        for (std::size_t i = 0; i < list.size(); ++i) {
            out += (i ? ", " : "") + pythonRepr(list[i]);
        }
        return out + "]";
    }
    if (isString(value)) {
        return "'" + std::get<std::string>(value.data) + "'";
    }
    return toString(toValue(value));
}

// Recursive over the tree, whose depth the parser bounds (ExpressionParser::kMaxNesting).
class Evaluator {
public:
    // `variables` (may be null) are the free names whose values an error message lists.
    Evaluator(const std::string& text, const std::string& role, const Expression::Lookup& lookup,
              const std::vector<std::string>* variables)
        : m_text(text), m_role(role), m_lookup(lookup), m_variables(variables) {}

    ExpressionValue eval(const ExpressionNode& node);

private:
    [[noreturn]] void fail(const std::string& what) const {
        throw Error("Cannot evaluate " + m_role + " \"" + ExpressionParser::excerpt(m_text) + "\"" + where() +
                    ": " + what + ".");
    }
    // " at a=4, b=0": the values of the free names, which say which config the error happened at.
    std::string where() const {
        if (!m_lookup || !m_variables || m_variables->empty()) {
            return {};
        }
        std::string out;
        for (std::size_t i = 0; i < m_variables->size(); ++i) {
            if (i == kMaxNamesInError) {
                out += ", ...";
                break;
            }
            const auto value = m_lookup((*m_variables)[i]);
            out += (out.empty() ? " at " : ", ") + (*m_variables)[i] + "=" +
                   (value ? pythonRepr(fromValue(*value)) : std::string("?"));
        }
        return out;
    }
    [[noreturn]] void operandError(const char* op, const ExpressionValue& a, const ExpressionValue& b) const {
        fail(std::string("unsupported operand types for ") + op + ": '" + typeName(a) + "' and '" +
             typeName(b) + "'");
    }

    ExpressionValue name(const ExpressionNode& node);
    ExpressionValue binary(const ExpressionNode& node);
    ExpressionValue binary(ExpressionOp op, const ExpressionValue& a, const ExpressionValue& b);
    bool compare(ExpressionCmp op, const ExpressionValue& a, const ExpressionValue& b);
    ExpressionValue call(const ExpressionNode& node);
    ExpressionValue minMax(const ExpressionNode& node, std::vector<ExpressionValue>& args, bool isMax);
    std::int64_t intArgument(const ExpressionValue& value, const char* function);
    const ExpressionList& iterable(ExpressionValue& value, ExpressionList& storage);

    const std::string& m_text;
    const std::string& m_role;
    const Expression::Lookup& m_lookup;
    const std::vector<std::string>* m_variables;
    std::vector<std::pair<const std::string*, ExpressionValue>> m_locals;
};

ExpressionValue Evaluator::eval(const ExpressionNode& node) {
    switch (node.kind) {
    case ExpressionNodeKind::Literal:
        return node.literal;
    case ExpressionNodeKind::Name:
        return name(node);
    case ExpressionNodeKind::Unary: {
        const ExpressionValue operand = eval(*node.children[0]);
        if (!isNumber(operand)) {
            fail(std::string("bad operand type for unary ") + (node.op == ExpressionOp::Neg ? "-" : "+") +
                 ": '" + typeName(operand) + "'");
        }
        const PythonNumber n = toPython(operand);
        return fromPython(node.op == ExpressionOp::Neg ? python::negate(n) : n);
    }
    case ExpressionNodeKind::Binary:
        return binary(node);
    case ExpressionNodeKind::Compare: {
        ExpressionValue left = eval(*node.children[0]);
        for (std::size_t i = 0; i < node.comparisons.size(); ++i) {
            ExpressionValue right = eval(*node.children[i + 1]);
            if (!compare(node.comparisons[i], left, right)) {
                return {false};
            }
            left = std::move(right);
        }
        return {true};
    }
    case ExpressionNodeKind::And:
    case ExpressionNodeKind::Or: {
        const bool isAnd = node.kind == ExpressionNodeKind::And;
        ExpressionValue value;
        for (const auto& child : node.children) {
            value = eval(*child);
            if (truthy(value) != isAnd) {
                return value;
            }
        }
        return value;
    }
    case ExpressionNodeKind::Not:
        return {!truthy(eval(*node.children[0]))};
    case ExpressionNodeKind::Call:
        return call(node);
    case ExpressionNodeKind::List: {
        ExpressionList list;
        list.reserve(node.children.size());
        for (const auto& child : node.children) {
            list.push_back(eval(*child));
        }
        return {std::move(list)};
    }
    case ExpressionNodeKind::ListComp: {
        ExpressionValue source = eval(*node.children[1]);
        ExpressionList storage;
        const ExpressionList& items = iterable(source, storage);
        ExpressionList result;
        m_locals.emplace_back(&node.name, ExpressionValue{});
        const std::size_t slot = m_locals.size() - 1;
        for (const auto& item : items) {
            m_locals[slot].second = item;
            if (node.children.size() > 2 && !truthy(eval(*node.children[2]))) {
                continue;
            }
            result.push_back(eval(*node.children[0]));
        }
        m_locals.pop_back();
        return {std::move(result)};
    }
    case ExpressionNodeKind::IfElse:
        return truthy(eval(*node.children[1])) ? eval(*node.children[0]) : eval(*node.children[2]);
    }
    fail("unknown node");
}

ExpressionValue Evaluator::name(const ExpressionNode& node) {
    for (auto it = m_locals.rbegin(); it != m_locals.rend(); ++it) {
        if (*it->first == node.name) {
            return it->second;
        }
    }
    if (m_lookup) {
        if (auto value = m_lookup(node.name)) {
            return fromValue(*value);
        }
    }
    throw Error("The " + m_role + " \"" + ExpressionParser::excerpt(m_text) + "\" names \"" + node.name +
                "\", which is not defined.");
}

ExpressionValue Evaluator::binary(const ExpressionNode& node) {
    ExpressionValue value = eval(*node.children[0]);
    for (std::size_t i = 0; i < node.ops.size(); ++i) {
        value = binary(node.ops[i], value, eval(*node.children[i + 1]));
    }
    return value;
}

const ExpressionList& Evaluator::iterable(ExpressionValue& value, ExpressionList& storage) {
    if (isList(value)) {
        return std::get<ExpressionList>(value.data);
    }
    if (isString(value)) {
        for (const char c : std::get<std::string>(value.data)) {
            storage.push_back({std::string(1, c)});
        }
        return storage;
    }
    fail(std::string("'") + typeName(value) + "' object is not iterable");
}

ExpressionValue Evaluator::binary(ExpressionOp op, const ExpressionValue& a, const ExpressionValue& b) {
    if (isNumber(a) && isNumber(b)) {
        const PythonNumber x = toPython(a);
        const PythonNumber y = toPython(b);
        PythonNumber r;
        const bool ok = python::arithmetic(op, x, y, r);
        if (!ok) // Python raises ZeroDivisionError: so does a constraint, rather than be quietly false.
            fail(zeroDivisionProblem(op));
        return fromPython(r);
    }
    if (op == ExpressionOp::Add) {
        if (isString(a) && isString(b)) {
            return {std::get<std::string>(a.data) + std::get<std::string>(b.data)};
        }
        if (isList(a) && isList(b)) {
            ExpressionList list = std::get<ExpressionList>(a.data);
            const auto& tail = std::get<ExpressionList>(b.data);
            list.insert(list.end(), tail.begin(), tail.end());
            return {std::move(list)};
        }
        operandError("+", a, b);
    }
    if (op == ExpressionOp::Mul) {
        const bool sequenceLeft = (isList(a) || isString(a)) && isIntLike(b);
        const bool sequenceRight = (isList(b) || isString(b)) && isIntLike(a);
        if (sequenceLeft || sequenceRight) {
            const ExpressionValue& sequence = sequenceLeft ? a : b;
            const std::int64_t times = std::max<std::int64_t>(0, toPython(sequenceLeft ? b : a).i);
            if (isString(sequence)) {
                const auto& s = std::get<std::string>(sequence.data);
                if (s.empty()) // "" * n is "" for any n; looping n times could take hours
                    return {std::string()};
                if (static_cast<std::size_t>(times) > kMaxListSize / s.size()) {
                    fail("the repeated string is too long");
                }
                std::string out;
                for (std::int64_t i = 0; i < times; ++i) {
                    out += s;
                }
                return {std::move(out)};
            }
            const auto& list = std::get<ExpressionList>(sequence.data);
            if (list.empty())
                return {ExpressionList()};
            if (static_cast<std::size_t>(times) > kMaxListSize / list.size()) {
                fail("the repeated list is too long");
            }
            ExpressionList out;
            for (std::int64_t i = 0; i < times; ++i) {
                out.insert(out.end(), list.begin(), list.end());
            }
            return {std::move(out)};
        }
        operandError("*", a, b);
    }
    operandError(symbolOf(op), a, b);
}

bool Evaluator::compare(ExpressionCmp op, const ExpressionValue& a, const ExpressionValue& b) {
    switch (op) {
    case ExpressionCmp::Eq:
        return equals(a, b);
    case ExpressionCmp::Ne:
        return !equals(a, b);
    case ExpressionCmp::In:
    case ExpressionCmp::NotIn: {
        bool found = false;
        if (isList(b)) {
            for (const auto& item : std::get<ExpressionList>(b.data)) {
                if (equals(a, item)) {
                    found = true;
                    break;
                }
            }
        } else if (isString(b) && isString(a)) {
            found = std::get<std::string>(b.data).find(std::get<std::string>(a.data)) != std::string::npos;
        } else {
            fail(std::string("argument of type '") + typeName(b) + "' is not a container");
        }
        return found == (op == ExpressionCmp::In);
    }
    default:
        break;
    }
    if (isNumber(a) && isNumber(b)) // NaN compares false, as in Python
        return python::compare(op, toPython(a), toPython(b));
    if (!isString(a) || !isString(b))
        fail(std::string("'") + symbolOf(op) + "' is not supported between '" + typeName(a) + "' and '" +
             typeName(b) + "'");
    // Strings by their order: <0, 0, >0 for a < b, a == b, a > b, compared as a number with 0.
    const int order = std::get<std::string>(a.data).compare(std::get<std::string>(b.data));
    return python::compare(op, PythonNumber::fromInt(order), PythonNumber::fromInt(0));
}

std::int64_t Evaluator::intArgument(const ExpressionValue& value, const char* function) {
    if (!isIntLike(value)) {
        fail(std::string(function) + "() needs int arguments, not '" + typeName(value) + "'");
    }
    return toPython(value).i;
}

ExpressionValue Evaluator::minMax(const ExpressionNode& node, std::vector<ExpressionValue>& args,
                                  bool isMax) {
    ExpressionList storage;
    const ExpressionList* items = nullptr;
    if (args.size() == 1) {
        items = &iterable(args[0], storage);
    } else {
        storage = std::move(args);
        items = &storage;
    }
    if (items->empty()) {
        fail(node.name + "() of an empty sequence");
    }
    const ExpressionValue* best = &items->front();
    for (std::size_t i = 1; i < items->size(); ++i) {
        const ExpressionValue& candidate = (*items)[i];
        const bool better = isMax ? compare(ExpressionCmp::Gt, candidate, *best)
                                  : compare(ExpressionCmp::Lt, candidate, *best);
        if (better) {
            best = &candidate;
        }
    }
    return *best;
}

ExpressionValue Evaluator::call(const ExpressionNode& node) {
    std::vector<ExpressionValue> args;
    args.reserve(node.children.size());
    for (const auto& child : node.children) {
        args.push_back(eval(*child));
    }
    const std::string& f = node.name;
    const auto arity = [&](std::size_t low, std::size_t high) {
        if (args.size() < low || args.size() > high) {
            fail(f + "() takes " +
                 (low == high ? std::to_string(low) : std::to_string(low) + " to " + std::to_string(high)) +
                 " arguments, not " + std::to_string(args.size()));
        }
    };
    if (f == "min" || f == "max") {
        if (args.empty()) {
            fail(f + "() needs at least one argument");
        }
        return minMax(node, args, f == "max");
    }
    if (f == "range") {
        arity(1, 3);
        std::int64_t start = 0;
        std::int64_t stop = 0;
        std::int64_t step = 1;
        if (args.size() == 1) {
            stop = intArgument(args[0], "range");
        } else {
            start = intArgument(args[0], "range");
            stop = intArgument(args[1], "range");
            if (args.size() == 3) {
                step = intArgument(args[2], "range");
            }
        }
        if (step == 0) {
            fail("range() step must not be zero");
        }
        ExpressionList list;
        for (std::int64_t i = start; step > 0 ? i < stop : i > stop; i += step) {
            if (list.size() >= kMaxListSize) {
                fail("range() is too long");
            }
            list.push_back({i});
        }
        return {std::move(list)};
    }
    if (f == "list") {
        arity(0, 1);
        if (args.empty()) {
            return {ExpressionList{}};
        }
        ExpressionList storage;
        const ExpressionList& items = iterable(args[0], storage);
        return {ExpressionList(items)};
    }
    if (f == "len") {
        arity(1, 1);
        if (isString(args[0])) {
            return {static_cast<std::int64_t>(std::get<std::string>(args[0].data).size())};
        }
        if (isList(args[0])) {
            return {static_cast<std::int64_t>(std::get<ExpressionList>(args[0].data).size())};
        }
        fail(std::string("object of type '") + typeName(args[0]) + "' has no len()");
    }
    if (f == "sum") {
        arity(1, 2);
        ExpressionValue total = args.size() == 2 ? args[1] : ExpressionValue{std::int64_t{0}};
        ExpressionList storage;
        for (const auto& item : iterable(args[0], storage)) {
            total = binary(ExpressionOp::Add, total, item);
        }
        return total;
    }
    if (f == "str") {
        arity(1, 1);
        return {isString(args[0]) ? std::get<std::string>(args[0].data) : pythonRepr(args[0])};
    }
    if (f == "bool") {
        arity(0, 1);
        return {!args.empty() && truthy(args[0])};
    }
    arity(1, f == "round" ? 2 : 1);
    const ExpressionValue& x = args[0];
    if (f == "float" && isString(x)) {
        const std::string& s = std::get<std::string>(x.data);
        char* end = nullptr;
        const double d = std::strtod(s.c_str(), &end);
        if (s.empty() || *end != '\0') {
            fail("could not convert string to float: '" + s + "'");
        }
        return {d};
    }
    if (f == "int" && isString(x)) {
        const std::string& s = std::get<std::string>(x.data);
        char* end = nullptr;
        const long long i = std::strtoll(s.c_str(), &end, 10);
        if (s.empty() || *end != '\0') {
            fail("invalid literal for int(): '" + s + "'");
        }
        return {static_cast<std::int64_t>(i)};
    }
    if (!isNumber(x)) {
        fail(f + "() does not accept a '" + typeName(x) + "'");
    }
    const PythonNumber n = toPython(x);
    if (f == "abs") {
        return fromPython(python::absolute(n));
    }
    if (f == "float") {
        return {n.asDouble()};
    }
    if (f == "int" || (f == "round" && args.size() == 1)) {
        if (n.isInt) {
            return {n.i};
        }
        const double d = f == "int" ? std::trunc(n.d) : std::nearbyint(n.d);
        if (!std::isfinite(d) || std::fabs(d) >= 9.2e18) {
            fail("cannot convert " + toString(Value{n.d}) + " to an int");
        }
        return {static_cast<std::int64_t>(d)};
    }
    // round(x, digits)
    const std::int64_t digits = intArgument(args[1], "round");
    if (n.isInt && digits >= 0) {
        return {n.i};
    }
    const double scale = std::pow(10.0, static_cast<double>(digits));
    return {std::nearbyint(n.asDouble() * scale) / scale};
}

void collectVariables(const ExpressionNode& node, std::vector<const std::string*>& scope,
                      std::vector<std::string>& out) {
    if (node.kind == ExpressionNodeKind::Name) {
        for (const auto* local : scope) {
            if (*local == node.name) {
                return;
            }
        }
        if (std::find(out.begin(), out.end(), node.name) == out.end()) {
            out.push_back(node.name);
        }
        return;
    }
    if (node.kind == ExpressionNodeKind::ListComp) {
        // Python evaluates the iterable outside the comprehension's scope. Visited in textual order.
        scope.push_back(&node.name);
        collectVariables(*node.children[0], scope, out);
        scope.pop_back();
        collectVariables(*node.children[1], scope, out);
        scope.push_back(&node.name);
        if (node.children.size() > 2) {
            collectVariables(*node.children[2], scope, out);
        }
        scope.pop_back();
        return;
    }
    for (const auto& child : node.children) {
        collectVariables(*child, scope, out);
    }
}

} // namespace

Expression Expression::parse(std::string_view text, std::string_view role) {
    ExpressionParser parser(text, role);
    Expression expression;
    expression.m_text = std::string(text);
    expression.m_role = std::string(role);
    expression.m_root = parser.parse();
    std::vector<const std::string*> scope;
    collectVariables(*expression.m_root, scope, expression.m_variables);
    return expression;
}

Value Expression::evaluate(const Lookup& lookup) const {
    Evaluator evaluator(m_text, m_role, lookup, &m_variables);
    const ExpressionValue result = evaluator.eval(*m_root);
    if (isList(result)) {
        throw Error("Cannot evaluate " + m_role + " \"" + ExpressionParser::excerpt(m_text) +
                    "\": the result is a list, not a value.");
    }
    return toValue(result);
}

bool Expression::test(const Lookup& lookup) const {
    Evaluator evaluator(m_text, m_role, lookup, &m_variables);
    return truthy(evaluator.eval(*m_root));
}

std::vector<Value> evaluateValueList(std::string_view text) {
    const Expression expression = Expression::parse(text, "value list");
    const std::string quoted = ExpressionParser::excerpt(expression.text());
    if (!expression.variables().empty()) {
        throw Error("The value list \"" + quoted + "\" names \"" + expression.variables().front() +
                    "\", which is not defined.");
    }
    const Expression::Lookup none;
    ExpressionValue result;
    const std::string role = "value list";
    Evaluator evaluator(expression.text(), role, none, nullptr);
    result = evaluator.eval(expression.root());
    if (!isList(result)) {
        throw Error("The value list \"" + quoted + "\" gives a " + typeName(result) + ", not a list.");
    }
    const auto& list = std::get<ExpressionList>(result.data);
    if (list.empty()) {
        throw Error("The value list \"" + quoted + "\" is empty.");
    }
    std::vector<Value> values;
    values.reserve(list.size());
    for (const auto& item : list) {
        if (isList(item)) {
            throw Error("The value list \"" + quoted + "\" holds a nested list.");
        }
        values.push_back(toValue(item));
    }
    return values;
}

} // namespace ts
