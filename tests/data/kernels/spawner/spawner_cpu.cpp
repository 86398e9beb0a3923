// Hostile process fixture for tests: the kernel starts a child process that spins forever (as a kernel
// calling system() or a badly written library might), then spins forever itself. Nothing it starts may
// outlive the tuner that measures it.
#include <cstdint>
#include <unistd.h>

extern "C" void tunescope_kernel(void* const*, const std::int64_t*) {
    ::fork(); // the child (if any) spins as its parent does
    volatile bool forever = true;
    while (forever) {
    }
}
