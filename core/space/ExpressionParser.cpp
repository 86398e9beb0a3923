#include "space/ExpressionParser.h"

#include "util/Error.h"

#include <array>
#include <cctype>
#include <charconv>
#include <cstdlib>
#include <optional>

namespace ts {
namespace {

constexpr std::array<std::string_view, 12> kBuiltins = {"min",  "max",   "abs", "int", "float", "len",
                                                        "list", "range", "sum", "str", "bool",  "round"};
constexpr std::array<std::string_view, 12> kKeywords = {"and",  "or", "not",    "in",   "for",  "if",
                                                        "else", "is", "lambda", "None", "True", "False"};

bool isKeyword(std::string_view name) {
    for (const auto keyword : kKeywords) {
        if (keyword == name) {
            return true;
        }
    }
    return false;
}

std::unique_ptr<ExpressionNode> makeNode(ExpressionNodeKind kind, int column) {
    auto node = std::make_unique<ExpressionNode>();
    node->kind = kind;
    node->column = column;
    return node;
}

constexpr std::size_t kExcerptLength = 60;

// Appends "op right" to a left-associative chain, turning `left` into a Binary chain node when it is not one
// of this precedence level yet (`fresh` says whether `left` was built by this level's loop).
std::unique_ptr<ExpressionNode> extendChain(std::unique_ptr<ExpressionNode> left, bool fresh, ExpressionOp op,
                                            std::unique_ptr<ExpressionNode> right, int column) {
    if (!fresh) {
        auto node = makeNode(ExpressionNodeKind::Binary, column);
        node->children.push_back(std::move(left));
        left = std::move(node);
    }
    left->ops.push_back(op);
    left->children.push_back(std::move(right));
    return left;
}

} // namespace

ExpressionParser::ExpressionParser(std::string_view text, std::string_view role)
    : m_text(text), m_role(role) {}

bool ExpressionParser::isBuiltin(std::string_view name) {
    for (const auto builtin : kBuiltins) {
        if (builtin == name) {
            return true;
        }
    }
    return false;
}

std::string ExpressionParser::excerpt(std::string_view text) {
    if (text.size() <= kExcerptLength) {
        return std::string(text);
    }
    std::size_t cut = kExcerptLength;
    while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) {
        --cut; // never inside a UTF-8 sequence
    }
    return std::string(text.substr(0, cut)) + "...";
}

ExpressionParser::NestingGuard::NestingGuard(ExpressionParser& parser, int column) : m_parser(parser) {
    if (m_parser.m_nesting >= kMaxNesting) {
        m_parser.fail("it nests more than " + std::to_string(kMaxNesting) + " levels deep", column);
    }
    ++m_parser.m_nesting;
}

void ExpressionParser::fail(const std::string& what, int column) const {
    throw Error("Cannot parse " + m_role + " \"" + excerpt(m_text) + "\": " + what + " at column " +
                std::to_string(column) + ".");
}

void ExpressionParser::unexpected(const Token& token) const {
    if (token.kind == TokenKind::End) {
        fail("unexpected end", token.column);
    }
    fail("unexpected '" + token.text + "'", token.column);
}

