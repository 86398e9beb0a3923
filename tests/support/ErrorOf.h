#pragma once

#include "util/Error.h"

#include <string>

namespace ts::test {

// The message of the ts::Error the callable throws, or "<no error>" when it throws nothing (so a comparison
// with the expected sentence fails and shows why).
template <typename F> std::string errorOf(F&& f) {
    try {
        f();
    } catch (const Error& e) {
        return e.what();
    }
    return "<no error>";
}

} // namespace ts::test
