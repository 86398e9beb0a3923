#pragma once

#include "build/CommandRunner.h"

#include <filesystem>
#include <string>
#include <vector>

namespace ts {

// The C++ compiler that builds CPU kernels into shared objects: $CXX when set, else g++, else c++.
class HostCompiler {
public:
    // Finds the compiler and asks it for its version. Throws Error when none runs.
    static HostCompiler detect();
    HostCompiler(std::string program, std::string version)
        : m_program(std::move(program)), m_version(std::move(version)) {}

    const std::string& program() const { return m_program; }
    // First line of `--version`, e.g. "g++ (Debian 12.2.0-14+deb12u1) 12.2.0". Part of every build's hash.
    const std::string& version() const { return m_version; }

    // Flags every kernel build gets before its own (docs/kernel-spec.md, CPU ABI).
    static std::vector<std::string> baseFlags();

    // The full command line that builds `source` into the shared object `output`. Libraries named in
    // `flags` (-l...) go after the source so the linker resolves them.
    std::vector<std::string> command(const std::filesystem::path& source, const std::filesystem::path& output,
                                     const std::vector<std::string>& flags) const;
    CommandResult compile(const std::filesystem::path& source, const std::filesystem::path& output,
                          const std::vector<std::string>& flags) const;

private:
    std::string m_program;
    std::string m_version;
};

} // namespace ts
