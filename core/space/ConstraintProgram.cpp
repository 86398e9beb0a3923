#include "space/ConstraintProgram.h"

#include <algorithm>
#include <cmath>

namespace ts {

namespace {

template <typename Enum> std::uint8_t code(Enum e) {
    return static_cast<std::uint8_t>(e);
}

} // namespace

void ConstraintProgram::adjustDepth(int delta) {
    m_depth += delta;
    m_maxDepth = std::max(m_maxDepth, m_depth);
}

void ConstraintProgram::push(Step step, std::uint8_t op, std::uint32_t arg, PythonNumber constant) {
    m_code.push_back({step, op, arg, constant});
}

std::optional<ConstraintProgram> ConstraintProgram::compile(const ExpressionNode& root,
                                                            const SlotOf& slotOf) {
    ConstraintProgram program;
    if (!program.emit(root, slotOf) || program.m_maxDepth > kMaxStack) {
        return std::nullopt;
    }
    return program;
}

bool ConstraintProgram::emit(const ExpressionNode& node, const SlotOf& slotOf) {
    if (m_code.size() > kMaxInstructions) {
        return false; // `x in [...]` repeats x per element: huge programs are left to the interpreter
    }
    switch (node.kind) {
    case ExpressionNodeKind::Literal: {
        const auto& data = node.literal.data;
        if (const auto* b = std::get_if<bool>(&data)) {
            push(Step::Const, 0, 0, PythonNumber::fromInt(*b ? 1 : 0));
        } else if (const auto* i = std::get_if<std::int64_t>(&data)) {
            push(Step::Const, 0, 0, PythonNumber::fromInt(*i));
        } else if (const auto* d = std::get_if<double>(&data)) {
            push(Step::Const, 0, 0, PythonNumber::fromDouble(*d));
        } else {
            return false;
        }
        adjustDepth(1);
        return true;
    }
    case ExpressionNodeKind::Name: {
        const auto slot = slotOf(node.name);
        if (!slot) {
            return false;
        }
        push(Step::Slot, 0, *slot);
        adjustDepth(1);
        return true;
    }
    case ExpressionNodeKind::Unary:
        if (!emit(*node.children[0], slotOf)) {
            return false;
        }
        if (node.op == ExpressionOp::Neg) {
            push(Step::Neg);
        }
        return true;
    case ExpressionNodeKind::Binary: {
        if (!emit(*node.children[0], slotOf)) {
            return false;
        }
        for (std::size_t i = 0; i < node.ops.size(); ++i) {
            if (!emit(*node.children[i + 1], slotOf)) {
                return false;
            }
            push(Step::Binary, code(node.ops[i]));
            adjustDepth(-1);
        }
        return true;
    }
    case ExpressionNodeKind::Compare: {
        // a < b < c compiles as (a < b) and (b < c); b is pure, so evaluating it twice is harmless.
        std::vector<std::size_t> exits;
        const std::size_t count = node.comparisons.size();
        for (std::size_t i = 0; i < count; ++i) {
            const ExpressionCmp op = node.comparisons[i];
            const ExpressionNode& left = *node.children[i];
            const ExpressionNode& right = *node.children[i + 1];
            if (op == ExpressionCmp::In || op == ExpressionCmp::NotIn) {
                if (right.kind != ExpressionNodeKind::List || right.children.empty()) {
                    return false;
                }
                std::vector<std::size_t> found;
                for (std::size_t k = 0; k < right.children.size(); ++k) {
                    if (!emit(left, slotOf) || !emit(*right.children[k], slotOf)) {
                        return false;
                    }
                    push(Step::Compare, code(ExpressionCmp::Eq));
                    adjustDepth(-1);
                    if (k + 1 < right.children.size()) {
                        found.push_back(m_code.size());
                        push(Step::OrJump);
                        adjustDepth(-1);
                    }
                }
                for (const auto at : found) {
                    m_code[at].arg = static_cast<std::uint32_t>(m_code.size());
                }
                if (op == ExpressionCmp::NotIn) {
                    push(Step::Not);
                }
            } else {
                if (!emit(left, slotOf) || !emit(right, slotOf)) {
                    return false;
                }
                push(Step::Compare, code(op));
                adjustDepth(-1);
            }
            if (i + 1 < count) {
                exits.push_back(m_code.size());
                push(Step::AndJump);
                adjustDepth(-1);
            }
        }
        for (const auto at : exits) {
            m_code[at].arg = static_cast<std::uint32_t>(m_code.size());
        }
        return true;
    }
    case ExpressionNodeKind::And:
    case ExpressionNodeKind::Or: {
        const Step jump = node.kind == ExpressionNodeKind::And ? Step::AndJump : Step::OrJump;
        std::vector<std::size_t> exits;
        for (std::size_t i = 0; i < node.children.size(); ++i) {
            if (!emit(*node.children[i], slotOf)) {
                return false;
            }
            if (i + 1 < node.children.size()) {
                exits.push_back(m_code.size());
                push(jump);
                adjustDepth(-1);
            }
        }
        for (const auto at : exits) {
            m_code[at].arg = static_cast<std::uint32_t>(m_code.size());
        }
        return true;
    }
    case ExpressionNodeKind::Not:
        if (!emit(*node.children[0], slotOf)) {
            return false;
        }
        push(Step::Not);
        return true;
    case ExpressionNodeKind::IfElse: {
        if (!emit(*node.children[1], slotOf)) {
            return false;
        }
        const std::size_t toElse = m_code.size();
        push(Step::JumpIfFalse);
        adjustDepth(-1);
        if (!emit(*node.children[0], slotOf)) {
            return false;
        }
        const std::size_t toEnd = m_code.size();
        push(Step::Jump);
        adjustDepth(-1);
        m_code[toElse].arg = static_cast<std::uint32_t>(m_code.size());
        if (!emit(*node.children[2], slotOf)) {
            return false;
        }
        m_code[toEnd].arg = static_cast<std::uint32_t>(m_code.size());
        return true;
    }
    case ExpressionNodeKind::Call:
        return emitCall(node, slotOf);
    case ExpressionNodeKind::List:
    case ExpressionNodeKind::ListComp:
        return false;
    }
    return false;
}

bool ConstraintProgram::emitCall(const ExpressionNode& node, const SlotOf& slotOf) {
    const std::string& f = node.name;
    const auto* args = &node.children;
    Builtin builtin;
    if (f == "min" || f == "max") {
        builtin = f == "min" ? Builtin::Min : Builtin::Max;
        if (args->size() == 1 && (*args)[0]->kind == ExpressionNodeKind::List) {
            args = &(*args)[0]->children;
        }
        if (args->size() < 2) {
            return false;
        }
    } else {
        if (f == "abs") {
            builtin = Builtin::Abs;
        } else if (f == "int") {
            builtin = Builtin::Int;
        } else if (f == "float") {
            builtin = Builtin::Float;
        } else if (f == "round") {
            builtin = Builtin::Round;
        } else {
            return false;
        }
        if (args->size() != 1) {
            return false;
        }
    }
    for (const auto& arg : *args) {
        if (!emit(*arg, slotOf)) {
            return false;
        }
    }
    push(Step::Call, code(builtin), static_cast<std::uint32_t>(args->size()));
    adjustDepth(1 - static_cast<int>(args->size()));
    return true;
}

bool ConstraintProgram::call(Builtin builtin, PythonNumber* args, std::uint32_t count) {
    PythonNumber& result = args[0];
    switch (builtin) {
    case Builtin::Min:
    case Builtin::Max:
        for (std::uint32_t k = 1; k < count; ++k) {
            const bool better =
                builtin == Builtin::Min ? python::less(args[k], result) : python::less(result, args[k]);
            if (better) {
                result = args[k];
            }
        }
        return true;
    case Builtin::Abs:
        result = python::absolute(result);
        return true;
    case Builtin::Int:
    case Builtin::Round:
        if (!result.isInt) {
            const double d = builtin == Builtin::Int ? std::trunc(result.d) : std::nearbyint(result.d);
            if (!std::isfinite(d) || std::fabs(d) >= 9.2e18) {
                return false;
            }
            result = PythonNumber::fromInt(static_cast<std::int64_t>(d));
        }
        return true;
    case Builtin::Float:
        result = PythonNumber::fromDouble(result.asDouble());
        return true;
    }
    return false;
}

std::optional<bool> ConstraintProgram::test(const PythonNumber* slots) const {
    PythonNumber stack[kMaxStack];
    int top = -1;
    const std::size_t size = m_code.size();
    const Instruction* program = m_code.data();
    std::size_t pc = 0;
    while (pc < size) {
        const Instruction& in = program[pc++];
        switch (in.step) {
        case Step::Const:
            stack[++top] = in.constant;
            break;
        case Step::Slot:
            stack[++top] = slots[in.arg];
            break;
        case Step::Binary:
            if (!python::arithmetic(static_cast<ExpressionOp>(in.op), stack[top - 1], stack[top],
                                    stack[top - 1])) {
                return std::nullopt;
            }
            --top;
            break;
        case Step::Compare:
            stack[top - 1] = PythonNumber::fromInt(
                python::compare(static_cast<ExpressionCmp>(in.op), stack[top - 1], stack[top]) ? 1 : 0);
            --top;
            break;
        case Step::Neg:
            stack[top] = python::negate(stack[top]);
            break;
        case Step::Not:
            stack[top] = PythonNumber::fromInt(stack[top].truthy() ? 0 : 1);
            break;
        case Step::AndJump:
        case Step::OrJump:
            if (stack[top].truthy() == (in.step == Step::OrJump)) {
                pc = in.arg;
            } else {
                --top;
            }
            break;
        case Step::JumpIfFalse:
            if (!stack[top--].truthy()) {
                pc = in.arg;
            }
            break;
        case Step::Jump:
            pc = in.arg;
            break;
        case Step::Call:
            top -= static_cast<int>(in.arg) - 1;
            if (!call(static_cast<Builtin>(in.op), stack + top, in.arg)) {
                return std::nullopt;
            }
            break;
        }
    }
    return stack[0].truthy();
}

} // namespace ts
