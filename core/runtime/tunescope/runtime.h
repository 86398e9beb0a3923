// tunescope/runtime.h: apply configs tuned with Tunescope at run time.
//
// Header-only, C++17, needs only the standard library and nlohmann_json (https://github.com/nlohmann/json).
// Load the deployment JSON written by `tunescope-cli export --format deploy` and ask which config to use for
// a kernel, a problem shape and a device. The answer says which rule chose it, in this order:
//
//   1. exact          an entry for this kernel tuned on this device at this shape
//   2. architecture   an entry for this kernel and shape tuned on another device of the same architecture
//                     (compute capability such as "sm_86", or CPU vendor and family)
//   3. nearest_shape  the entry of this kernel on this device whose shape is nearest in log space
//                     (Euclidean distance of the logarithms of the sizes; shapes of another rank never match)
//                     among those whose config satisfies the kernel's constraints at the asked shape (the
//                     entry's "constraints"); the entries passed over are listed in Answer::skipped
//   4. default        the kernel's default config, when the file has one
//   5. none           nothing applies
//
// Ties go to the entry with the lower measured time. See docs/runtime.md for an example.
#pragma once

#include "constraint_values.h" // beside this file

#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <istream>
#include <limits>
#include <locale>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

namespace tunescope {

enum class Rule { Exact, SameArchitecture, NearestShape, KernelDefault, None };

inline const char* ruleName(Rule rule) {
    switch (rule) {
    case Rule::Exact:
        return "exact";
    case Rule::SameArchitecture:
        return "architecture";
    case Rule::NearestShape:
        return "nearest_shape";
    case Rule::KernelDefault:
        return "default";
    case Rule::None:
        break;
    }
    return "none";
}

// ---------------------------------------------------------------------------------------------------------
// Constraints: the kernel's rules over its parameters and problem sizes ("K % VEC == 0", "MC <= max(M, 32)"),
// which a config tuned at one shape may break at another. The nearest_shape rule checks them at the asked
// shape. The grammar is the Python-like one of Tunescope's constraints without its lists and comprehensions:
// numbers (ints with _ and 0x, floats), strings, True/False, names (problem sizes first, then the entry's
// parameters), + - * / // % ** and unary + -, comparisons == != < <= > >= (chained: a <= b <= c), `in` and
// `not in` (a list display [x, y] or a string), and/or/not, `x if c else y`, parentheses, and the calls
// min(a, b, ...), max(a, b, ...), abs, int, float and bool. Arithmetic follows Python: ints are exact 64-bit
// (a float on overflow), / gives a float, // and % round toward negative infinity. Evaluation never throws
// and never recurses: a program is a list of stack-machine instructions whose stack depth is known.
// ---------------------------------------------------------------------------------------------------------

// The longest constraint text, the most constraints of one entry, the deepest nesting of brackets, calls and
// unary operators, and the most values a constraint holds on the evaluation stack, that load() accepts.
inline constexpr std::size_t kMaxConstraintLength = 4096;
inline constexpr std::size_t kMaxConstraintsPerEntry = 256;
inline constexpr int kMaxConstraintNesting = 100;
inline constexpr std::size_t kMaxConstraintStack = 256;

namespace constraint {

// Op, Cmp, Fn, Value and Python's arithmetic over values: constraint_values.h beside this file.

struct Instruction {
    Op op = Op::Int;
    std::uint8_t a = 0;
    std::int64_t i = 0;
    double d = 0.0;
    std::size_t s = 0;
};

// One compiled constraint. Names of problem sizes are resolved to their index at compile time.
struct Program {
    std::vector<Instruction> code;
    std::vector<std::string> strings;
    std::size_t stack = 0; // the most values it holds at once (an upper bound)
};

// Resolves the names that are not problem sizes: the entry's parameters. False when there is none of that
// name, or its value is not a number, a boolean or a string.
using ParamLookup = bool (*)(const void* context, std::string_view name, Value& out);

// Runs a program. Returns whether the constraint holds; false with `error` set (a static text) when it could
// not be evaluated at these values (a name that is not defined, a division by zero, a type error).
inline bool holds(const Program& program, const std::vector<std::int64_t>& shape, ParamLookup lookup,
                  const void* context, const char*& error) {
    error = nullptr;
    std::vector<Value> stack(program.stack + 1);
    return run(
        program.code.data(), program.code.size(), stack.data(), stack.size(), shape.data(), shape.size(),
        [&program](const Instruction& in) { return std::string_view(program.strings[in.s]); },
        [lookup, context](std::string_view name, Value& out) { return lookup(context, name, out); }, error);
}

// Compiles constraint text to a Program: a recursive-descent parser (Python's precedence) builds a tree in
// an arena, then a walk emits the instructions. Both recursions are bounded by kMaxConstraintNesting.
class Compiler {
public:
    // Throws std::runtime_error "<what> at column <n>" (or what limit it passes) when the text is not a
    // constraint of the grammar above, is longer than kMaxConstraintLength or nests deeper than
    // kMaxConstraintNesting.
    static Program compile(std::string_view text, const std::vector<std::string>& sizeNames) {
        Compiler compiler(text, sizeNames);
        return compiler.run();
    }

private:
    enum class Tok : std::uint8_t { Int, Float, Str, Name, Sym, End };
    struct Token {
        Tok kind = Tok::End;
        std::string text;
        std::int64_t i = 0;
        double d = 0.0;
        std::size_t column = 1;
    };
    enum class Kind : std::uint8_t {
        Int,
        Float,
        Str,
        Name,
        Unary,
        Binary,
        Compare,
        And,
        Or,
        Not,
        Call,
        IfElse,
        List
    };
    struct Node {
        Kind kind = Kind::Int;
        std::uint8_t op = 0; // Unary: Op; Call: Fn
        std::int64_t i = 0;
        double d = 0.0;
        std::string text;
        std::vector<std::size_t> children;
        std::vector<std::uint8_t> ops; // Binary: Op per link; Compare: Cmp per link
    };
    class Nesting {
    public:
        Nesting(Compiler& c, std::size_t column) : m_c(c) {
            if (++m_c.m_nesting > kMaxConstraintNesting)
                m_c.fail("it nests more than " + std::to_string(kMaxConstraintNesting) + " levels deep",
                         column);
        }
        ~Nesting() { --m_c.m_nesting; }
        Nesting(const Nesting&) = delete;
        Nesting& operator=(const Nesting&) = delete;

