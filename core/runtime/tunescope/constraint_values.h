#pragma once

// Tunescope's constraint values: the operators of a compiled constraint and Python's arithmetic and
// comparisons over ints, floats and strings, as tunescope/runtime.h evaluates constraints. Standalone (the
// standard library only), like runtime.h, which includes it. The part between the "embedded" markers is also
// the text of the constraint interpreter of every generated deployment header (export --format header), which
// must compile without Tunescope: the build copies it from here (core/deploy), so there is one copy.

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string_view>

namespace tunescope::constraint {

enum class Op : std::uint8_t {
    Int,   // push i
    Float, // push d
    Str,   // push strings[s]
    Size,  // push the asked shape's size number i
    Param, // push the entry's parameter named strings[s]
    Neg,   // unary -
    Pos,   // unary +
    Not,   // not
    Add,   // binary operators: [x, y] -> [x op y]
    Sub,
    Mul,
    Div,
    FloorDiv,
    Mod,
    Pow,
    Compare,     // a chain's comparison a (Cmp): [x, y] -> [y] when it holds, else [False] and skip i
    CompareLast, // a chain's last comparison a (Cmp): [x, y] -> [x a y]
    InBegin,     // [x] -> [x, found = 0]: a membership test of x in a list display
    InElement,   // [x, found, e] -> [x, found or x == e]
    InEnd,       // [x, found] -> [found] (a = In) or [not found] (a = NotIn)
    AndJump,     // and: a falsy top stays and i instructions are skipped; else it is popped
    OrJump,      // or: a truthy top stays and i instructions are skipped; else it is popped
    JumpIfFalse, // pops; skips i instructions when it was falsy
    Jump,        // skips i instructions
    Call         // function a (Fn) of the top i values
};
enum class Cmp : std::uint8_t { Eq, Ne, Lt, Le, Gt, Ge, In, NotIn };
enum class Fn : std::uint8_t { Min, Max, Abs, Int, Float, Bool };

// tunescope: begin embedded
// A value of the evaluation: booleans are the ints 0 and 1, as Python's arithmetic treats them.
struct Value {
    enum class Kind : std::uint8_t { Int, Float, Str };
    Kind kind = Kind::Int;
    std::int64_t i = 0;
    double d = 0.0;
    std::string_view s;
};

inline Value intValue(std::int64_t v) {
    Value r;
    r.i = v;
    return r;
}
inline Value floatValue(double v) {
    Value r;
    r.kind = Value::Kind::Float;
    r.d = v;
    return r;
}
inline Value strValue(std::string_view v) {
    Value r;
    r.kind = Value::Kind::Str;
    r.s = v;
    return r;
}
inline bool isNumber(const Value& v) {
    return v.kind != Value::Kind::Str;
}
inline double asDouble(const Value& v) {
    return v.kind == Value::Kind::Int ? static_cast<double>(v.i) : v.d;
}
inline bool truthy(const Value& v) {
    return v.kind == Value::Kind::Int ? v.i != 0 : v.kind == Value::Kind::Float ? v.d != 0.0 : !v.s.empty();
}
inline const char* typeName(const Value& v) {
    return v.kind == Value::Kind::Int ? "int" : v.kind == Value::Kind::Float ? "float" : "str";
}

inline constexpr std::int64_t kIntMax = std::numeric_limits<std::int64_t>::max();
inline constexpr std::int64_t kIntMin = std::numeric_limits<std::int64_t>::min();

inline bool addOverflows(std::int64_t a, std::int64_t b) {
    return b > 0 ? a > kIntMax - b : a < kIntMin - b;
}
inline bool subOverflows(std::int64_t a, std::int64_t b) {
    return b < 0 ? a > kIntMax + b : a < kIntMin + b;
}
inline bool mulOverflows(std::int64_t a, std::int64_t b) {
    if (a == 0 || b == 0)
        return false;
    if (a > 0)
        return b > 0 ? a > kIntMax / b : b < kIntMin / a;
    return b > 0 ? a < kIntMin / b : b < kIntMax / a;
}

// CPython's float_divmod, so that // and % of floats match Python.
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

// x op y for the binary operators; false with `error` set on a type error or a division by zero.
inline bool arithmetic(Op op, const Value& x, const Value& y, Value& out, const char*& error) {
    if (!isNumber(x) || !isNumber(y)) {
        error = "an arithmetic operator has a str operand";
        return false;
    }
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
        if (b == 0.0) {
            error = "division by zero";
            return false;
        }
        out = floatValue(a / b);
        return true;
    case Op::FloorDiv:
    case Op::Mod: {
        if (b == 0.0) {
            error = op == Op::Mod ? "modulo by zero" : "floor division by zero";
            return false;
        }
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
        if (ints) { // kIntMin // -1 overflows; kIntMin % -1 is 0
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
        if (a == 0.0 && b < 0) {
            error = "zero raised to a negative power";
            return false;
        }
        out = floatValue(std::pow(a, b));
        return true;
    default:
        error = "an unknown operator";
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

// x cmp y; false with `error` set when the operands cannot be compared.
inline bool compare(Cmp cmp, const Value& x, const Value& y, bool& holds, const char*& error) {
    if (cmp == Cmp::Eq || cmp == Cmp::Ne) {
        holds = equal(x, y) == (cmp == Cmp::Eq);
        return true;
    }
    if (cmp == Cmp::In || cmp == Cmp::NotIn) {
        if (isNumber(x) || isNumber(y)) {
            error = "`in` needs a list display or two strings";
            return false;
        }
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
        error = "an order comparison has a str and a number";
        return false;
    }
    holds = cmp == Cmp::Lt   ? order < 0
            : cmp == Cmp::Le ? order <= 0
            : cmp == Cmp::Gt ? order > 0
                             : order >= 0;
    return true;
}

// function(args[0..count)); false with `error` set when an argument does not fit.
inline bool call(Fn fn, const Value* args, std::size_t count, Value& out, const char*& error) {
    if (fn == Fn::Min || fn == Fn::Max) {
        out = args[0];
        for (std::size_t k = 1; k < count; ++k) {
            bool less = false;
            if (!compare(Cmp::Lt, fn == Fn::Min ? args[k] : out, fn == Fn::Min ? out : args[k], less, error))
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
    if (!isNumber(x)) {
        error = "abs, int and float take a number";
        return false;
    }
    if (fn == Fn::Float) {
        out = floatValue(asDouble(x));
    } else if (fn == Fn::Abs) {
        out = x.kind == Value::Kind::Int && x.i != kIntMin ? intValue(x.i < 0 ? -x.i : x.i)
                                                           : floatValue(std::fabs(asDouble(x)));
    } else if (x.kind == Value::Kind::Int) {
        out = x;
    } else if (std::isfinite(x.d) && std::fabs(x.d) < 9.2e18) {
        out = intValue(static_cast<std::int64_t>(x.d)); // toward zero, as Python's int()
    } else {
        error = "int() of a float that is not a 64-bit integer";
        return false;
    }
    return true;
}
// Runs a compiled constraint: code[0, count) on a stack of `capacity` values. `text(in)` is an instruction's
// string (a Str literal, a Param name), `lookup(name, out)` the config's parameter of that name (false:
// none), `shape` the asked problem size. Returns whether the constraint holds; false with `error` set (a
// static text) when it cannot be evaluated there. tunescope/runtime.h and every generated deployment header
// evaluate their constraints through it, each with its own instructions and parameters.
template <typename Instr, typename Text, typename Lookup>
inline bool run(const Instr* code, std::size_t count, Value* stack, std::size_t capacity,
                const std::int64_t* shape, std::size_t rank, const Text& text, const Lookup& lookup,
                const char*& error) {
    std::size_t top = 0;
    const auto need = [&top, &error](std::size_t n) {
        if (top >= n)
            return true;
        error = "the constraint program is malformed";
        return false;
    };
    const auto push = [&](const Value& v) {
        if (top == capacity) {
            error = "the constraint needs too deep a stack";
            return false;
        }
        stack[top++] = v;
        return true;
    };
    for (std::size_t pc = 0; pc < count; ++pc) {
        const Instr& in = code[pc];
        switch (in.op) {
        case Op::Int:
            if (!push(intValue(in.i)))
                return false;
            break;
        case Op::Float:
            if (!push(floatValue(in.d)))
                return false;
            break;
        case Op::Str:
            if (!push(strValue(text(in))))
                return false;
            break;
        case Op::Size:
            if (in.i < 0 || static_cast<std::size_t>(in.i) >= rank) {
                error = "a problem size it names is not in the asked shape";
                return false;
            }
            if (!push(intValue(shape[static_cast<std::size_t>(in.i)])))
                return false;
            break;
        case Op::Param: {
            Value v;
            if (!lookup(text(in), v)) {
                error = "it names a parameter that the config does not have as a number, boolean or string";
                return false;
            }
            if (!push(v))
                return false;
            break;
        }
        case Op::Neg:
        case Op::Pos: {
            if (!need(1))
                return false;
            const Value x = stack[top - 1];
            if (!isNumber(x)) {
                error = "a unary operator has a str operand";
                return false;
            }
            if (in.op == Op::Neg)
                stack[top - 1] =
                    x.kind == Value::Kind::Int && x.i != kIntMin ? intValue(-x.i) : floatValue(-asDouble(x));
            break;
        }
        case Op::Not:
            if (!need(1))
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
            if (!need(2) || !arithmetic(in.op, stack[top - 2], stack[top - 1], stack[top - 2], error))
                return false;
            --top;
            break;
        case Op::Compare:
        case Op::CompareLast: {
            bool result = false;
            if (!need(2) || !compare(static_cast<Cmp>(in.a), stack[top - 2], stack[top - 1], result, error))
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
            if (!push(intValue(0)))
                return false;
            break;
        case Op::InElement:
            if (!need(3))
                return false;
            if (stack[top - 2].i == 0 && equal(stack[top - 3], stack[top - 1]))
                stack[top - 2].i = 1;
            --top;
            break;
        case Op::InEnd:
            if (!need(2))
                return false;
            stack[top - 2] = intValue((stack[top - 1].i != 0) == (static_cast<Cmp>(in.a) == Cmp::In) ? 1 : 0);
            --top;
            break;
        case Op::AndJump:
        case Op::OrJump:
            if (!need(1))
                return false;
            if (truthy(stack[top - 1]) == (in.op == Op::OrJump))
                pc += static_cast<std::size_t>(in.i);
            else
                --top;
            break;
        case Op::JumpIfFalse:
            if (!need(1))
                return false;
            --top;
            if (!truthy(stack[top]))
                pc += static_cast<std::size_t>(in.i);
            break;
        case Op::Jump:
            pc += static_cast<std::size_t>(in.i);
            break;
        case Op::Call: {
            const std::size_t n = static_cast<std::size_t>(in.i);
            if (!need(n == 0 ? top + 1 : n) ||
                !call(static_cast<Fn>(in.a), stack + (top - n), n, stack[top - n], error))
                return false;
            top -= n - 1;
            break;
        }
        }
    }
    if (top != 1) {
        error = "the constraint program is malformed";
        return false;
    }
    return truthy(stack[0]);
}
// tunescope: end embedded

} // namespace tunescope::constraint
