#include "build/HostCompiler.h"

#include "util/Error.h"

#include <cstdlib>
#include <fmt/format.h>

namespace ts {

namespace {

std::string firstLine(const std::string& text) {
    return text.substr(0, text.find('\n'));
}

} // namespace

HostCompiler HostCompiler::detect() {
    std::vector<std::string> candidates;
    if (const char* cxx = std::getenv("CXX"); cxx && *cxx)
        candidates.emplace_back(cxx);
    candidates.emplace_back("g++");
    candidates.emplace_back("c++");
    std::string tried;
    for (const std::string& program : candidates) {
        try {
            CommandResult result = runCommand({program, "--version"});
            if (result.succeeded())
                return HostCompiler(program, firstLine(result.output));
        } catch (const Error&) {
            // Not installed; try the next one.
        }
        tried += (tried.empty() ? "" : ", ") + program;
    }
    throw Error(fmt::format("No host C++ compiler runs (tried {}); install g++ or set CXX.", tried));
}

std::vector<std::string> HostCompiler::baseFlags() {
    return {"-O3", "-march=native", "-fPIC", "-shared"};
}

std::vector<std::string> HostCompiler::command(const std::filesystem::path& source,
                                               const std::filesystem::path& output,
                                               const std::vector<std::string>& flags) const {
    std::vector<std::string> argv{m_program};
    for (const std::string& f : baseFlags())
        argv.push_back(f);
    std::vector<std::string> libraries;
    for (const std::string& f : flags) {
        if (f.rfind("-l", 0) == 0 || f.rfind("-L", 0) == 0)
            libraries.push_back(f);
        else
            argv.push_back(f);
    }
    argv.push_back(source.string());
    argv.push_back("-o");
    argv.push_back(output.string());
    argv.insert(argv.end(), libraries.begin(), libraries.end());
    return argv;
}

CommandResult HostCompiler::compile(const std::filesystem::path& source, const std::filesystem::path& output,
                                    const std::vector<std::string>& flags) const {
    return runCommand(command(source, output, flags));
}

} // namespace ts