    private:
        Compiler& m_c;
    };

    Compiler(std::string_view text, const std::vector<std::string>& sizeNames)
        : m_text(text), m_sizes(sizeNames) {}

    [[noreturn]] void fail(const std::string& what, std::size_t column) const {
        throw std::runtime_error(what + " at column " + std::to_string(column));
    }
    [[noreturn]] void unexpected(const Token& t) const {
        if (t.kind == Tok::End)
            fail("unexpected end", t.column);
        fail("unexpected '" + t.text + "'", t.column);
    }

    static bool isDigit(char c) { return c >= '0' && c <= '9'; }
    static bool isNameStart(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
    static bool isNameChar(char c) { return isNameStart(c) || isDigit(c); }
    static bool isHex(char c) { return isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

    void number(Token& t, std::size_t& k) {
        const std::string_view s = m_text;
        const std::size_t start = k;
        bool isFloat = false;
        bool hex = false;
        if (s[k] == '0' && k + 1 < s.size() && (s[k + 1] == 'x' || s[k + 1] == 'X')) {
            hex = true;
            k += 2;
            while (k < s.size() && (isHex(s[k]) || s[k] == '_'))
                ++k;
        } else {
            while (k < s.size() && (isDigit(s[k]) || s[k] == '_'))
                ++k;
            if (k < s.size() && s[k] == '.') {
                isFloat = true;
                ++k;
                while (k < s.size() && (isDigit(s[k]) || s[k] == '_'))
                    ++k;
            }
            if (k < s.size() && (s[k] == 'e' || s[k] == 'E')) {
                std::size_t j = k + 1;
                if (j < s.size() && (s[j] == '+' || s[j] == '-'))
                    ++j;
                if (j < s.size() && isDigit(s[j])) {
                    isFloat = true;
                    for (k = j; k < s.size() && isDigit(s[k]);)
                        ++k;
                }
            }
        }
        if (k < s.size() && isNameChar(s[k]))
            fail(std::string("unexpected character '") + s[k] + "'", k + 1);
        t.text = std::string(s.substr(start, k - start));
        std::string digits;
        for (const char c : t.text)
            if (c != '_')
                digits += c;
        const char* first = digits.data() + (hex ? 2 : 0);
        const char* last = digits.data() + digits.size();
        if (!isFloat) {
            const auto result = std::from_chars(first, last, t.i, hex ? 16 : 10);
            if (first == last || result.ptr != last)
                fail("malformed number '" + t.text + "'", t.column);
            t.kind = Tok::Int;
            if (result.ec != std::errc::result_out_of_range)
                return;
            isFloat = true; // beyond 64 bits: its magnitude as a float
        }
        t.kind = Tok::Float;
        if (hex) {
            t.d = 0.0;
            for (const char* c = first; c != last; ++c)
                t.d = t.d * 16.0 + static_cast<double>(isDigit(*c) ? *c - '0' : (*c | 0x20) - 'a' + 10);
            return;
        }
        std::istringstream in(digits);
        in.imbue(std::locale::classic());
        in >> t.d;
        if (in.fail()) // out of double's range: C++ streams fail where Python gives inf or 0.0
            t.d = digits.find_first_of("eE") != std::string::npos &&
                          digits[digits.find_first_of("eE") + 1] == '-'
                      ? 0.0
                      : std::numeric_limits<double>::infinity();
    }

    void text(Token& t, std::size_t& k) {
        const std::string_view s = m_text;
        const char quote = s[k++];
        bool closed = false;
        while (k < s.size()) {
            const char c = s[k];
            if (c == quote) {
                closed = true;
                ++k;
                break;
            }
            if (c == '\\' && k + 1 < s.size()) {
                const char next = s[k + 1];
                if (next == 'n')
                    t.text += '\n';
                else if (next == 't')
                    t.text += '\t';
                else if (next == '\\' || next == '\'' || next == '"')
                    t.text += next;
                else
                    t.text += std::string{'\\', next};
                k += 2;
                continue;
            }
            t.text += c;
            ++k;
        }
        if (!closed)
            fail("unterminated string", t.column);
        t.kind = Tok::Str;
    }

    void tokenize() {
        const std::string_view s = m_text;
        for (std::size_t k = 0; k < s.size();) {
            const char c = s[k];
            if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
                ++k;
                continue;
            }
            Token t;
            t.column = k + 1;
            if (isDigit(c) || (c == '.' && k + 1 < s.size() && isDigit(s[k + 1]))) {
                number(t, k);
            } else if (isNameStart(c)) {
                const std::size_t start = k;
                while (k < s.size() && isNameChar(s[k]))
                    ++k;
                t.kind = Tok::Name;
                t.text = std::string(s.substr(start, k - start));
            } else if (c == '\'' || c == '"') {
                text(t, k);
            } else {
                static constexpr const char* kTwo[] = {"**", "//", "==", "!=", "<=", ">="};
                for (const char* two : kTwo)
                    if (s.substr(k, 2) == two)
                        t.text = two;
                if (t.text.empty()) {
                    if (std::string_view("+-*/%<>()[],").find(c) == std::string_view::npos)
                        fail(c >= 0x20 && c < 0x7f ? std::string("unexpected character '") + c + "'"
                                                   : "an unexpected byte",
                             t.column);
                    t.text = std::string(1, c);
                }
                t.kind = Tok::Sym;
                k += t.text.size();
            }
            m_tokens.push_back(std::move(t));
        }
        Token end;
        end.column = s.size() + 1;
        m_tokens.push_back(end);
    }

    const Token& peek() const { return m_tokens[m_pos]; }
    bool atSym(const char* sym) const { return peek().kind == Tok::Sym && peek().text == sym; }
    bool atWord(const char* word) const { return peek().kind == Tok::Name && peek().text == word; }
    void expectSym(const char* sym) {
        if (!atSym(sym))
            unexpected(peek());
        ++m_pos;
    }

    std::size_t add(Node node) {
        m_nodes.push_back(std::move(node));
        return m_nodes.size() - 1;
    }
    std::size_t wrap(Kind kind, std::size_t first) {
        Node node;
        node.kind = kind;
        node.children.push_back(first);
        return add(std::move(node));
    }

    std::size_t expression() {
        const std::size_t body = orTest();
        if (!atWord("if"))
            return body;
        const Nesting nesting(*this, peek().column);
        ++m_pos;
        const std::size_t condition = orTest();
        if (!atWord("else"))
            unexpected(peek());
        ++m_pos;
        const std::size_t orElse = expression();
        Node node;
        node.kind = Kind::IfElse;
        node.children = {body, condition, orElse};
        return add(std::move(node));
    }

    std::size_t orTest() { return chain(Kind::Or, "or", &Compiler::andTest); }
    std::size_t andTest() { return chain(Kind::And, "and", &Compiler::notTest); }
    std::size_t chain(Kind kind, const char* word, std::size_t (Compiler::*next)()) {
        const std::size_t first = (this->*next)();
        if (!atWord(word))
            return first;
        const std::size_t node = wrap(kind, first);
        while (atWord(word)) {
            ++m_pos;
            const std::size_t operand = (this->*next)();
            m_nodes[node].children.push_back(operand);
        }
        return node;
    }

    std::size_t notTest() {
        if (!atWord("not"))
            return comparison();
        const Nesting nesting(*this, peek().column);
        ++m_pos;
        return wrap(Kind::Not, notTest());
    }

    std::size_t comparison() {
        const std::size_t first = arith();
        std::size_t node = 0;
        bool chained = false;
        for (;;) {
            const Token& t = peek();
            Cmp cmp = Cmp::Eq;
            std::size_t width = 1;
            if (t.kind == Tok::Sym && (t.text == "==" || t.text == "!=" || t.text == "<" || t.text == "<=" ||
                                       t.text == ">" || t.text == ">=")) {
                cmp = t.text == "=="   ? Cmp::Eq
                      : t.text == "!=" ? Cmp::Ne
                      : t.text == "<"  ? Cmp::Lt
                      : t.text == "<=" ? Cmp::Le
                      : t.text == ">"  ? Cmp::Gt
                                       : Cmp::Ge;
            } else if (t.kind == Tok::Name && t.text == "in") {
                cmp = Cmp::In;
            } else if (t.kind == Tok::Name && t.text == "not" && m_tokens[m_pos + 1].kind == Tok::Name &&
                       m_tokens[m_pos + 1].text == "in") {
                cmp = Cmp::NotIn;
                width = 2;
            } else {
                break;
            }
            if (!chained) {
                node = wrap(Kind::Compare, first);
                chained = true;
            }
            if (!m_nodes[node].children.empty() && m_nodes[m_nodes[node].children.back()].kind == Kind::List)
                fail("a list display ends a comparison chain here", t.column);
            m_pos += width;
            const bool member = cmp == Cmp::In || cmp == Cmp::NotIn;
            const std::size_t operand = member && atSym("[") ? list() : arith();
            m_nodes[node].ops.push_back(static_cast<std::uint8_t>(cmp));
            m_nodes[node].children.push_back(operand);
        }
        return chained ? node : first;
    }

    std::size_t list() {
        const Nesting nesting(*this, peek().column);
        ++m_pos;
        Node node;
        node.kind = Kind::List;
        while (!atSym("]")) {
            node.children.push_back(expression());
            if (!atSym(","))
                break;
            ++m_pos;
        }
        expectSym("]");
        return add(std::move(node));
    }

    std::size_t binaryChain(std::size_t (Compiler::*next)(), const char* const* symbols, const Op* ops,
                            std::size_t count) {
        const std::size_t first = (this->*next)();
        std::size_t node = first;
        bool chained = false;
        for (;;) {
            std::size_t which = count;
            for (std::size_t k = 0; k < count; ++k)
                if (atSym(symbols[k]))
                    which = k;
            if (which == count)
                return node;
            ++m_pos;
            if (!chained) {
                node = wrap(Kind::Binary, first);
                chained = true;
            }
            const std::size_t operand = (this->*next)();
            m_nodes[node].ops.push_back(static_cast<std::uint8_t>(ops[which]));
            m_nodes[node].children.push_back(operand);
        }
    }
    std::size_t arith() {
        static constexpr const char* kSymbols[] = {"+", "-"};
        static constexpr Op kOps[] = {Op::Add, Op::Sub};
        return binaryChain(&Compiler::term, kSymbols, kOps, 2);
    }
    std::size_t term() {
        static constexpr const char* kSymbols[] = {"*", "/", "//", "%"};
        static constexpr Op kOps[] = {Op::Mul, Op::Div, Op::FloorDiv, Op::Mod};
        return binaryChain(&Compiler::factor, kSymbols, kOps, 4);
    }

    std::size_t factor() {
        if (!atSym("-") && !atSym("+"))
            return power();
        const Nesting nesting(*this, peek().column);
        const Op op = atSym("-") ? Op::Neg : Op::Pos;
        ++m_pos;
        const std::size_t node = wrap(Kind::Unary, factor());
        m_nodes[node].op = static_cast<std::uint8_t>(op);
        return node;
    }

    std::size_t power() {
        const std::size_t base = atom();
        if (!atSym("**"))
            return base;
        const Nesting nesting(*this, peek().column);
        ++m_pos;
        const std::size_t node = wrap(Kind::Binary, base);
        const std::size_t exponent = factor(); // right-associative; -x binds tighter on its right
        m_nodes[node].ops.push_back(static_cast<std::uint8_t>(Op::Pow));
        m_nodes[node].children.push_back(exponent);
        return node;
    }

    std::size_t atom() {
        const Token t = peek();
        Node node;
        if (t.kind == Tok::Int || t.kind == Tok::Float || t.kind == Tok::Str) {
            node.kind = t.kind == Tok::Int ? Kind::Int : t.kind == Tok::Float ? Kind::Float : Kind::Str;
            node.i = t.i;
            node.d = t.d;
            node.text = t.text;
            ++m_pos;
            return add(std::move(node));
        }
        if (t.kind == Tok::Sym && t.text == "(") {
            const Nesting nesting(*this, t.column);
            ++m_pos;
            const std::size_t inner = expression();
            expectSym(")");
            return inner;
        }
        if (t.kind == Tok::Sym && t.text == "[")
            fail("a list display is only read after `in` here", t.column);
        if (t.kind != Tok::Name)
            unexpected(t);
        if (t.text == "True" || t.text == "False") {
            node.kind = Kind::Int;
            node.i = t.text == "True" ? 1 : 0;
            ++m_pos;
            return add(std::move(node));
        }
        static constexpr const char* kKeywords[] = {"and",  "or",  "not", "in",     "if",
                                                    "else", "for", "is",  "lambda", "None"};
        for (const char* keyword : kKeywords)
            if (t.text == keyword)
                unexpected(t);
        ++m_pos;
        if (!atSym("(")) {
            node.kind = Kind::Name;
            node.text = t.text;
            return add(std::move(node));
        }
        return callOf(t);
    }

    std::size_t callOf(const Token& name) {
        static constexpr const char* kNames[] = {"min", "max", "abs", "int", "float", "bool"};
        std::size_t fn = 6;
        for (std::size_t k = 0; k < 6; ++k)
            if (name.text == kNames[k])
                fn = k;
        if (fn == 6)
            fail("the function \"" + name.text + "\" is not one of min, max, abs, int, float and bool",
                 name.column);
        const Nesting nesting(*this, peek().column);
        ++m_pos;
        Node node;
        node.kind = Kind::Call;
        node.op = static_cast<std::uint8_t>(fn);
        while (!atSym(")")) {
            node.children.push_back(expression());
            if (!atSym(","))
                break;
            ++m_pos;
        }
        expectSym(")");
        const bool minMax = fn <= 1;
        if (minMax ? node.children.size() < 2 : node.children.size() != 1)
            fail(name.text + (minMax ? "() takes two or more values here" : "() takes one value"),
                 name.column);
        return add(std::move(node));
    }

    void put(Op op, std::uint8_t a = 0, std::int64_t i = 0) {
        Instruction in;
        in.op = op;
        in.a = a;
        in.i = i;
        m_program.code.push_back(in);
    }
    std::size_t string(const std::string& text) {
        m_program.strings.push_back(text);
        return m_program.strings.size() - 1;
    }
    // Points the jump at `from` to the current end of the code.
    void land(std::size_t from) {
        m_program.code[from].i = static_cast<std::int64_t>(m_program.code.size() - from - 1);
    }

    void compileNode(std::size_t index) {
        const Node& node = m_nodes[index];
        switch (node.kind) {
        case Kind::Int:
            put(Op::Int, 0, node.i);
            break;
        case Kind::Float:
            put(Op::Float);
            m_program.code.back().d = node.d;
            break;
        case Kind::Str:
            put(Op::Str);
            m_program.code.back().s = string(node.text);
            break;
        case Kind::Name: {
            const auto size = std::find(m_sizes.begin(), m_sizes.end(), node.text);
            if (size != m_sizes.end()) {
                put(Op::Size, 0, static_cast<std::int64_t>(size - m_sizes.begin()));
            } else {
                put(Op::Param);
                m_program.code.back().s = string(node.text);
            }
            break;
        }
        case Kind::Unary:
        case Kind::Not:
            compileNode(node.children[0]);
            put(node.kind == Kind::Not ? Op::Not : static_cast<Op>(node.op));
            break;
        case Kind::Binary:
            compileNode(node.children[0]);
            for (std::size_t k = 0; k < node.ops.size(); ++k) {
                compileNode(node.children[k + 1]);
                put(static_cast<Op>(node.ops[k]));
            }
            break;
        case Kind::Compare:
            compileCompare(node);
            break;
        case Kind::And:
        case Kind::Or: {
            std::vector<std::size_t> jumps;
            compileNode(node.children[0]);
            for (std::size_t k = 1; k < node.children.size(); ++k) {
                jumps.push_back(m_program.code.size());
                put(node.kind == Kind::And ? Op::AndJump : Op::OrJump);
                compileNode(node.children[k]);
            }
            for (const std::size_t jump : jumps)
                land(jump);
            break;
        }
        case Kind::IfElse: {
            compileNode(node.children[1]);
            const std::size_t toElse = m_program.code.size();
            put(Op::JumpIfFalse);
            compileNode(node.children[0]);
            const std::size_t toEnd = m_program.code.size();
            put(Op::Jump);
            land(toElse);
            compileNode(node.children[2]);
            land(toEnd);
            break;
        }
        case Kind::Call:
            for (const std::size_t child : node.children)
                compileNode(child);
            put(Op::Call, node.op, static_cast<std::int64_t>(node.children.size()));
            break;
        case Kind::List:
            break; // only as the last operand of a comparison chain, compiled there
        }
    }

    void compileCompare(const Node& node) {
        std::vector<std::size_t> jumps;
        compileNode(node.children[0]);
        for (std::size_t k = 0; k < node.ops.size(); ++k) {
            const Node& operand = m_nodes[node.children[k + 1]];
            const bool last = k + 1 == node.ops.size();
            if (operand.kind == Kind::List) {
                put(Op::InBegin);
                for (const std::size_t element : operand.children) {
                    compileNode(element);
                    put(Op::InElement);
                }
                put(Op::InEnd, node.ops[k]);
                continue;
            }
            compileNode(node.children[k + 1]);
            if (!last)
                jumps.push_back(m_program.code.size());
            put(last ? Op::CompareLast : Op::Compare, node.ops[k]);
        }
        for (const std::size_t jump : jumps)
            land(jump);
    }

    // An upper bound of the stack depth: every instruction's effect, jumps taken as not taken.
    std::size_t stackBound() const {
        std::int64_t depth = 0;
        std::int64_t most = 0;
        for (const Instruction& in : m_program.code) {
            switch (in.op) {
            case Op::Int:
            case Op::Float:
            case Op::Str:
            case Op::Size:
            case Op::Param:
            case Op::InBegin:
                ++depth;
                break;
            case Op::Call:
                depth -= in.i - 1;
                break;
            case Op::Neg:
            case Op::Pos:
            case Op::Not:
            case Op::Jump:
                break;
            default:
                --depth;
            }
            most = std::max(most, depth);
        }
        return static_cast<std::size_t>(most);
    }

    Program run() {
        if (m_text.size() > kMaxConstraintLength)
            throw std::runtime_error("it is longer than " + std::to_string(kMaxConstraintLength) +
                                     " characters");
        tokenize();
        if (peek().kind == Tok::End)
            fail("the text is empty", 1);
        const std::size_t root = expression();
        if (peek().kind != Tok::End)
            unexpected(peek());
        compileNode(root);
        m_program.stack = stackBound();
        if (m_program.stack > kMaxConstraintStack)
            throw std::runtime_error("it holds more than " + std::to_string(kMaxConstraintStack) +
                                     " values at once while it is evaluated");
        return std::move(m_program);
    }

    std::string_view m_text;
    const std::vector<std::string>& m_sizes;
    std::vector<Token> m_tokens;
    std::size_t m_pos = 0;
    int m_nesting = 0;
    std::vector<Node> m_nodes;
    Program m_program;
};

} // namespace constraint

// One constraint of an entry: its text as written and its compiled program.
struct Constraint {
    std::string text;
    constraint::Program program;
};

// One tuned config: the best measured for a kernel at one shape on one device.
struct Entry {
    std::string kernel;
    std::vector<std::int64_t> shape;
    std::string device;
    std::string architecture;
    nlohmann::ordered_json config; // parameter name -> value
    double timeMs = 0.0;
    nlohmann::ordered_json record; // the whole entry as written (statistics, fingerprints, provenance)
    // The names of the problem sizes in the order of `shape` ("size_names"), and the rules a config must
    // satisfy at a shape ("constraints"); both empty in files written before Tunescope wrote them.
    std::vector<std::string> sizeNames;
    std::vector<Constraint> constraints;
};

// An entry the nearest_shape rule passed over: `constraint` is false at the asked shape, or, when `error` is
// set, could not be evaluated there (a name the config lacks, a division by zero, a type error).
struct Skipped {
    const Entry* entry = nullptr;
    std::string constraint;
    std::string error;
};

struct Query {
    std::string kernel;
    std::vector<std::int64_t> shape;
    std::string device;
    // Optional: when empty, the architecture the file records for `device` (if it has any entry for it).
    std::string architecture;
};

struct Answer {
    Rule rule = Rule::None;
    const Entry* entry = nullptr;  // the entry that answered; null for default and none
    nlohmann::ordered_json config; // empty object for none
    // Shape distance for nearest_shape (0 otherwise).
    double distance = 0.0;
    // The nearer entries that nearest_shape passed over because their config breaks a constraint of the
    // kernel at the asked shape, nearest first. Their presence with a default or none answer means no tuned
    // config fits that shape.
    std::vector<Skipped> skipped;

