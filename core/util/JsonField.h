#pragma once

#include "util/Error.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <string>

namespace ts {

// json[key] as T when present (and not null), else `fallback`; Error naming `what` and the key on a value of
// another type. How stored plans are read back (SessionPlan, WorkloadPlan).
template <typename T>
T jsonField(const nlohmann::json& json, const char* key, T fallback, const std::string& what) {
    const auto it = json.find(key);
    if (it == json.end() || it->is_null())
        return fallback;
    try {
        return it->get<T>();
    } catch (const nlohmann::json::exception&) {
        throw Error(fmt::format("The {} has \"{}\": {}, which is not of the right type.", what, key,
                                it->dump().substr(0, 60)));
    }
}

} // namespace ts
