#include "deploy/DeploymentHeaderChecks.h"

#include "deploy/ConstraintValuesText.h"

namespace ts {

namespace {

// The interpreter over the header's tables; Value and the arithmetic before it are constraint_values.h's.
const char* const kInterpreter = R"(
// A config value as the constraint sees it: text as a str, True/False and whole numbers (as their text
// shows them) as ints, other numbers as floats.
inline Value paramValue(const Param& p) {
    if (!p.numeric)
        return strValue(p.text);
    if (p.text == "True" || p.text == "False")
        return intValue(p.text == "True" ? 1 : 0);
    std::size_t k = !p.text.empty() && p.text[0] == '-' ? 1 : 0;
    if (k == p.text.size())
        return floatValue(p.number);
    std::int64_t v = 0;
    for (; k < p.text.size(); ++k) {
        const char c = p.text[k];
        if (c < '0' || c > '9' || mulOverflows(v, 10) || subOverflows(v * 10, c - '0'))
            return floatValue(p.number);
        v = v * 10 - (c - '0'); // negative, so that the int64 minimum fits
    }
    if (p.text[0] == '-')
        return intValue(v);
    return v == kIntMin ? floatValue(p.number) : intValue(-v);
}

// Whether the constraint holds for the entry's config at the shape; false also when it cannot be evaluated
// there (a name the config lacks, a division by zero, a type error).
inline bool holds(const Check& check, const Entry& entry, const std::int64_t* shape, std::size_t rank) {
    std::array<Value, kStackDepth> stack{};
    const char* error = nullptr; // why it could not be evaluated: unused here, false says enough
    std::size_t top = 0;
    const auto push = [&stack, &top](const Value& v) {
        if (top == stack.size())
            return false;
        stack[top++] = v;
        return true;
    };
    for (std::size_t pc = check.codeOffset; pc < check.codeOffset + check.codeCount; ++pc) {
        const Instr& in = kCode[pc];
        bool ok = true;
        switch (in.op) {
        case Op::Int:
            ok = push(intValue(in.i));
            break;
        case Op::Float:
            ok = push(floatValue(in.d));
            break;
        case Op::Str:
            ok = push(strValue(in.s));
            break;
        case Op::Size:
            ok = in.i >= 0 && static_cast<std::size_t>(in.i) < rank && push(intValue(shape[in.i]));
            break;
        case Op::Param: {
            ok = false;
            for (std::size_t k = entry.paramOffset; k < entry.paramOffset + entry.paramCount && !ok; ++k)
                if (kParams[k].name == in.s)
                    ok = push(paramValue(kParams[k]));
            break;
        }
        case Op::Neg:
        case Op::Pos: {
            if (top < 1 || !isNumber(stack[top - 1]))
                return false;
            const Value x = stack[top - 1];
            if (in.op == Op::Neg)
                stack[top - 1] = x.kind == Value::Kind::Int && x.i != kIntMin ? intValue(-x.i) : floatValue(-asDouble(x));
            break;
        }
        case Op::Not:
            if (top < 1)
                return false;
            stack[top - 1] = intValue(truthy(stack[top - 1]) ? 0 : 1);
            break;
        case Op::Add:
        case Op::Sub:
        case Op::Mul:
        case Op::Div:
        case Op::FloorDiv:
        case Op::Mod:
        case Op::Pow:
            if (top < 2 || !arithmetic(in.op, stack[top - 2], stack[top - 1], stack[top - 2], error))
                return false;
            --top;
            break;
        case Op::Compare:
        case Op::CompareLast: {
            bool result = false;
            if (top < 2 || !compare(static_cast<Cmp>(in.a), stack[top - 2], stack[top - 1], result, error))
                return false;
            if (in.op == Op::CompareLast) {
                stack[top - 2] = intValue(result ? 1 : 0);
            } else if (result) {
                stack[top - 2] = stack[top - 1];
            } else {
                stack[top - 2] = intValue(0);
                pc += static_cast<std::size_t>(in.i);
            }
            --top;
            break;
        }
        case Op::InBegin:
            ok = push(intValue(0));
            break;
        case Op::InElement:
            if (top < 3)
                return false;
            if (stack[top - 2].i == 0 && equal(stack[top - 3], stack[top - 1]))
                stack[top - 2].i = 1;
            --top;
            break;
        case Op::InEnd:
            if (top < 2)
                return false;
            stack[top - 2] = intValue((stack[top - 1].i != 0) == (static_cast<Cmp>(in.a) == Cmp::In) ? 1 : 0);
            --top;
            break;
        case Op::AndJump:
        case Op::OrJump:
            if (top < 1)
                return false;
            if (truthy(stack[top - 1]) == (in.op == Op::OrJump))
                pc += static_cast<std::size_t>(in.i);
            else
                --top;
            break;
        case Op::JumpIfFalse:
            if (top < 1)
                return false;
            --top;
            if (!truthy(stack[top]))
                pc += static_cast<std::size_t>(in.i);
            break;
        case Op::Jump:
            pc += static_cast<std::size_t>(in.i);
            break;
        case Op::Call: {
            const std::size_t count = static_cast<std::size_t>(in.i);
            if (count == 0 || top < count || !call(static_cast<Fn>(in.a), stack.data() + (top - count), count,
                                                   stack[top - count], error))
                return false;
            top -= count - 1;
            break;
        }
        }
        if (!ok)
            return false;
    }
    return top == 1 && truthy(stack[0]);
}

inline bool satisfies(const Entry& entry, const std::int64_t* shape, std::size_t rank) {
    for (std::size_t k = entry.checkOffset; k < entry.checkOffset + entry.checkCount; ++k)
        if (!holds(kChecks[k], entry, shape, rank))
            return false;
    return true;
}

)";

} // namespace

std::string deploymentHeaderChecks() {
    return std::string("namespace detail {\n\n") + kConstraintValues + "\n" + kInterpreter +
           "} // namespace detail\n";
}

} // namespace ts