    bool found() const { return rule != Rule::None; }
    // True when the config was measured on other hardware than the one asked about: apply it, but expect
    // less than the tuned performance.
    bool fromOtherDevice() const { return rule == Rule::SameArchitecture; }
};

// A problem shape from JSON: a number, a list of numbers, or an object of named sizes (values in order).
inline std::vector<std::int64_t> shapeFromJson(const nlohmann::ordered_json& value) {
    std::vector<std::int64_t> shape;
    const auto add = [&shape](const nlohmann::ordered_json& item) {
        if (!item.is_number() || (item.is_number_float() && !(std::abs(item.get<double>()) < 9.0e18)))
            return false; // not a size: no rounding of NaN or 1e300 into an int64
        shape.push_back(item.is_number_integer()
                            ? item.get<std::int64_t>()
                            : static_cast<std::int64_t>(std::llround(item.get<double>())));
        return true;
    };
    if (value.is_number()) {
        add(value);
    } else if (value.is_array() || value.is_object()) {
        for (const auto& item : value)
            if (!add(item))
                return {};
    }
    return shape;
}

// Distance of two shapes in log space; infinity when their ranks differ or a size is not positive.
inline double shapeDistance(const std::vector<std::int64_t>& a, const std::vector<std::int64_t>& b) {
    if (a.size() != b.size() || a.empty())
        return std::numeric_limits<double>::infinity();
    double sum = 0.0;
    for (std::size_t i = 0; i < a.size(); ++i) {
        if (a[i] <= 0 || b[i] <= 0)
            return std::numeric_limits<double>::infinity();
        const double d = std::log(static_cast<double>(a[i])) - std::log(static_cast<double>(b[i]));
        sum += d * d;
    }
    return std::sqrt(sum);
}

// The deepest nesting of arrays and objects that Deployment::load accepts: deeper JSON would exhaust the
// stack in nlohmann's recursive copy and dump.
inline constexpr int kMaxJsonDepth = 512;
// The most keys of one object that Deployment::load accepts: ordered_json finds keys by a linear search, so
// an object of n keys takes n^2 / 2 comparisons to read (30 s for 100,000 keys).
inline constexpr std::size_t kMaxJsonObjectKeys = 10000;

// A device as Tunescope's records name it: `name` is an entry's "device", `architecture` its
// "architecture". Put both into a Query.
struct Device {
    std::string name;
    std::string architecture;
};

// One "key : value" line of /proc/cpuinfo, both trimmed; false for a line without a colon.
inline bool cpuinfoLine(const std::string& line, std::string& key, std::string& value) {
    const std::size_t colon = line.find(':');
    if (colon == std::string::npos)
        return false;
    key = line.substr(0, colon);
    key.erase(key.find_last_not_of(" \t") + 1);
    value = line.substr(colon + 1);
    value.erase(0, std::min(value.size(), value.find_first_not_of(" \t")));
    return true;
}

// The CPU described by /proc/cpuinfo text, named as the records name it: the first "model name" ("unknown
// CPU" when there is none) and "<vendor_id> family <cpu family>" (empty when both are missing).
inline Device cpuFromCpuinfo(std::istream& in) {
    std::string model;
    std::string vendor;
    std::string family;
    std::string key;
    std::string value;
    for (std::string line; std::getline(in, line);) {
        if (!cpuinfoLine(line, key, value))
            continue;
        std::string* field = key == "model name"   ? &model
                             : key == "vendor_id"  ? &vendor
                             : key == "cpu family" ? &family
                                                   : nullptr;
        if (field != nullptr && field->empty())
            *field = value;
    }
    Device device;
    device.name = model.empty() ? "unknown CPU" : model;
    if (!vendor.empty() || !family.empty())
        device.architecture = vendor + " family " + family;
    return device;
}

// This machine's CPU, as the records of a cpu session on it name it (read from /proc/cpuinfo; "unknown CPU"
// where that file is missing, as on systems other than Linux).
inline Device hostCpu() {
    std::ifstream in("/proc/cpuinfo");
    return cpuFromCpuinfo(in);
}

// A CUDA device as the records of a cuda session on it name it: pass cudaDeviceProp::name, ::major and
// ::minor (this header does not include CUDA). The architecture is "sm_<major><minor>", such as "sm_86".
inline Device cudaDevice(const char* name, int major, int minor) {
    Device device;
    device.name = name == nullptr ? "" : name;
    device.architecture = "sm_" + std::to_string(major) + std::to_string(minor);
    return device;
}

class Deployment {
public:
    // Throws std::runtime_error naming the key (such as "entries[2].device") when the JSON is not a
    // deployment file: every key documented in docs/runtime.md is checked for its type.
    static Deployment fromJson(const nlohmann::ordered_json& root) { return read(root, "the deployment"); }

