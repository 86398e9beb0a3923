#pragma once

namespace ts {

// NVRTC dlopen()s its builtins library (libnvrtc-builtins.so.MAJOR.MINOR) by name at the first compile. The
// dynamic loader then searches only libnvrtc's own path (it has none) and the system's (ld.so.conf), so with
// a toolkit installed from the runfile, or mounted, every compile fails with
// NVRTC_ERROR_BUILTIN_OPERATION_FAILURE. This loads the builtins first from the folder libnvrtc was loaded
// from, once per process, so NVRTC's own dlopen finds them by soname. Thread-safe; a failure is left to NVRTC
// to report (the library may still be found by the system's search).
void preloadNvrtcBuiltins();

} // namespace ts
