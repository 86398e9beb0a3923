#pragma once

#include "space/ExpressionNode.h"

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace ts {

// Recursive-descent parser for the Python-like expression language, with Python's operator precedence.
// Throws Error naming the role ("constraint", "expression"), the text and the 1-based column.
class ExpressionParser {
public:
    // How deeply brackets, calls, unary operators, `not`, `**` and `if`-`else` may nest (Python's own parser
    // stops at 200 nested parentheses). Deeper text is an Error, which bounds the recursion of the parser and
    // of every walk over the tree it returns (evaluation, compilation, destruction).
    static constexpr int kMaxNesting = 200;

    ExpressionParser(std::string_view text, std::string_view role);

    std::unique_ptr<ExpressionNode> parse();

    // Names the parser accepts in call position.
    static bool isBuiltin(std::string_view name);

    // The text as messages quote it: whole when short, else its start and "...".
    static std::string excerpt(std::string_view text);

private:
    enum class TokenKind { Int, Float, String, Name, Symbol, End };
    struct Token {
        TokenKind kind = TokenKind::End;
        std::string text;
        int column = 1;
        std::int64_t intValue = 0;
        double floatValue = 0.0;
    };

    // Counts one nesting level for its lifetime; fails past kMaxNesting.
    class NestingGuard {
    public:
        NestingGuard(ExpressionParser& parser, int column);
        ~NestingGuard() { --m_parser.m_nesting; }
        NestingGuard(const NestingGuard&) = delete;
        NestingGuard& operator=(const NestingGuard&) = delete;

    private:
        ExpressionParser& m_parser;
    };

    void tokenize();
    [[noreturn]] void fail(const std::string& what, int column) const;
    [[noreturn]] void unexpected(const Token& token) const;

    const Token& peek() const { return m_tokens[m_pos]; }
    bool atSymbol(std::string_view symbol) const;
    bool atKeyword(std::string_view keyword) const;
    void expectSymbol(std::string_view symbol);
    void expectKeyword(std::string_view keyword);

    std::unique_ptr<ExpressionNode> parseExpression();
    std::unique_ptr<ExpressionNode> parseOr();
    std::unique_ptr<ExpressionNode> parseAnd();
    std::unique_ptr<ExpressionNode> parseNot();
    std::unique_ptr<ExpressionNode> parseComparison();
    std::unique_ptr<ExpressionNode> parseArith();
    std::unique_ptr<ExpressionNode> parseTerm();
    std::unique_ptr<ExpressionNode> parseFactor();
    std::unique_ptr<ExpressionNode> parsePower();
    std::unique_ptr<ExpressionNode> parseAtom();
    std::unique_ptr<ExpressionNode> parseListDisplay(int column);

    std::string m_text;
    std::string m_role;
    std::vector<Token> m_tokens;
    std::size_t m_pos = 0;
    int m_nesting = 0;
};

} // namespace ts
