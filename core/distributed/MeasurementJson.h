#pragma once

#include "trial/Measurement.h"

#include <nlohmann/json.hpp>
#include <string>

namespace ts {

// A Measurement as JSON, for carrying it between the ranks of an MPI job: every field, a number that is not
// finite as null (JSON has no NaN) and back as NaN.
nlohmann::json measurementToJson(const Measurement& measurement);
// Throws Error naming `what` on a value that is no measurement.
Measurement measurementFromJson(const nlohmann::json& json, const std::string& what);

} // namespace ts
