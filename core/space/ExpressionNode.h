#pragma once

#include "runtime/tunescope/constraint_values.h"

#include <cstdint>
#include <memory>
#include <string>
#include <variant>
#include <vector>

namespace ts {

struct ExpressionValue;
using ExpressionList = std::vector<ExpressionValue>;

// A run-time value of the expression language: a Value plus lists (for value lists and comprehensions).
struct ExpressionValue {
    std::variant<bool, std::int64_t, double, std::string, ExpressionList> data;
};

enum class ExpressionNodeKind {
    Literal,
    Name,
    Unary,
    Binary,
    Compare,
    And,
    Or,
    Not,
    Call,
    List,
    ListComp,
    IfElse
};

// The operators are the deployment runtime's (tunescope/constraint_values.h), so that the parser, the
// evaluator, the compiled program and every generated header name them one way: Op's Neg and Pos (unary),
// Add to Pow (binary), Cmp (comparisons, `in` and `not in`).
using ExpressionOp = tunescope::constraint::Op;
using ExpressionCmp = tunescope::constraint::Cmp;

// One node of a parsed expression. Children by kind:
//   Unary: operand (op = Neg or Pos). Binary: a chain of operands applied left to right, ops has one op
//   fewer ("a - b + c" is one node, so a long flat sum is no deeper than a short one; `**` is right-
//   associative and nests). Compare: the chain's operands (comparisons has one fewer). And/Or: the operands.
//   Not: operand. Call: arguments (name = function). List: elements. ListComp: element, iterable[, filter]
//   (name = loop variable). IfElse: body, condition, orelse.
// The parser bounds the nesting (ExpressionParser::kMaxNesting), so recursive walks over a tree are bounded.
struct ExpressionNode {
    ExpressionNodeKind kind = ExpressionNodeKind::Literal;
    ExpressionOp op = ExpressionOp::Pos;
    ExpressionValue literal;
    std::string name;
    std::vector<ExpressionOp> ops;
    std::vector<ExpressionCmp> comparisons;
    std::vector<std::unique_ptr<ExpressionNode>> children;
    int column = 1;
};

} // namespace ts
