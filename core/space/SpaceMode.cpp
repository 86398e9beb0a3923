#include "space/SpaceMode.h"

namespace ts {

const char* toString(SpaceMode mode) {
    switch (mode) {
    case SpaceMode::Constrained:
        return "constrained";
    case SpaceMode::Product:
        return "product";
    }
    return "constrained";
}

std::optional<SpaceMode> spaceModeFromString(const std::string& text) {
    if (text == "constrained") {
        return SpaceMode::Constrained;
    }
    if (text == "product") {
        return SpaceMode::Product;
    }
    return std::nullopt;
}

} // namespace ts
