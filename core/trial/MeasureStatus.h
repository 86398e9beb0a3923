#pragma once

#include <optional>
#include <string>

namespace ts {

// The outcome of measuring one config. A bad config is one of these values, never an exception.
enum class MeasureStatus { Ok, CompileFailed, RuntimeFailed, Timeout, WrongResult, Invalid };

const char* toString(MeasureStatus status);
std::optional<MeasureStatus> measureStatusFromString(const std::string& text);

} // namespace ts
