#include "session/SessionStatus.h"

namespace ts {

const char* toString(SessionStatus status) {
    switch (status) {
    case SessionStatus::Running:
        return "running";
    case SessionStatus::Completed:
        return "completed";
    case SessionStatus::Cancelled:
        return "cancelled";
    case SessionStatus::Failed:
        return "failed";
    }
    return "?";
}

const char* toString(StopReason reason) {
    switch (reason) {
    case StopReason::None:
        return "none";
    case StopReason::Budget:
        return "budget reached";
    case StopReason::Time:
        return "time limit reached";
    case StopReason::Patience:
        return "no improvement within the patience";
    case StopReason::Target:
        return "target objective reached";
    case StopReason::Exhausted:
        return "space exhausted";
    case StopReason::Cancelled:
        return "cancelled";
    case StopReason::Error:
        return "error";
    }
    return "?";
}

} // namespace ts
