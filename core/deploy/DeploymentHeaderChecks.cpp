#include "deploy/DeploymentHeaderChecks.h"

namespace ts {

const char* const kDeploymentHeaderChecks = R"(
namespace detail {

// A value of a constraint's evaluation: booleans are the ints 0 and 1, as in Python's arithmetic.
struct Value {
    enum class Kind : std::uint8_t { Int, Float, Str };
    Kind kind;
    std::int64_t i;
    double d;
    std::string_view s;
};

inline constexpr std::int64_t kIntMax = std::numeric_limits<std::int64_t>::max();
inline constexpr std::int64_t kIntMin = std::numeric_limits<std::int64_t>::min();

inline Value intValue(std::int64_t v) { return Value{Value::Kind::Int, v, 0.0, {}}; }
inline Value floatValue(double v) { return Value{Value::Kind::Float, 0, v, {}}; }
inline Value strValue(std::string_view v) { return Value{Value::Kind::Str, 0, 0.0, v}; }
inline bool isNumber(const Value& v) { return v.kind != Value::Kind::Str; }
inline double asDouble(const Value& v) { return v.kind == Value::Kind::Int ? static_cast<double>(v.i) : v.d; }
inline bool truthy(const Value& v) {
    return v.kind == Value::Kind::Int ? v.i != 0 : v.kind == Value::Kind::Float ? v.d != 0.0 : !v.s.empty();
}

inline bool addOverflows(std::int64_t a, std::int64_t b) { return b > 0 ? a > kIntMax - b : a < kIntMin - b; }
inline bool subOverflows(std::int64_t a, std::int64_t b) { return b < 0 ? a > kIntMax + b : a < kIntMin + b; }
inline bool mulOverflows(std::int64_t a, std::int64_t b) {
    if (a == 0 || b == 0)
        return false;
    if (a > 0)
        return b > 0 ? a > kIntMax / b : b < kIntMin / a;
    return b > 0 ? a < kIntMin / b : b < kIntMax / a;
}

// CPython's float_divmod.
inline void floatDivMod(double x, double y, double& floorDiv, double& mod) {
    mod = std::fmod(x, y);
    double div = (x - mod) / y;
    if (mod != 0.0) {
        if ((y < 0) != (mod < 0)) {
            mod += y;
            div -= 1.0;
        }
    } else {
        mod = std::copysign(0.0, y);
    }
    if (div != 0.0) {
        floorDiv = std::floor(div);
        if (div - floorDiv > 0.5)
            floorDiv += 1.0;
    } else {
        floorDiv = std::copysign(0.0, x / y);
    }
}

// False on a str operand or a division by zero.
inline bool arithmetic(Op op, const Value& x, const Value& y, Value& out) {
    if (!isNumber(x) || !isNumber(y))
        return false;
    const bool ints = x.kind == Value::Kind::Int && y.kind == Value::Kind::Int;
    const double a = asDouble(x);
    const double b = asDouble(y);
    switch (op) {
    case Op::Add:
        out = ints && !addOverflows(x.i, y.i) ? intValue(x.i + y.i) : floatValue(a + b);
        return true;
    case Op::Sub:
        out = ints && !subOverflows(x.i, y.i) ? intValue(x.i - y.i) : floatValue(a - b);
        return true;
    case Op::Mul:
        out = ints && !mulOverflows(x.i, y.i) ? intValue(x.i * y.i) : floatValue(a * b);
        return true;
    case Op::Div:
        if (b == 0.0)
            return false;
        out = floatValue(a / b);
        return true;
    case Op::FloorDiv:
    case Op::Mod: {
        if (b == 0.0)
            return false;
        if (ints && !(x.i == kIntMin && y.i == -1)) {
            std::int64_t q = x.i / y.i;
            std::int64_t r = x.i % y.i;
            if (r != 0 && ((r < 0) != (y.i < 0))) {
                --q;
                r += y.i;
            }
            out = intValue(op == Op::Mod ? r : q);
            return true;
        }
        if (ints) {
            out = op == Op::Mod ? intValue(0) : floatValue(-a);
            return true;
        }
        double q = 0.0;
        double r = 0.0;
        floatDivMod(a, b, q, r);
        out = floatValue(op == Op::Mod ? r : q);
        return true;
    }
    case Op::Pow:
        if (ints && y.i >= 0) {
            std::int64_t result = 1;
            std::int64_t base = x.i;
            bool overflow = false;
            for (std::int64_t e = y.i; e > 0 && !overflow;) {
                if (e & 1) {
                    overflow = mulOverflows(result, base);
                    result = overflow ? result : result * base;
                }
                e >>= 1;
                if (e > 0 && !overflow) {
                    overflow = mulOverflows(base, base);
                    base = overflow ? base : base * base;
                }
            }
            out = overflow ? floatValue(std::pow(a, b)) : intValue(result);
            return true;
        }
        if (a == 0.0 && b < 0)
            return false;
        out = floatValue(std::pow(a, b));
        return true;
    default:
        return false;
    }
}

inline bool equal(const Value& x, const Value& y) {
    if (isNumber(x) != isNumber(y))
        return false;
    if (!isNumber(x))
        return x.s == y.s;
    if (x.kind == Value::Kind::Int && y.kind == Value::Kind::Int)
        return x.i == y.i;
    return asDouble(x) == asDouble(y);
}

// False when the operands cannot be compared.
inline bool compare(Cmp cmp, const Value& x, const Value& y, bool& holds) {
    if (cmp == Cmp::Eq || cmp == Cmp::Ne) {
        holds = equal(x, y) == (cmp == Cmp::Eq);
        return true;
    }
    if (cmp == Cmp::In || cmp == Cmp::NotIn) {
        if (isNumber(x) || isNumber(y))
            return false;
        holds = (y.s.find(x.s) != std::string_view::npos) == (cmp == Cmp::In);
        return true;
    }
    int order = 0;
    if (isNumber(x) && isNumber(y)) {
        if (x.kind == Value::Kind::Int && y.kind == Value::Kind::Int) {
            order = x.i < y.i ? -1 : x.i > y.i ? 1 : 0;
        } else {
            const double a = asDouble(x);
            const double b = asDouble(y);
            if (std::isnan(a) || std::isnan(b)) {
                holds = false;
                return true;
            }
            order = a < b ? -1 : a > b ? 1 : 0;
        }
    } else if (!isNumber(x) && !isNumber(y)) {
        const int c = x.s.compare(y.s);
        order = c < 0 ? -1 : c > 0 ? 1 : 0;
    } else {
        return false;
    }
    holds = cmp == Cmp::Lt ? order < 0 : cmp == Cmp::Le ? order <= 0 : cmp == Cmp::Gt ? order > 0 : order >= 0;
    return true;
}

inline bool call(Fn fn, const Value* args, std::size_t count, Value& out) {
    if (fn == Fn::Min || fn == Fn::Max) {
        out = args[0];
        for (std::size_t k = 1; k < count; ++k) {
            bool less = false;
            if (!compare(Cmp::Lt, fn == Fn::Min ? args[k] : out, fn == Fn::Min ? out : args[k], less))
                return false;
            if (less)
                out = args[k];
        }
        return true;
    }
    const Value& x = args[0];
    if (fn == Fn::Bool) {
        out = intValue(truthy(x) ? 1 : 0);
        return true;
    }
    if (!isNumber(x))
        return false;
    if (fn == Fn::Float) {
        out = floatValue(asDouble(x));
    } else if (fn == Fn::Abs) {
        out = x.kind == Value::Kind::Int && x.i != kIntMin ? intValue(x.i < 0 ? -x.i : x.i)
                                                            : floatValue(std::fabs(asDouble(x)));
    } else if (x.kind == Value::Kind::Int) {
        out = x;
    } else if (std::isfinite(x.d) && std::fabs(x.d) < 9.2e18) {
        out = intValue(static_cast<std::int64_t>(x.d));
    } else {
        return false;
    }
    return true;
}

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
            if (top < 2 || !arithmetic(in.op, stack[top - 2], stack[top - 1], stack[top - 2]))
                return false;
            --top;
            break;
        case Op::Compare:
        case Op::CompareLast: {
            bool result = false;
            if (top < 2 || !compare(static_cast<Cmp>(in.a), stack[top - 2], stack[top - 1], result))
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
                                                   stack[top - count]))
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

} // namespace detail
)";

} // namespace ts
