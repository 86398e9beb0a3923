#pragma once

#include <string>

namespace ts::worker {

// A dlopen handle. Kernel objects are opened with RTLD_NODELETE: OpenMP kernels leave thread pools behind
// whose code must stay mapped, so closing only drops the handle. Throws Error with dlerror()'s text.
class SharedLibrary {
public:
    explicit SharedLibrary(const std::string& path);
    ~SharedLibrary();
    SharedLibrary(const SharedLibrary&) = delete;
    SharedLibrary& operator=(const SharedLibrary&) = delete;

    // Throws Error naming the symbol and the library when it is missing.
    void* symbol(const std::string& name) const;
    const std::string& path() const { return m_path; }

private:
    std::string m_path;
    void* m_handle = nullptr;
};

} // namespace ts::worker