    // Throws std::runtime_error naming the file, and the key or the limit, when the file cannot be read, is
    // not JSON, nests deeper than kMaxJsonDepth or is not a deployment file.
    static Deployment load(const std::string& path) {
        std::ifstream in(path);
        if (!in)
            throw std::runtime_error("cannot open the deployment file " + path);
        const std::string name = "the deployment file " + path;
        std::string topKey;
        std::vector<std::size_t> keys; // keys so far of each open object
        const auto refuse = [&](const std::string& what, std::size_t limit) {
            throw std::runtime_error(name + " has " + what +
                                     (topKey.empty() ? std::string() : " under \"" + topKey + "\"") +
                                     " (the limit is " + std::to_string(limit) + ")");
        };
        const auto guard = [&](int depth, nlohmann::ordered_json::parse_event_t event,
                               nlohmann::ordered_json& parsed) {
            using Event = nlohmann::ordered_json::parse_event_t;
            if (event == Event::object_start || event == Event::array_start) {
                if (depth >= kMaxJsonDepth)
                    refuse("arrays and objects nested more than " + std::to_string(kMaxJsonDepth) +
                               " levels deep",
                           kMaxJsonDepth);
                if (event == Event::object_start)
                    keys.push_back(0);
            } else if (event == Event::object_end) {
                keys.pop_back();
            } else if (event == Event::key) {
                if (depth == 1 && parsed.is_string())
                    topKey = parsed.get<std::string>();
                if (++keys.back() > kMaxJsonObjectKeys)
                    refuse("an object of more than " + std::to_string(kMaxJsonObjectKeys) + " keys",
                           kMaxJsonObjectKeys);
            }
            return true;
        };
        const nlohmann::ordered_json root = nlohmann::ordered_json::parse(in, guard, false);
        if (root.is_discarded())
            throw std::runtime_error(name + " is not valid JSON");
        return read(root, name);
    }

