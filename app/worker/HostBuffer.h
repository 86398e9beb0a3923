#pragma once

#include "worker/WorkerProtocol.h"

#include <cstddef>
#include <cstdint>
#include <memory>

namespace ts::worker {

// One kernel buffer: 64-byte aligned, typed by its spec. Elements can be read as doubles for comparison.
class HostBuffer {
public:
    explicit HostBuffer(const BufferSpec& spec);

    const BufferSpec& spec() const { return m_spec; }
    void* data() { return m_data.get(); }
    const void* data() const { return m_data.get(); }
    std::size_t bytes() const { return m_bytes; }

    // random: uniform in [-1, 1) (int32: -1, 0 or 1) from the seed; zero: all bits zero.
    void fill(std::uint64_t seed);
    void zero();
    double element(std::int64_t index) const;

private:
    struct Free {
        void operator()(void* p) const;
    };

    BufferSpec m_spec;
    std::size_t m_bytes = 0;
    std::unique_ptr<void, Free> m_data;
};

} // namespace ts::worker
