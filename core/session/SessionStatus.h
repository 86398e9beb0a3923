#pragma once

#include <string>

namespace ts {

// How a session ended, and why it stopped.
enum class SessionStatus { Running, Completed, Cancelled, Failed };
enum class StopReason { None, Budget, Time, Patience, Target, Exhausted, Cancelled, Error };

const char* toString(SessionStatus status);
const char* toString(StopReason reason);

} // namespace ts
