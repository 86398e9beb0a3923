#include "space/Value.h"

#include "util/Error.h"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <string>

namespace ts {
namespace {

// Python's repr() of a float: the shortest digits that round-trip, fixed notation for decimal exponents in
// [-4, 16), scientific ("1e+16", "1.5e-05") outside, and always a ".0" on whole numbers in fixed notation.
std::string pythonFloatRepr(double value) {
    if (std::isnan(value)) {
        return "nan";
    }
    if (std::isinf(value)) {
        return value < 0 ? "-inf" : "inf";
    }
    char buffer[64];
    const auto result = std::to_chars(buffer, buffer + sizeof buffer, value, std::chars_format::scientific);
    const std::string text(buffer, result.ptr);
    const auto ePos = text.find('e');
    std::string mantissa = text.substr(0, ePos);
    const int exponent = std::atoi(text.c_str() + ePos + 1);

    std::string sign;
    if (!mantissa.empty() && mantissa[0] == '-') {
        sign = "-";
        mantissa.erase(0, 1);
    }
    std::string digits;
    for (const char c : mantissa) {
        if (c != '.') {
            digits += c;
        }
    }

    if (exponent >= -4 && exponent < 16) {
        std::string out;
        if (exponent < 0) {
            out = "0." + std::string(static_cast<std::size_t>(-exponent - 1), '0') + digits;
        } else {
            const auto intDigits = static_cast<std::size_t>(exponent) + 1;
            if (digits.size() <= intDigits) {
                out = digits + std::string(intDigits - digits.size(), '0') + ".0";
            } else {
                out = digits.substr(0, intDigits) + "." + digits.substr(intDigits);
            }
        }
        return sign + out;
    }
    std::string out = digits.substr(0, 1);
    if (digits.size() > 1) {
        out += "." + digits.substr(1);
    }
    const int magnitude = std::abs(exponent);
    out += exponent < 0 ? "e-" : "e+";
    if (magnitude < 10) {
        out += '0';
    }
    out += std::to_string(magnitude);
    return sign + out;
}

} // namespace

std::string toString(const Value& value) {
    if (const auto* b = std::get_if<bool>(&value)) {
        return *b ? "True" : "False";
    }
    if (const auto* i = std::get_if<std::int64_t>(&value)) {
        return std::to_string(*i);
    }
    if (const auto* d = std::get_if<double>(&value)) {
        return pythonFloatRepr(*d);
    }
    return std::get<std::string>(value);
}

double toNumber(const Value& value) {
    if (const auto* b = std::get_if<bool>(&value)) {
        return *b ? 1.0 : 0.0;
    }
    if (const auto* i = std::get_if<std::int64_t>(&value)) {
        return static_cast<double>(*i);
    }
    if (const auto* d = std::get_if<double>(&value)) {
        return *d;
    }
    throw Error("The value \"" + std::get<std::string>(value) + "\" is a string, not a number.");
}

bool isNumeric(const Value& value) {
    return !std::holds_alternative<std::string>(value);
}

} // namespace ts
