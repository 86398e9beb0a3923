// Applying tuned configs at run time with tunescope/runtime.h (see docs/runtime.md).
//
// Build: c++ -std=c++17 -I<tunescope>/core/runtime runtime_example.cpp   (nlohmann_json on the include path)
// Run:   ./a.out deployment.json gemm 1024,1024,1024 "NVIDIA GeForce RTX 3090" [sm_86]
#include <tunescope/runtime.h>

#include <cstdint>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

namespace {

std::vector<std::int64_t> parseShape(const std::string& text) {
    std::vector<std::int64_t> shape;
    std::istringstream items(text);
    for (std::string item; std::getline(items, item, ',');)
        shape.push_back(std::stoll(item));
    return shape;
}

} // namespace

int main(int argc, char** argv) {
    if (argc < 5) {
        std::fprintf(stderr, "usage: %s DEPLOYMENT.json KERNEL SIZES DEVICE [ARCHITECTURE]\n", argv[0]);
        return 2;
    }
    try {
        // Load once at start-up; lookups are then plain in-memory searches.
        const tunescope::Deployment deployment = tunescope::Deployment::load(argv[1]);

        tunescope::Query query;
        query.kernel = argv[2];
        query.shape = parseShape(argv[3]);
        query.device = argv[4]; // e.g. cudaDeviceProp::name, or the CPU model name
        if (argc > 5)
            query.architecture = argv[5]; // e.g. "sm_" + major + minor; optional

        const tunescope::Answer answer = deployment.lookup(query);
        std::printf("rule: %s\n", tunescope::ruleName(answer.rule));
        for (const tunescope::Skipped& skipped :
             answer.skipped) // nearer entries that break a constraint here
            std::fprintf(stderr, "note: skipped the entry tuned at another shape on %s: %s\n",
                         skipped.entry->device.c_str(), skipped.constraint.c_str());
        if (!answer.found())
            return 1; // nothing applies: fall back to the library's own choice
        if (answer.fromOtherDevice())
            std::fprintf(stderr, "note: tuned on %s, not on this device\n", answer.entry->device.c_str());
        // Read the parameters the kernel launch needs.
        for (const auto& [name, value] : answer.config.items())
            std::printf("%s = %s\n", name.c_str(), value.dump().c_str());
        return 0;
    } catch (const std::exception& error) {
        std::fprintf(stderr, "error: %s\n", error.what());
        return 1;
    }
}
