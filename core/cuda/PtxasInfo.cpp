#include "cuda/PtxasInfo.h"

#include <regex>
#include <sstream>

namespace ts {

namespace {

std::int64_t sumOf(const std::string& line, const std::regex& pattern) {
    std::int64_t total = 0;
    for (auto it = std::sregex_iterator(line.begin(), line.end(), pattern); it != std::sregex_iterator();
         ++it)
        total += std::stoll((*it)[1].str());
    return total;
}

std::optional<std::int64_t> firstOf(const std::string& line, const std::regex& pattern) {
    std::smatch m;
    if (!std::regex_search(line, m, pattern))
        return std::nullopt;
    return std::stoll(m[1].str());
}

} // namespace

std::optional<KernelResources> parsePtxasInfo(const std::string& log, const std::string& entry) {
    static const std::regex compiling(R"(Compiling entry function '([^']+)')");
    static const std::regex properties(R"(Function properties for (\S+))");
    static const std::regex used(R"(Used (\d+) registers)");
    static const std::regex barriers(R"(used (\d+) barriers)");
    static const std::regex smem(R"((\d+) bytes smem)");
    static const std::regex stack(R"((\d+) bytes stack frame)");
    static const std::regex spillStores(R"((\d+) bytes spill stores)");
    static const std::regex spillLoads(R"((\d+) bytes spill loads)");
    static const std::regex userConstant(R"((\d+) bytes cmem\[[1-9][0-9]*\])");
    static const std::regex gmem(R"(bytes gmem)");

    KernelResources resources;
    resources.barriers = 0;
    std::int64_t moduleConstant = 0;
    std::string current; // the function the next property lines belong to
    bool found = false;
    std::istringstream lines(log);
    std::string line;
    while (std::getline(lines, line)) {
        std::smatch m;
        if (std::regex_search(line, m, compiling)) {
            current = m[1].str();
        } else if (std::regex_search(line, m, properties)) {
            current = m[1].str();
        } else if (std::regex_search(line, gmem)) {
            moduleConstant += sumOf(line, userConstant);
        } else if (current == entry && line.find("stack frame") != std::string::npos) {
            resources.stackBytes = firstOf(line, stack).value_or(0);
            resources.spillStoreBytes = firstOf(line, spillStores).value_or(0);
            resources.spillLoadBytes = firstOf(line, spillLoads).value_or(0);
        } else if (current == entry && std::regex_search(line, m, used)) {
            found = true;
            resources.registersPerThread = static_cast<int>(std::stoll(m[1].str()));
            resources.barriers = static_cast<int>(firstOf(line, barriers).value_or(0));
            resources.staticSharedBytes = firstOf(line, smem).value_or(0);
        }
    }
    if (!found)
        return std::nullopt;
    resources.constantBytes = moduleConstant;
    return resources;
}

} // namespace ts