void ExpressionParser::tokenize() {
    const std::string& s = m_text;
    std::size_t i = 0;
    const auto isDigit = [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; };
    const auto isNameStart = [](char c) {
        return std::isalpha(static_cast<unsigned char>(c)) != 0 || c == '_';
    };
    const auto isNameChar = [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
    };
    while (i < s.size()) {
        const char c = s[i];
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
            ++i;
            continue;
        }
        Token token;
        token.column = static_cast<int>(i) + 1;
        if (isDigit(c) || (c == '.' && i + 1 < s.size() && isDigit(s[i + 1]))) {
            const std::size_t start = i;
            bool isFloat = false;
            if (c == '0' && i + 1 < s.size() && (s[i + 1] == 'x' || s[i + 1] == 'X')) {
                i += 2;
                while (i < s.size() && (std::isxdigit(static_cast<unsigned char>(s[i])) || s[i] == '_')) {
                    ++i;
                }
            } else {
                while (i < s.size() && (isDigit(s[i]) || s[i] == '_')) {
                    ++i;
                }
                if (i < s.size() && s[i] == '.') {
                    isFloat = true;
                    ++i;
                    while (i < s.size() && (isDigit(s[i]) || s[i] == '_')) {
                        ++i;
                    }
                }
                if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
                    std::size_t j = i + 1;
                    if (j < s.size() && (s[j] == '+' || s[j] == '-')) {
                        ++j;
                    }
                    if (j < s.size() && isDigit(s[j])) {
                        isFloat = true;
                        i = j;
                        while (i < s.size() && isDigit(s[i])) {
                            ++i;
                        }
                    }
                }
            }
            if (i < s.size() && isNameChar(s[i])) {
                fail("unexpected character '" + std::string(1, s[i]) + "'", static_cast<int>(i) + 1);
            }
            token.text = s.substr(start, i - start);
            std::string digits;
            for (const char d : token.text) {
                if (d != '_') {
                    digits += d;
                }
            }
            if (isFloat) {
                token.kind = TokenKind::Float;
                token.floatValue = std::strtod(digits.c_str(), nullptr);
            } else {
                const bool hex = digits.size() > 1 && (digits[1] == 'x' || digits[1] == 'X');
                const char* first = digits.data() + (hex ? 2 : 0);
                const char* last = digits.data() + digits.size();
                const auto result = std::from_chars(first, last, token.intValue, hex ? 16 : 10);
                if (first == last || result.ptr != last) {
                    fail("malformed number '" + token.text + "'", token.column);
                }
                if (result.ec == std::errc::result_out_of_range) {
                    // Beyond 64 bits: keep the magnitude as a float rather than fail.
                    token.kind = TokenKind::Float;
                    token.floatValue = std::strtod(digits.c_str(), nullptr);
                } else {
                    token.kind = TokenKind::Int;
                }
            }
        } else if (isNameStart(c)) {
            const std::size_t start = i;
            while (i < s.size() && isNameChar(s[i])) {
                ++i;
            }
            token.kind = TokenKind::Name;
            token.text = s.substr(start, i - start);
        } else if (c == '\'' || c == '"') {
            ++i;
            std::string value;
            bool closed = false;
            while (i < s.size()) {
                const char ch = s[i];
                if (ch == c) {
                    closed = true;
                    ++i;
                    break;
                }
                if (ch == '\\' && i + 1 < s.size()) {
                    const char next = s[i + 1];
                    switch (next) {
                    case 'n':
                        value += '\n';
                        break;
                    case 't':
                        value += '\t';
                        break;
                    case '\\':
                    case '\'':
                    case '"':
                        value += next;
                        break;
                    default:
                        value += '\\';
                        value += next;
                        break;
                    }
                    i += 2;
                    continue;
                }
                value += ch;
                ++i;
            }
            if (!closed) {
                fail("unterminated string", token.column);
            }
            token.kind = TokenKind::String;
            token.text = std::move(value);
        } else {
            static constexpr std::array<std::string_view, 6> kTwoChar = {"**", "//", "==", "!=", "<=", ">="};
            static constexpr std::string_view kOneChar = "+-*/%<>()[],";
            token.kind = TokenKind::Symbol;
            for (const auto symbol : kTwoChar) {
                if (s.compare(i, 2, symbol) == 0) {
                    token.text = std::string(symbol);
                    break;
                }
            }
            if (token.text.empty()) {
                if (kOneChar.find(c) == std::string_view::npos) {
                    fail("unexpected character '" + std::string(1, c) + "'", token.column);
                }
                token.text = std::string(1, c);
            }
            i += token.text.size();
        }
        m_tokens.push_back(std::move(token));
    }
    Token end;
    end.kind = TokenKind::End;
    end.column = static_cast<int>(s.size()) + 1;
    m_tokens.push_back(end);
}

bool ExpressionParser::atSymbol(std::string_view symbol) const {
    return peek().kind == TokenKind::Symbol && peek().text == symbol;
}

bool ExpressionParser::atKeyword(std::string_view keyword) const {
    return peek().kind == TokenKind::Name && peek().text == keyword;
}

void ExpressionParser::expectSymbol(std::string_view symbol) {
    if (!atSymbol(symbol)) {
        unexpected(peek());
    }
    ++m_pos;
}

void ExpressionParser::expectKeyword(std::string_view keyword) {
    if (!atKeyword(keyword)) {
        unexpected(peek());
    }
    ++m_pos;
}

std::unique_ptr<ExpressionNode> ExpressionParser::parse() {
    tokenize();
    if (peek().kind == TokenKind::End) {
        fail("the text is empty", 1);
    }
    auto root = parseExpression();
    if (peek().kind != TokenKind::End) {
        unexpected(peek());
    }
    return root;
}

