#pragma once

#include "datasets/Dataset.h"

#include <cmath>
#include <memory>

namespace ts::test {

// A 6x6x6x4 product where nearly 90 % of the configs are invalid, as constraints make them: only those with
// a + b + c <= 7 and d != 4 run. Of the invalid ones a third are in the file as failed, the rest are absent,
// so the constrained domain (the configs in the file) still holds failing ones.
inline std::shared_ptr<Dataset> sparseDataset() {
    std::vector<Parameter> parameters;
    for (const char* name : {"a", "b", "c", "d"}) {
        parameters.push_back({name, ParameterType::Integer, {}});
        for (std::int64_t v = 1; v <= (name[0] == 'd' ? 4 : 6); ++v)
            parameters.back().values.push_back(v);
    }
    SearchSpace product(parameters, {});
    auto dataset = std::make_shared<Dataset>();
    dataset->path = "mostly-invalid";
    dataset->format = "kernel_tuner";
    dataset->objective = "time";
    std::vector<SearchSpace::Index> present;
    for (SearchSpace::Index i = 0; i < product.productSize(); ++i) {
        auto d = product.digits(i);
        Measurement m;
        if (d[0] + d[1] + d[2] + 3 <= 7 && d[3] != 3) {
            m.status = MeasureStatus::Ok;
            m.objective = 1.0 + std::abs(double(d[0]) - 2) + 0.5 * std::abs(double(d[1]) - 1) + 0.3 * d[2] +
                          0.1 * std::abs(double(d[3]) - 1);
        } else if (i % 3 == 0) {
            m.status = MeasureStatus::CompileFailed;
        } else {
            continue;
        }
        dataset->entries[i] = m;
        present.push_back(i);
    }
    dataset->space = SearchSpace::fromValidSet(parameters, present);
    return dataset;
}

} // namespace ts::test
