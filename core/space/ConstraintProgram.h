#pragma once

#include "space/ExpressionNode.h"
#include "space/PythonNumber.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string_view>
#include <vector>

namespace ts {

// A constraint compiled to a flat postfix program over numbers, for enumerating large spaces: no tree walk,
// no name lookups, no allocation per config. Only the numeric subset of the language compiles (numbers,
// arithmetic, comparisons, and/or/not, if-else, min/max/abs/int/float/round, `in` a list literal); anything
// else (strings, lists, other builtins) makes compile() return nullopt and the caller falls back to
// Expression::test. Results match Expression::test; where the interpreter throws (division by zero, an
// infinite float to int), test() returns nullopt and the caller asks the interpreter for the message.
// compile() recurses over the tree, whose depth the parser bounds; test() is a loop with a bounded stack.
class ConstraintProgram {
public:
    // The slot of a name whose values are all numeric, nullopt when the name has no numeric slot.
    using SlotOf = std::function<std::optional<std::uint32_t>(std::string_view)>;

    static std::optional<ConstraintProgram> compile(const ExpressionNode& root, const SlotOf& slotOf);

    // slots[i] holds the current value of slot i. Nullopt where Python would raise.
    std::optional<bool> test(const PythonNumber* slots) const;

private:
    // Binary and Compare carry the language's operator (ExpressionOp, ExpressionCmp) in `op`; the jumps go
    // to instruction `arg` (AndJump and OrJump leave the deciding value, else pop it); Call applies a
    // Builtin to the top `arg` values.
    enum class Step : std::uint8_t {
        Const,
        Slot,
        Binary,
        Compare,
        Neg,
        Not,
        AndJump,
        OrJump,
        JumpIfFalse,
        Jump,
        Call
    };
    enum class Builtin : std::uint8_t { Min, Max, Abs, Int, Float, Round };
    struct Instruction {
        Step step = Step::Const;
        std::uint8_t op = 0;
        std::uint32_t arg = 0;
        PythonNumber constant;
    };

    static constexpr int kMaxStack = 64;
    static constexpr std::size_t kMaxInstructions = std::size_t{1} << 20;

    bool emit(const ExpressionNode& node, const SlotOf& slotOf);
    bool emitCall(const ExpressionNode& node, const SlotOf& slotOf);
    void push(Step step, std::uint8_t op = 0, std::uint32_t arg = 0, PythonNumber constant = {});
    static bool call(Builtin builtin, PythonNumber* args, std::uint32_t count);
    void adjustDepth(int delta);

    std::vector<Instruction> m_code;
    int m_depth = 0;
    int m_maxDepth = 0;
};

} // namespace ts