    const std::vector<Entry>& entries() const { return m_entries; }

    // The architecture recorded for a device name, or empty when the file has no entry for it.
    std::string architectureOf(const std::string& device) const {
        for (const Entry& entry : m_entries)
            if (entry.device == device && !entry.architecture.empty())
                return entry.architecture;
        return {};
    }

    Answer lookup(const Query& query) const {
        const std::string architecture =
            query.architecture.empty() ? architectureOf(query.device) : query.architecture;
        Answer answer;
        if (const Entry* exact = best(query.kernel, [&](const Entry& e) {
                return e.device == query.device && e.shape == query.shape;
            }))
            return found(Rule::Exact, exact);
        if (const Entry* sibling = best(query.kernel, [&](const Entry& e) {
                return !architecture.empty() && e.architecture == architecture && e.shape == query.shape;
            }))
            return found(Rule::SameArchitecture, sibling);
        std::vector<std::pair<double, const Entry*>> near;
        for (const Entry& entry : m_entries) {
            const double distance = shapeDistance(entry.shape, query.shape);
            if (entry.kernel == query.kernel && entry.device == query.device && std::isfinite(distance))
                near.emplace_back(distance, &entry);
        }
        std::stable_sort(near.begin(), near.end(), [](const auto& a, const auto& b) {
            return a.first < b.first || (a.first == b.first && a.second->timeMs < b.second->timeMs);
        });
        std::vector<Skipped> skipped;
        for (const auto& [distance, entry] : near) {
            Skipped why;
            if (!satisfies(*entry, query.shape, &why)) {
                skipped.push_back(std::move(why));
                continue;
            }
            answer = found(Rule::NearestShape, entry);
            answer.distance = distance;
            answer.skipped = std::move(skipped);
            return answer;
        }
        answer.skipped = std::move(skipped);
        if (const auto it = m_defaults.find(query.kernel); it != m_defaults.end()) {
            answer.rule = Rule::KernelDefault;
            answer.config = it->second;
            return answer;
        }
        answer.config = nlohmann::ordered_json::object();
        return answer;
    }

