#pragma once

#include "runtime/tunescope/constraint_values.h"

#include <cmath>
#include <cstdint>
#include <limits>

namespace ts {

// A Python number as the expression engine sees it: an exact 64-bit int or a float. Booleans become ints.
// The arithmetic follows Python (floor division and modulo round toward negative infinity, `/` always gives
// a float). Python ints are unbounded; on 64-bit overflow these functions fall back to floats.
// Functions that can divide return false on division by zero (Python's ZeroDivisionError).
struct PythonNumber {
    std::int64_t i = 0;
    double d = 0.0;
    bool isInt = true;

    static PythonNumber fromInt(std::int64_t value) { return {value, 0.0, true}; }
    static PythonNumber fromDouble(double value) { return {0, value, false}; }

    double asDouble() const { return isInt ? static_cast<double>(i) : d; }
    bool truthy() const { return isInt ? i != 0 : d != 0.0; }
};

namespace python {

inline PythonNumber add(PythonNumber a, PythonNumber b) {
    if (a.isInt && b.isInt) {
        std::int64_t r;
        if (!__builtin_add_overflow(a.i, b.i, &r)) {
            return PythonNumber::fromInt(r);
        }
    }
    return PythonNumber::fromDouble(a.asDouble() + b.asDouble());
}

inline PythonNumber sub(PythonNumber a, PythonNumber b) {
    if (a.isInt && b.isInt) {
        std::int64_t r;
        if (!__builtin_sub_overflow(a.i, b.i, &r)) {
            return PythonNumber::fromInt(r);
        }
    }
    return PythonNumber::fromDouble(a.asDouble() - b.asDouble());
}

inline PythonNumber mul(PythonNumber a, PythonNumber b) {
    if (a.isInt && b.isInt) {
        std::int64_t r;
        if (!__builtin_mul_overflow(a.i, b.i, &r)) {
            return PythonNumber::fromInt(r);
        }
    }
    return PythonNumber::fromDouble(a.asDouble() * b.asDouble());
}

inline bool trueDiv(PythonNumber a, PythonNumber b, PythonNumber& out) {
    if (!b.truthy()) {
        return false;
    }
    out = PythonNumber::fromDouble(a.asDouble() / b.asDouble());
    return true;
}

inline PythonNumber negate(PythonNumber a) {
    if (a.isInt && a.i != std::numeric_limits<std::int64_t>::min()) {
        return PythonNumber::fromInt(-a.i);
    }
    return PythonNumber::fromDouble(-a.asDouble());
}

// Python's divmod: floor division and modulo together (rounding toward negative infinity); false on a
// division by zero. Floats go through CPython's float_divmod (tunescope/constraint_values.h's copy, which the
// runtime and generated headers use too), so that results match Python bit for bit.
inline bool divMod(PythonNumber a, PythonNumber b, PythonNumber& quotient, PythonNumber& remainder) {
    if (!b.truthy()) {
        return false;
    }
    if (a.isInt && b.isInt) {
        if (b.i == -1) { // the int64 minimum // -1 overflows: a float, as with every overflow here
            quotient = negate(a);
            remainder = PythonNumber::fromInt(0);
            return true;
        }
        std::int64_t q = a.i / b.i;
        std::int64_t r = a.i % b.i;
        if (r != 0 && ((r < 0) != (b.i < 0))) {
            --q;
            r += b.i;
        }
        quotient = PythonNumber::fromInt(q);
        remainder = PythonNumber::fromInt(r);
        return true;
    }
    double q = 0.0;
    double r = 0.0;
    tunescope::constraint::floatDivMod(a.asDouble(), b.asDouble(), q, r);
    quotient = PythonNumber::fromDouble(q);
    remainder = PythonNumber::fromDouble(r);
    return true;
}

inline bool floorDiv(PythonNumber a, PythonNumber b, PythonNumber& out) {
    PythonNumber remainder;
    return divMod(a, b, out, remainder);
}

inline bool mod(PythonNumber a, PythonNumber b, PythonNumber& out) {
    PythonNumber quotient;
    return divMod(a, b, quotient, out);
}

// False on 0 ** negative. A negative base with a fractional exponent gives NaN (Python: a complex number).
inline bool pow(PythonNumber a, PythonNumber b, PythonNumber& out) {
    if (a.isInt && b.isInt && b.i >= 0) {
        std::int64_t result = 1;
        std::int64_t base = a.i;
        std::int64_t exponent = b.i;
        bool overflow = false;
        while (exponent > 0 && !overflow) {
            if (exponent & 1) {
                overflow = __builtin_mul_overflow(result, base, &result);
            }
            exponent >>= 1;
            if (exponent > 0 && !overflow) {
                overflow = __builtin_mul_overflow(base, base, &base);
            }
        }
        if (!overflow) {
            out = PythonNumber::fromInt(result);
            return true;
        }
        out = PythonNumber::fromDouble(std::pow(a.asDouble(), b.asDouble()));
        return true;
    }
    if (!a.truthy() && b.asDouble() < 0) {
        return false;
    }
    out = PythonNumber::fromDouble(std::pow(a.asDouble(), b.asDouble()));
    return true;
}

inline PythonNumber absolute(PythonNumber a) {
    if (a.isInt) {
        return a.i < 0 ? negate(a) : a;
    }
    return PythonNumber::fromDouble(std::fabs(a.d));
}

inline bool equal(PythonNumber a, PythonNumber b) {
    if (a.isInt && b.isInt) {
        return a.i == b.i;
    }
    return a.asDouble() == b.asDouble();
}

inline bool less(PythonNumber a, PythonNumber b) {
    if (a.isInt && b.isInt) {
        return a.i < b.i;
    }
    return a.asDouble() < b.asDouble();
}

inline bool lessEqual(PythonNumber a, PythonNumber b) {
    if (a.isInt && b.isInt) {
        return a.i <= b.i;
    }
    return a.asDouble() <= b.asDouble();
}

// A binary operator of the expression language (Op::Add to Op::Pow) on two numbers; false where Python
// raises (a division by zero, zero to a negative power) or on an operator that is not binary.
inline bool arithmetic(tunescope::constraint::Op op, PythonNumber a, PythonNumber b, PythonNumber& out) {
    using tunescope::constraint::Op;
    switch (op) {
    case Op::Add:
        out = add(a, b);
        return true;
    case Op::Sub:
        out = sub(a, b);
        return true;
    case Op::Mul:
        out = mul(a, b);
        return true;
    case Op::Div:
        return trueDiv(a, b, out);
    case Op::FloorDiv:
        return floorDiv(a, b, out);
    case Op::Mod:
        return mod(a, b, out);
    case Op::Pow:
        return pow(a, b, out);
    default:
        return false;
    }
}

// An ordering or equality comparison (Cmp::Eq to Cmp::Ge) of two numbers; NaN compares false, as in Python.
inline bool compare(tunescope::constraint::Cmp cmp, PythonNumber a, PythonNumber b) {
    using tunescope::constraint::Cmp;
    switch (cmp) {
    case Cmp::Eq:
        return equal(a, b);
    case Cmp::Ne:
        return !equal(a, b);
    case Cmp::Lt:
        return less(a, b);
    case Cmp::Le:
        return lessEqual(a, b);
    case Cmp::Gt:
        return less(b, a);
    case Cmp::Ge:
        return lessEqual(b, a);
    default:
        return false;
    }
}

} // namespace python
} // namespace ts