std::unique_ptr<ExpressionNode> ExpressionParser::parseExpression() {
    auto body = parseOr();
    if (!atKeyword("if")) {
        return body;
    }
    auto node = makeNode(ExpressionNodeKind::IfElse, peek().column);
    ++m_pos;
    auto condition = parseOr();
    expectKeyword("else");
    const NestingGuard nesting(*this, peek().column);
    auto orElse = parseExpression();
    node->children.push_back(std::move(body));
    node->children.push_back(std::move(condition));
    node->children.push_back(std::move(orElse));
    return node;
}

std::unique_ptr<ExpressionNode> ExpressionParser::parseOr() {
    auto first = parseAnd();
    if (!atKeyword("or")) {
        return first;
    }
    auto node = makeNode(ExpressionNodeKind::Or, first->column);
    node->children.push_back(std::move(first));
    while (atKeyword("or")) {
        ++m_pos;
        node->children.push_back(parseAnd());
    }
    return node;
}

std::unique_ptr<ExpressionNode> ExpressionParser::parseAnd() {
    auto first = parseNot();
    if (!atKeyword("and")) {
        return first;
    }
    auto node = makeNode(ExpressionNodeKind::And, first->column);
    node->children.push_back(std::move(first));
    while (atKeyword("and")) {
        ++m_pos;
        node->children.push_back(parseNot());
    }
    return node;
}

std::unique_ptr<ExpressionNode> ExpressionParser::parseNot() {
    if (atKeyword("not")) {
        auto node = makeNode(ExpressionNodeKind::Not, peek().column);
        const NestingGuard nesting(*this, peek().column);
        ++m_pos;
        node->children.push_back(parseNot());
        return node;
    }
    return parseComparison();
}

std::unique_ptr<ExpressionNode> ExpressionParser::parseComparison() {
    auto first = parseArith();
    std::unique_ptr<ExpressionNode> node;
    while (true) {
        std::optional<ExpressionCmp> op;
        std::size_t width = 1;
        const Token& token = peek();
        if (token.kind == TokenKind::Symbol) {
            if (token.text == "==") {
                op = ExpressionCmp::Eq;
            } else if (token.text == "!=") {
                op = ExpressionCmp::Ne;
            } else if (token.text == "<") {
                op = ExpressionCmp::Lt;
            } else if (token.text == "<=") {
                op = ExpressionCmp::Le;
            } else if (token.text == ">") {
                op = ExpressionCmp::Gt;
            } else if (token.text == ">=") {
                op = ExpressionCmp::Ge;
            }
        } else if (token.kind == TokenKind::Name) {
            if (token.text == "in") {
                op = ExpressionCmp::In;
            } else if (token.text == "not" && m_tokens[m_pos + 1].kind == TokenKind::Name &&
                       m_tokens[m_pos + 1].text == "in") {
                op = ExpressionCmp::NotIn;
                width = 2;
            }
        }
        if (!op) {
            break;
        }
        if (!node) {
            node = makeNode(ExpressionNodeKind::Compare, first->column);
            node->children.push_back(std::move(first));
        }
        m_pos += width;
        node->comparisons.push_back(*op);
        node->children.push_back(parseArith());
    }
    return node ? std::move(node) : std::move(first);
}

std::unique_ptr<ExpressionNode> ExpressionParser::parseArith() {
    auto left = parseTerm();
    bool fresh = false;
    while (atSymbol("+") || atSymbol("-")) {
        const ExpressionOp op = peek().text == "+" ? ExpressionOp::Add : ExpressionOp::Sub;
        const int column = peek().column;
        ++m_pos;
        left = extendChain(std::move(left), fresh, op, parseTerm(), column);
        fresh = true;
    }
    return left;
}

std::unique_ptr<ExpressionNode> ExpressionParser::parseTerm() {
    auto left = parseFactor();
    bool fresh = false;
    while (true) {
        std::optional<ExpressionOp> op;
        if (atSymbol("*")) {
            op = ExpressionOp::Mul;
        } else if (atSymbol("/")) {
            op = ExpressionOp::Div;
        } else if (atSymbol("//")) {
            op = ExpressionOp::FloorDiv;
        } else if (atSymbol("%")) {
            op = ExpressionOp::Mod;
        } else {
            break;
        }
        const int column = peek().column;
        ++m_pos;
        left = extendChain(std::move(left), fresh, *op, parseFactor(), column);
        fresh = true;
    }
    return left;
}

