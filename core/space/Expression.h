#pragma once

#include "space/Value.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ts {

struct ExpressionNode;

// A parsed Python-like expression: constraints ("32 <= a * b <= 1024") and value lists
// ("[2**i for i in range(6)]"). Arithmetic follows Python: ints stay exact, `/` gives a float, `//` and `%`
// round toward negative infinity, comparisons chain, `and`/`or` short-circuit. Builtins: min, max, abs, int,
// float, len, list, range, sum, str, bool, round. A concrete value type; copies share the parsed tree.
class Expression {
public:
    // Returns the value of a free name, or nullopt when the name is unknown.
    using Lookup = std::function<std::optional<Value>(std::string_view)>;

    // Throws Error naming the role ("constraint"), the text and the column when the text does not parse or
    // nests deeper than ExpressionParser::kMaxNesting.
    static Expression parse(std::string_view text, std::string_view role = "expression");

    const std::string& text() const { return m_text; }
    // Free names in order of first appearance, excluding comprehension variables and called builtins.
    const std::vector<std::string>& variables() const { return m_variables; }

    // Throws Error for unknown names, type errors, division by zero, and list-valued results; the message
    // names the role, the text and the values of its free names.
    Value evaluate(const Lookup& lookup) const;
    // Python truthiness of the result. Throws like evaluate(): a division by zero is an error, as in Python,
    // not a false constraint (which would hide the mistake behind "no configuration satisfies").
    bool test(const Lookup& lookup) const;

    const ExpressionNode& root() const { return *m_root; }

private:
    std::string m_text;
    std::string m_role;
    std::shared_ptr<const ExpressionNode> m_root;
    std::vector<std::string> m_variables;
};

// Parses and evaluates a list-valued expression with no free names ("[1, 2] + list(range(32, 65, 32))").
// Throws Error when it does not parse, names anything, is not a list, is empty, or holds a nested list.
std::vector<Value> evaluateValueList(std::string_view text);

} // namespace ts
