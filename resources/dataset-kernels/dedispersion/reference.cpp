// What the kernel computes (benchmark_hub's dedispersion.cc): for every DM and sample, the sum over the 1536
// channels of the 8-bit input shifted by the channel's delay (Tunescope's CPU ABI; see docs/kernel-spec.md).
// The input bytes are passed as an int32 buffer of a quarter of their count.
#include "dedispersion.h"

#include <cstdint>

extern "C" void tunescope_reference(void* const* buffers, const std::int64_t*) {
    const unsigned char* input = static_cast<const unsigned char*>(buffers[0]);
    float* output = static_cast<float*>(buffers[1]);
    const float* shifts = static_cast<const float*>(buffers[2]);
    for (unsigned int dm = 0; dm < nr_dms; dm++)
        for (unsigned int sample = 0; sample < nr_samples; sample++) {
            float sum = 0.0f;
            for (unsigned int channel = 0; channel < nr_channels; channel++) {
                const auto shift = static_cast<unsigned int>((dm_first + dm * dm_step) * shifts[channel]);
                sum += input[(channel * nr_samples_per_channel) + (sample + shift)];
            }
            output[(dm * nr_samples) + sample] = sum;
        }
}
