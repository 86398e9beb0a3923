#include "hardware/StaticProfile.h"

namespace ts {

std::string StaticProfile::unfitReason() const {
    if (!compiled)
        return "It does not compile for " + architecture + ".";
    if (!occupancy.fits())
        return occupancy.reason;
    return {};
}

} // namespace ts
