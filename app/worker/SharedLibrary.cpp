#include "SharedLibrary.h"

#include "util/Error.h"

#include <dlfcn.h>
#include <fmt/format.h>

namespace ts::worker {

SharedLibrary::SharedLibrary(const std::string& path) : m_path(path) {
    m_handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
    if (!m_handle) {
        const char* why = ::dlerror();
        throw Error(fmt::format("Cannot load {}: {}.", path, why ? why : "unknown dlopen error"));
    }
}

SharedLibrary::~SharedLibrary() {
    if (m_handle)
        ::dlclose(m_handle);
}

void* SharedLibrary::symbol(const std::string& name) const {
    ::dlerror();
    void* address = ::dlsym(m_handle, name.c_str());
    if (!address)
        throw Error(fmt::format("{} does not export the symbol {}.", m_path, name));
    return address;
}

} // namespace ts::worker
