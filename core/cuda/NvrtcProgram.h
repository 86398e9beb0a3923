#pragma once

#include <string>
#include <vector>

struct _nvrtcProgram; // nvrtc.h's opaque handle; kept out of this header so users need no CUDA include path

namespace ts {

// One NVRTC program (RAII over nvrtcProgram). Every NVRTC call is checked; a failing call other than a
// compile error throws Error naming the call. Not copyable; movable. One thread at a time per program.
class NvrtcProgram {
public:
    // `name` is the file name NVRTC uses in its messages (and to resolve quoted includes).
    NvrtcProgram(const std::string& source, const std::string& name);
    ~NvrtcProgram();
    NvrtcProgram(NvrtcProgram&& other) noexcept;
    NvrtcProgram& operator=(NvrtcProgram&& other) noexcept;
    NvrtcProgram(const NvrtcProgram&) = delete;
    NvrtcProgram& operator=(const NvrtcProgram&) = delete;

    // True when the source compiled; false on a compile error (see log()). Throws Error for an invalid
    // option or another NVRTC failure.
    bool compile(const std::vector<std::string>& options);
    // The compiler's messages (errors, warnings, the ptxas report).
    std::string log() const;
    // The cubin after a successful compile for a real architecture (sm_XX).
    std::vector<char> cubin() const;

    // NVRTC's version, "13.0".
    static std::string version();
    // The real architectures this NVRTC can target, ascending: 75, 80, 86, ...
    static std::vector<int> supportedArchitectures();

private:
    _nvrtcProgram* m_program = nullptr;
};

} // namespace ts
