#include "cuda/NvrtcBuiltins.h"

#include <fmt/format.h>
#include <nvrtc.h>

#include <dlfcn.h>

#include <filesystem>
#include <mutex>
#include <string>

namespace ts {

namespace {

// The folder of the loaded libnvrtc, or empty when it cannot be told.
std::filesystem::path nvrtcFolder() {
    void* symbol = ::dlsym(RTLD_DEFAULT, "nvrtcVersion");
    Dl_info info{};
    if (!symbol || ::dladdr(symbol, &info) == 0 || !info.dli_fname)
        return {};
    return std::filesystem::path(info.dli_fname).parent_path();
}

void preload() {
    int major = 0, minor = 0;
    if (nvrtcVersion(&major, &minor) != NVRTC_SUCCESS)
        return;
    const std::string name = fmt::format("libnvrtc-builtins.so.{}.{}", major, minor);
    if (::dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD) ||
        ::dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL))
        return; // already loaded, or found by the system's search: the handle stays open for the process
    const std::filesystem::path folder = nvrtcFolder();
    if (!folder.empty())
        ::dlopen((folder / name).c_str(), RTLD_NOW | RTLD_LOCAL); // kept open for the process's lifetime
}

} // namespace

void preloadNvrtcBuiltins() {
    static std::once_flag once;
    std::call_once(once, preload);
}

} // namespace ts
