#include "hardware/Occupancy.h"

namespace ts {

const char* toString(OccupancyLimit limit) {
    switch (limit) {
    case OccupancyLimit::Warps:
        return "warps";
    case OccupancyLimit::Registers:
        return "registers";
    case OccupancyLimit::SharedMemory:
        return "shared memory";
    case OccupancyLimit::Blocks:
        return "blocks";
    case OccupancyLimit::Barriers:
        return "barriers";
    }
    return "?";
}

std::string Occupancy::limitText() const {
    std::string out;
    for (OccupancyLimit l : limits)
        out += (out.empty() ? "" : ", ") + std::string(toString(l));
    return out;
}

} // namespace ts