    // Whether the entry's config satisfies all its constraints at `shape` (its sizes in the order of the
    // entry's size names). When not, `why` (if given) names the first constraint that is false or cannot be
    // evaluated. An entry without constraints satisfies them everywhere.
    static bool satisfies(const Entry& entry, const std::vector<std::int64_t>& shape,
                          Skipped* why = nullptr) {
        const auto lookup = [](const void* context, std::string_view name, constraint::Value& out) {
            const Json& config = *static_cast<const Json*>(context);
            const auto it = config.find(std::string(name));
            if (it == config.end())
                return false;
            if (it->is_boolean())
                out = constraint::intValue(it->get<bool>() ? 1 : 0);
            else if (it->is_number_integer())
                out = it->is_number_unsigned() &&
                              it->get<std::uint64_t>() > static_cast<std::uint64_t>(constraint::kIntMax)
                          ? constraint::floatValue(it->get<double>())
                          : constraint::intValue(it->get<std::int64_t>());
            else if (it->is_number())
                out = constraint::floatValue(it->get<double>());
            else if (it->is_string())
                out = constraint::strValue(it->get_ref<const std::string&>());
            else
                return false;
            return true;
        };
        for (const Constraint& c : entry.constraints) {
            const char* error = nullptr;
            if (constraint::holds(c.program, shape, lookup, &entry.config, error))
                continue;
            if (why != nullptr) {
                why->entry = &entry;
                why->constraint = c.text;
                why->error = error == nullptr ? "" : error;
            }
            return false;
        }
        return true;
    }

private:
    using Json = nlohmann::ordered_json;

