#pragma once

#include <stdexcept>
#include <string>

namespace ts {

// A failure at the user's edge (file, option, size, expression). The message is one sentence that names
// the input and what is wrong with it; the CLI prints it as is and the GUI shows it in a dialog.
class Error : public std::runtime_error {
public:
    explicit Error(const std::string& message) : std::runtime_error(message) {}
};

} // namespace ts
