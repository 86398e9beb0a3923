#include "space/ConstraintProgram.h"

#include <algorithm>
#include <cmath>

namespace ts {

void ConstraintProgram::adjustDepth(int delta) {
    m_depth += delta;
    m_maxDepth = std::max(m_maxDepth, m_depth);
}

void ConstraintProgram::push(OpCode code, std::uint32_t arg, PythonNumber constant) {
    m_code.push_back({code, arg, constant});
}

std::optional<ConstraintProgram::OpCode> ConstraintProgram::binaryCode(ExpressionOp op) {
    switch (op) {
    case ExpressionOp::Add:
        return OpCode::Add;
    case ExpressionOp::Sub:
        return OpCode::Sub;
    case ExpressionOp::Mul:
        return OpCode::Mul;
    case ExpressionOp::Div:
        return OpCode::Div;
    case ExpressionOp::FloorDiv:
        return OpCode::FloorDiv;
    case ExpressionOp::Mod:
        return OpCode::Mod;
    case ExpressionOp::Pow:
        return OpCode::Pow;
    default:
        return std::nullopt;
    }
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
            push(OpCode::Const, 0, PythonNumber::fromInt(*b ? 1 : 0));
        } else if (const auto* i = std::get_if<std::int64_t>(&data)) {
            push(OpCode::Const, 0, PythonNumber::fromInt(*i));
        } else if (const auto* d = std::get_if<double>(&data)) {
            push(OpCode::Const, 0, PythonNumber::fromDouble(*d));
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
        push(OpCode::Slot, *slot);
        adjustDepth(1);
        return true;
    }
    case ExpressionNodeKind::Unary:
        if (!emit(*node.children[0], slotOf)) {
            return false;
        }
        if (node.op == ExpressionOp::Neg) {
            push(OpCode::Neg);
        }
        return true;
    case ExpressionNodeKind::Binary: {
        if (!emit(*node.children[0], slotOf)) {
            return false;
        }
        for (std::size_t i = 0; i < node.ops.size(); ++i) {
            const auto code = binaryCode(node.ops[i]);
            if (!code || !emit(*node.children[i + 1], slotOf)) {
                return false;
            }
            push(*code);
            adjustDepth(-1);
        }
        return true;
    }
    case ExpressionNodeKind::Compare: {
        // a < b < c compiles as (a < b) and (b < c); b is pure, so evaluating it twice is harmless.
        std::vector<std::size_t> exits;
        const std::size_t count = node.ops.size();
        for (std::size_t i = 0; i < count; ++i) {
            const ExpressionOp op = node.ops[i];
            const ExpressionNode& left = *node.children[i];
            const ExpressionNode& right = *node.children[i + 1];
            if (op == ExpressionOp::In || op == ExpressionOp::NotIn) {
                if (right.kind != ExpressionNodeKind::List || right.children.empty()) {
                    return false;
                }
                std::vector<std::size_t> found;
                for (std::size_t k = 0; k < right.children.size(); ++k) {
                    if (!emit(left, slotOf) || !emit(*right.children[k], slotOf)) {
                        return false;
                    }
                    push(OpCode::Eq);
                    adjustDepth(-1);
                    if (k + 1 < right.children.size()) {
                        found.push_back(m_code.size());
                        push(OpCode::JumpIfTrueOrPop);
                        adjustDepth(-1);
                    }
                }
                for (const auto at : found) {
                    m_code[at].arg = static_cast<std::uint32_t>(m_code.size());
                }
                if (op == ExpressionOp::NotIn) {
                    push(OpCode::Not);
                }
            } else {
                if (!emit(left, slotOf) || !emit(right, slotOf)) {
                    return false;
                }
                static constexpr OpCode kCodes[] = {OpCode::Eq, OpCode::Ne, OpCode::Lt,
                                                    OpCode::Le, OpCode::Gt, OpCode::Ge};
                push(kCodes[static_cast<int>(op) - static_cast<int>(ExpressionOp::Eq)]);
                adjustDepth(-1);
            }
            if (i + 1 < count) {
                exits.push_back(m_code.size());
                push(OpCode::JumpIfFalseOrPop);
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
        const OpCode jump =
            node.kind == ExpressionNodeKind::And ? OpCode::JumpIfFalseOrPop : OpCode::JumpIfTrueOrPop;
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
        push(OpCode::Not);
        return true;
    case ExpressionNodeKind::IfElse: {
        if (!emit(*node.children[1], slotOf)) {
            return false;
        }
        const std::size_t toElse = m_code.size();
        push(OpCode::JumpIfFalse);
        adjustDepth(-1);
        if (!emit(*node.children[0], slotOf)) {
            return false;
        }
        const std::size_t toEnd = m_code.size();
        push(OpCode::Jump);
        adjustDepth(-1);
        m_code[toElse].arg = static_cast<std::uint32_t>(m_code.size());
        if (!emit(*node.children[2], slotOf)) {
            return false;
        }
        m_code[toEnd].arg = static_cast<std::uint32_t>(m_code.size());
        return true;
    }
    case ExpressionNodeKind::Call: {
        const std::string& f = node.name;
        if (f == "min" || f == "max") {
            const auto* args = &node.children;
            if (args->size() == 1 && (*args)[0]->kind == ExpressionNodeKind::List) {
                args = &(*args)[0]->children;
            }
            if (args->size() < 2) {
                return false;
            }
            for (const auto& arg : *args) {
                if (!emit(*arg, slotOf)) {
                    return false;
                }
            }
            push(f == "min" ? OpCode::Min : OpCode::Max, static_cast<std::uint32_t>(args->size()));
            adjustDepth(1 - static_cast<int>(args->size()));
            return true;
        }
        OpCode code;
        if (f == "abs") {
            code = OpCode::Abs;
        } else if (f == "int") {
            code = OpCode::ToInt;
        } else if (f == "float") {
            code = OpCode::ToFloat;
        } else if (f == "round") {
            code = OpCode::Round;
        } else {
            return false;
        }
        if (node.children.size() != 1 || !emit(*node.children[0], slotOf)) {
            return false;
        }
        push(code);
        return true;
    }
    case ExpressionNodeKind::List:
    case ExpressionNodeKind::ListComp:
        return false;
    }
    return false;
}

std::optional<bool> ConstraintProgram::test(const PythonNumber* slots) const {
    PythonNumber stack[kMaxStack];
    int top = -1;
    const std::size_t size = m_code.size();
    const Instruction* code = m_code.data();
    std::size_t pc = 0;
    const auto boolean = [](bool value) { return PythonNumber::fromInt(value ? 1 : 0); };
    while (pc < size) {
        const Instruction& in = code[pc++];
        switch (in.code) {
        case OpCode::Const:
            stack[++top] = in.constant;
            break;
        case OpCode::Slot:
            stack[++top] = slots[in.arg];
            break;
        case OpCode::Add:
            stack[top - 1] = python::add(stack[top - 1], stack[top]);
            --top;
            break;
        case OpCode::Sub:
            stack[top - 1] = python::sub(stack[top - 1], stack[top]);
            --top;
            break;
        case OpCode::Mul:
            stack[top - 1] = python::mul(stack[top - 1], stack[top]);
            --top;
            break;
        case OpCode::Div:
            if (!python::trueDiv(stack[top - 1], stack[top], stack[top - 1])) {
                return std::nullopt;
            }
            --top;
            break;
        case OpCode::FloorDiv:
            if (!python::floorDiv(stack[top - 1], stack[top], stack[top - 1])) {
                return std::nullopt;
            }
            --top;
            break;
        case OpCode::Mod:
            if (!python::mod(stack[top - 1], stack[top], stack[top - 1])) {
                return std::nullopt;
            }
            --top;
            break;
        case OpCode::Pow:
            if (!python::pow(stack[top - 1], stack[top], stack[top - 1])) {
                return std::nullopt;
            }
            --top;
            break;
        case OpCode::Neg:
            stack[top] = python::negate(stack[top]);
            break;
        case OpCode::Not:
            stack[top] = boolean(!stack[top].truthy());
            break;
        case OpCode::Eq:
            stack[top - 1] = boolean(python::equal(stack[top - 1], stack[top]));
            --top;
            break;
        case OpCode::Ne:
            stack[top - 1] = boolean(!python::equal(stack[top - 1], stack[top]));
            --top;
            break;
        case OpCode::Lt:
            stack[top - 1] = boolean(python::less(stack[top - 1], stack[top]));
            --top;
            break;
        case OpCode::Le:
            stack[top - 1] = boolean(python::lessEqual(stack[top - 1], stack[top]));
            --top;
            break;
        case OpCode::Gt:
            stack[top - 1] = boolean(python::less(stack[top], stack[top - 1]));
            --top;
            break;
        case OpCode::Ge:
            stack[top - 1] = boolean(python::lessEqual(stack[top], stack[top - 1]));
            --top;
            break;
        case OpCode::JumpIfFalseOrPop:
            if (!stack[top].truthy()) {
                pc = in.arg;
            } else {
                --top;
            }
            break;
        case OpCode::JumpIfTrueOrPop:
            if (stack[top].truthy()) {
                pc = in.arg;
            } else {
                --top;
            }
            break;
        case OpCode::JumpIfFalse:
            if (!stack[top--].truthy()) {
                pc = in.arg;
            }
            break;
        case OpCode::Jump:
            pc = in.arg;
            break;
        case OpCode::Min:
        case OpCode::Max: {
            const int first = top - static_cast<int>(in.arg) + 1;
            PythonNumber best = stack[first];
            for (int k = first + 1; k <= top; ++k) {
                const bool better =
                    in.code == OpCode::Min ? python::less(stack[k], best) : python::less(best, stack[k]);
                if (better) {
                    best = stack[k];
                }
            }
            top = first;
            stack[top] = best;
            break;
        }
        case OpCode::Abs:
            stack[top] = python::absolute(stack[top]);
            break;
        case OpCode::ToInt:
        case OpCode::Round:
            if (!stack[top].isInt) {
                const double d =
                    in.code == OpCode::ToInt ? std::trunc(stack[top].d) : std::nearbyint(stack[top].d);
                if (!std::isfinite(d) || std::fabs(d) >= 9.2e18) {
                    return std::nullopt;
                }
                stack[top] = PythonNumber::fromInt(static_cast<std::int64_t>(d));
            }
            break;
        case OpCode::ToFloat:
            stack[top] = PythonNumber::fromDouble(stack[top].asDouble());
            break;
        }
    }
    return stack[0].truthy();
}

} // namespace ts
