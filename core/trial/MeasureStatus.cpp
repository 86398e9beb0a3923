#include "trial/MeasureStatus.h"

#include <array>
#include <utility>

namespace ts {

namespace {

constexpr std::array<std::pair<MeasureStatus, const char*>, 6> kNames{{
    {MeasureStatus::Ok, "ok"},
    {MeasureStatus::CompileFailed, "compile_failed"},
    {MeasureStatus::RuntimeFailed, "runtime_failed"},
    {MeasureStatus::Timeout, "timeout"},
    {MeasureStatus::WrongResult, "wrong_result"},
    {MeasureStatus::Invalid, "invalid"},
}};

} // namespace

const char* toString(MeasureStatus status) {
    for (const auto& [value, name] : kNames) {
        if (value == status) {
            return name;
        }
    }
    return "invalid";
}

std::optional<MeasureStatus> measureStatusFromString(const std::string& text) {
    for (const auto& [value, name] : kNames) {
        if (text == name) {
            return value;
        }
    }
    return std::nullopt;
}

} // namespace ts
