#include "cuda/NvrtcProgram.h"

#include "cuda/NvrtcBuiltins.h"
#include "util/Error.h"

#include <fmt/format.h>
#include <nvrtc.h>

#include <utility>

namespace ts {

namespace {

void checkNvrtc(nvrtcResult result, const char* call) {
    if (result != NVRTC_SUCCESS)
        throw Error(fmt::format("NVRTC call {} failed: {}.", call, nvrtcGetErrorString(result)));
}

} // namespace

NvrtcProgram::NvrtcProgram(const std::string& source, const std::string& name) {
    preloadNvrtcBuiltins();
    nvrtcProgram program = nullptr;
    checkNvrtc(nvrtcCreateProgram(&program, source.c_str(), name.c_str(), 0, nullptr, nullptr),
               "nvrtcCreateProgram");
    m_program = program;
}

NvrtcProgram::~NvrtcProgram() {
    if (m_program) {
        nvrtcProgram program = m_program;
        nvrtcDestroyProgram(&program); // nothing useful to do with a failure while destroying
    }
}

NvrtcProgram::NvrtcProgram(NvrtcProgram&& other) noexcept
    : m_program(std::exchange(other.m_program, nullptr)) {}

NvrtcProgram& NvrtcProgram::operator=(NvrtcProgram&& other) noexcept {
    std::swap(m_program, other.m_program);
    return *this;
}

bool NvrtcProgram::compile(const std::vector<std::string>& options) {
    std::vector<const char*> pointers;
    pointers.reserve(options.size());
    for (const std::string& option : options)
        pointers.push_back(option.c_str());
    nvrtcResult result = nvrtcCompileProgram(m_program, static_cast<int>(pointers.size()), pointers.data());
    if (result == NVRTC_ERROR_COMPILATION)
        return false;
    if (result == NVRTC_ERROR_INVALID_OPTION) {
        std::string message = log();
        while (!message.empty() && (message.back() == '\n' || message.back() == '.'))
            message.pop_back();
        throw Error(fmt::format("NVRTC rejected the compile options: {}.", message));
    }
    checkNvrtc(result, "nvrtcCompileProgram");
    return true;
}

std::string NvrtcProgram::log() const {
    std::size_t size = 0;
    checkNvrtc(nvrtcGetProgramLogSize(m_program, &size), "nvrtcGetProgramLogSize");
    std::string text(size, '\0');
    if (size > 0)
        checkNvrtc(nvrtcGetProgramLog(m_program, text.data()), "nvrtcGetProgramLog");
    while (!text.empty() && text.back() == '\0')
        text.pop_back();
    return text;
}

std::vector<char> NvrtcProgram::cubin() const {
    std::size_t size = 0;
    checkNvrtc(nvrtcGetCUBINSize(m_program, &size), "nvrtcGetCUBINSize");
    std::vector<char> bytes(size);
    if (size > 0)
        checkNvrtc(nvrtcGetCUBIN(m_program, bytes.data()), "nvrtcGetCUBIN");
    return bytes;
}

std::string NvrtcProgram::version() {
    int major = 0, minor = 0;
    checkNvrtc(nvrtcVersion(&major, &minor), "nvrtcVersion");
    return fmt::format("{}.{}", major, minor);
}

std::vector<int> NvrtcProgram::supportedArchitectures() {
    int count = 0;
    checkNvrtc(nvrtcGetNumSupportedArchs(&count), "nvrtcGetNumSupportedArchs");
    std::vector<int> archs(static_cast<std::size_t>(count));
    if (count > 0)
        checkNvrtc(nvrtcGetSupportedArchs(archs.data()), "nvrtcGetSupportedArchs");
    return archs;
}

} // namespace ts
