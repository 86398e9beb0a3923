#pragma once

namespace ts {

// Turns a failed XGBoost C API call into an exception naming the call and XGBoost's own message.
void xgbCheck(int status, const char* call);

} // namespace ts
