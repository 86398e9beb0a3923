#include "models/XgbCheck.h"

#include <fmt/format.h>
#include <stdexcept>
#include <xgboost/c_api.h>

namespace ts {

void xgbCheck(int status, const char* call) {
    if (status != 0)
        throw std::runtime_error(fmt::format("XGBoost call {} failed: {}", call, XGBGetLastError()));
}

} // namespace ts