    [[noreturn]] static void fail(const std::string& name, const std::string& key, const char* problem) {
        throw std::runtime_error(name + " is invalid: \"" + key + "\" " + problem);
    }

    static std::string optionalString(const Json& item, const char* key, const std::string& name,
                                      const std::string& prefix) {
        const auto it = item.find(key);
        if (it == item.end() || it->is_null())
            return {};
        if (!it->is_string())
            fail(name, prefix + key, "is not a string");
        return it->get<std::string>();
    }

    // problem_size: a number, a list of numbers or an object of named sizes, each an integer size.
    static std::vector<std::int64_t> shapeOf(const Json& item, const std::string& name,
                                             const std::string& prefix) {
        const auto it = item.find("problem_size");
        if (it == item.end() || it->is_null())
            return {};
        const auto isSize = [](const Json& size) {
            return size.is_number_integer() ||
                   (size.is_number_float() && std::abs(size.get<double>()) < 9.0e18);
        };
        bool sizes = isSize(*it);
        if (it->is_array() || it->is_object()) {
            sizes = true;
            for (const Json& size : *it)
                sizes = sizes && isSize(size);
        }
        if (!sizes)
            fail(name, prefix + "problem_size", "is not a number, a list of numbers or an object of numbers");
        return shapeFromJson(*it);
    }

