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
    ExpressionParser(std::string_view text, std::string_view role);

    std::unique_ptr<ExpressionNode> parse();

    // Names the parser accepts in call position.
    static bool isBuiltin(std::string_view name);

private:
    enum class TokenKind { Int, Float, String, Name, Symbol, End };
    struct Token {
        TokenKind kind = TokenKind::End;
        std::string text;
        int column = 1;
        std::int64_t intValue = 0;
        double floatValue = 0.0;
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
};

} // namespace ts