std::unique_ptr<ExpressionNode> ExpressionParser::parseFactor() {
    if (atSymbol("-") || atSymbol("+")) {
        auto node = makeNode(ExpressionNodeKind::Unary, peek().column);
        node->op = peek().text == "-" ? ExpressionOp::Neg : ExpressionOp::Pos;
        const NestingGuard nesting(*this, peek().column);
        ++m_pos;
        node->children.push_back(parseFactor());
        return node;
    }
    return parsePower();
}

std::unique_ptr<ExpressionNode> ExpressionParser::parsePower() {
    auto base = parseAtom();
    if (atSymbol("**")) {
        const int column = peek().column;
        const NestingGuard nesting(*this, column);
        ++m_pos;
        // Right-associative, and binds tighter than a unary minus on its left but not on its right.
        return extendChain(std::move(base), false, ExpressionOp::Pow, parseFactor(), column);
    }
    return base;
}

std::unique_ptr<ExpressionNode> ExpressionParser::parseAtom() {
    const Token& token = peek();
    switch (token.kind) {
    case TokenKind::Int: {
        auto node = makeNode(ExpressionNodeKind::Literal, token.column);
        node->literal.data = token.intValue;
        ++m_pos;
        return node;
    }
    case TokenKind::Float: {
        auto node = makeNode(ExpressionNodeKind::Literal, token.column);
        node->literal.data = token.floatValue;
        ++m_pos;
        return node;
    }
    case TokenKind::String: {
        auto node = makeNode(ExpressionNodeKind::Literal, token.column);
        node->literal.data = token.text;
        ++m_pos;
        return node;
    }
    case TokenKind::Name: {
        if (token.text == "True" || token.text == "False") {
            auto node = makeNode(ExpressionNodeKind::Literal, token.column);
            node->literal.data = token.text == "True";
            ++m_pos;
            return node;
        }
        if (isKeyword(token.text)) {
            unexpected(token);
        }
        const Token nameToken = token;
        ++m_pos;
        if (!atSymbol("(")) {
            auto node = makeNode(ExpressionNodeKind::Name, nameToken.column);
            node->name = nameToken.text;
            return node;
        }
        if (!isBuiltin(nameToken.text)) {
            fail("unknown function \"" + nameToken.text + "\"", nameToken.column);
        }
        auto node = makeNode(ExpressionNodeKind::Call, nameToken.column);
        node->name = nameToken.text;
        const NestingGuard nesting(*this, peek().column);
        ++m_pos;
        while (!atSymbol(")")) {
            node->children.push_back(parseExpression());
            if (!atSymbol(",")) {
                break;
            }
            ++m_pos;
        }
        expectSymbol(")");
        return node;
    }
    case TokenKind::Symbol:
        if (token.text == "(") {
            const NestingGuard nesting(*this, token.column);
            ++m_pos;
            auto inner = parseExpression();
            expectSymbol(")");
            return inner;
        }
        if (token.text == "[") {
            const int column = token.column;
            const NestingGuard nesting(*this, column);
            ++m_pos;
            return parseListDisplay(column);
        }
        unexpected(token);
    case TokenKind::End:
        break;
    }
    unexpected(token);
}

std::unique_ptr<ExpressionNode> ExpressionParser::parseListDisplay(int column) {
    auto node = makeNode(ExpressionNodeKind::List, column);
    if (atSymbol("]")) {
        ++m_pos;
        return node;
    }
    auto first = parseExpression();
    if (atKeyword("for")) {
        ++m_pos;
        const Token& variable = peek();
        if (variable.kind != TokenKind::Name || isKeyword(variable.text)) {
            unexpected(variable);
        }
        node->kind = ExpressionNodeKind::ListComp;
        node->name = variable.text;
        ++m_pos;
        expectKeyword("in");
        node->children.push_back(std::move(first));
        node->children.push_back(parseOr());
        if (atKeyword("if")) {
            auto filter = makeNode(ExpressionNodeKind::And, peek().column);
            while (atKeyword("if")) {
                ++m_pos;
                filter->children.push_back(parseOr());
            }
            if (filter->children.size() == 1) {
                node->children.push_back(std::move(filter->children.front()));
            } else {
                node->children.push_back(std::move(filter));
            }
        }
        expectSymbol("]");
        return node;
    }
    node->children.push_back(std::move(first));
    while (atSymbol(",")) {
        ++m_pos;
        if (atSymbol("]")) {
            break;
        }
        node->children.push_back(parseExpression());
    }
    expectSymbol("]");
    return node;
}

} // namespace ts