    static Entry entryOf(const Json& item, const std::string& name, const std::string& prefix) {
        if (!item.is_object())
            fail(name, prefix.substr(0, prefix.size() - 1), "is not an object");
        Entry entry;
        const auto kernel = item.find("kernel");
        if (kernel == item.end() || !kernel->is_string())
            fail(name, prefix + "kernel", "is missing or not a string");
        entry.kernel = kernel->get<std::string>();
        const auto config = item.find("config");
        if (config == item.end() || !config->is_object())
            fail(name, prefix + "config", "is missing or not an object");
        entry.config = *config;
        entry.shape = shapeOf(item, name, prefix);
        entry.device = optionalString(item, "device", name, prefix);
        entry.architecture = optionalString(item, "architecture", name, prefix);
        const auto time = item.find("time_ms");
        if (time != item.end() && !time->is_null() && !time->is_number())
            fail(name, prefix + "time_ms", "is not a number");
        entry.timeMs = time != item.end() && time->is_number() ? time->get<double>()
                                                               : std::numeric_limits<double>::infinity();
        entry.sizeNames = stringsOf(item, "size_names", kMaxJsonObjectKeys, name, prefix);
        for (std::string& text : stringsOf(item, "constraints", kMaxConstraintsPerEntry, name, prefix)) {
            const std::string key = prefix + "constraints[" + std::to_string(entry.constraints.size()) + "]";
            try {
                entry.constraints.push_back({text, constraint::Compiler::compile(text, entry.sizeNames)});
            } catch (const std::runtime_error& error) {
                throw std::runtime_error(name + " is invalid: \"" + key +
                                         "\" is not a constraint tunescope/runtime.h reads (" + error.what() +
                                         ")");
            }
        }
        entry.record = item;
        return entry;
    }

    // An optional list of at most `limit` strings.
    static std::vector<std::string> stringsOf(const Json& item, const char* key, std::size_t limit,
                                              const std::string& name, const std::string& prefix) {
        std::vector<std::string> strings;
        const auto it = item.find(key);
        if (it == item.end() || it->is_null())
            return strings;
        if (!it->is_array())
            fail(name, prefix + key, "is not a list of strings");
        if (it->size() > limit)
            throw std::runtime_error(name + " is invalid: \"" + prefix + key + "\" has more than " +
                                     std::to_string(limit) + " items");
        for (std::size_t i = 0; i < it->size(); ++i) {
            if (!(*it)[i].is_string())
                fail(name, prefix + key + "[" + std::to_string(i) + "]", "is not a string");
            strings.push_back((*it)[i].get<std::string>());
        }
        return strings;
    }

    static Deployment read(const Json& root, const std::string& name) {
        if (!root.is_object())
            throw std::runtime_error(name + " is not a Tunescope deployment file (it is not a JSON object)");
        const auto entries = root.find("entries");
        if (entries == root.end() || !entries->is_array())
            throw std::runtime_error(name +
                                     " is not a Tunescope deployment file (it has no \"entries\" list)");
        Deployment deployment;
        for (std::size_t i = 0; i < entries->size(); ++i)
            deployment.m_entries.push_back(
                entryOf((*entries)[i], name, "entries[" + std::to_string(i) + "]."));
        if (const auto defaults = root.find("defaults"); defaults != root.end() && !defaults->is_null()) {
            if (!defaults->is_object())
                fail(name, "defaults", "is not an object");
            for (const auto& [kernel, config] : defaults->items()) {
                if (!config.is_object())
                    fail(name, "defaults." + kernel, "is not an object");
                deployment.m_defaults[kernel] = config;
            }
        }
        return deployment;
    }

    template <typename Predicate> const Entry* best(const std::string& kernel, Predicate matches) const {
        const Entry* chosen = nullptr;
        for (const Entry& entry : m_entries)
            if (entry.kernel == kernel && matches(entry) &&
                (chosen == nullptr || entry.timeMs < chosen->timeMs))
                chosen = &entry;
        return chosen;
    }

    static Answer found(Rule rule, const Entry* entry) {
        Answer answer;
        answer.rule = rule;
        answer.entry = entry;
        answer.config = entry->config;
        return answer;
    }

    std::vector<Entry> m_entries;
    std::map<std::string, nlohmann::ordered_json> m_defaults;
};

} // namespace tunescope
