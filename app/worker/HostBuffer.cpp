#include "HostBuffer.h"

#include "util/Error.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fmt/format.h>
#include <random>

namespace ts::worker {

namespace {

std::uint16_t floatToHalf(float value) {
    std::uint32_t bits;
    std::memcpy(&bits, &value, sizeof bits);
    std::uint32_t sign = (bits >> 16) & 0x8000u;
    std::int32_t exponent = static_cast<std::int32_t>((bits >> 23) & 0xffu) - 127 + 15;
    std::uint32_t mantissa = bits & 0x7fffffu;
    if (exponent <= 0) { // subnormal or zero (inputs in [-1, 1) never overflow)
        if (exponent < -10)
            return static_cast<std::uint16_t>(sign);
        mantissa |= 0x800000u;
        std::uint32_t shift = static_cast<std::uint32_t>(14 - exponent);
        return static_cast<std::uint16_t>(sign | ((mantissa + (1u << (shift - 1))) >> shift));
    }
    std::uint32_t half = sign | (static_cast<std::uint32_t>(exponent) << 10) | (mantissa >> 13);
    if (mantissa & 0x1000u) // round to nearest
        ++half;
    return static_cast<std::uint16_t>(half);
}

float halfToFloat(std::uint16_t half) {
    std::uint32_t sign = static_cast<std::uint32_t>(half & 0x8000u) << 16;
    std::uint32_t exponent = (half >> 10) & 0x1fu;
    std::uint32_t mantissa = half & 0x3ffu;
    std::uint32_t bits;
    if (exponent == 0) {
        float magnitude = std::ldexp(static_cast<float>(mantissa), -24);
        return sign ? -magnitude : magnitude;
    }
    if (exponent == 31)
        bits = sign | 0x7f800000u | (mantissa << 13);
    else
        bits = sign | ((exponent + 112) << 23) | (mantissa << 13);
    float value;
    std::memcpy(&value, &bits, sizeof value);
    return value;
}

std::uint16_t floatToBfloat(float value) {
    std::uint32_t bits;
    std::memcpy(&bits, &value, sizeof bits);
    bits += 0x7fffu + ((bits >> 16) & 1u); // round to nearest even
    return static_cast<std::uint16_t>(bits >> 16);
}

float bfloatToFloat(std::uint16_t value) {
    std::uint32_t bits = static_cast<std::uint32_t>(value) << 16;
    float result;
    std::memcpy(&result, &bits, sizeof result);
    return result;
}

} // namespace

void HostBuffer::Free::operator()(void* p) const {
    std::free(p);
}

HostBuffer::HostBuffer(const BufferSpec& spec) : m_spec(spec) {
    m_bytes = static_cast<std::size_t>(spec.count) * elementBytes(spec.type);
    std::size_t rounded = (std::max<std::size_t>(m_bytes, 1) + 63) / 64 * 64;
    void* p = std::aligned_alloc(64, rounded);
    if (!p)
        throw Error(fmt::format("Cannot allocate {} bytes for buffer {}.", rounded, spec.name));
    m_data.reset(p);
    std::memset(p, 0, rounded);
}

void HostBuffer::zero() {
    std::memset(m_data.get(), 0, m_bytes);
}

void HostBuffer::fill(std::uint64_t seed) {
    if (m_spec.fill == ArgumentFill::Zero) {
        zero();
        return;
    }
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
    std::uniform_int_distribution<std::int32_t> integer(-1, 1);
    for (std::int64_t i = 0; i < m_spec.count; ++i) {
        switch (m_spec.type) {
        case ElementType::Float32:
            static_cast<float*>(data())[i] = uniform(rng);
            break;
        case ElementType::Float16:
            static_cast<std::uint16_t*>(data())[i] = floatToHalf(uniform(rng));
            break;
        case ElementType::BFloat16:
            static_cast<std::uint16_t*>(data())[i] = floatToBfloat(uniform(rng));
            break;
        case ElementType::Int32:
            static_cast<std::int32_t*>(data())[i] = integer(rng);
            break;
        }
    }
}

double HostBuffer::element(std::int64_t index) const {
    switch (m_spec.type) {
    case ElementType::Float32:
        return static_cast<const float*>(data())[index];
    case ElementType::Float16:
        return halfToFloat(static_cast<const std::uint16_t*>(data())[index]);
    case ElementType::BFloat16:
        return bfloatToFloat(static_cast<const std::uint16_t*>(data())[index]);
    case ElementType::Int32:
        return static_cast<const std::int32_t*>(data())[index];
    }
    return 0.0;
}

} // namespace ts::worker
