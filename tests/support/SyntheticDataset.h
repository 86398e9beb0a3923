#pragma once

#include "datasets/Dataset.h"

#include <cmath>
#include <memory>

namespace ts::test {

// A small in-memory dataset over a 3-parameter product: configs whose index is divisible by
// `invalidEvery` are failed; the others take a smooth objective with a single optimum.
inline std::shared_ptr<Dataset> syntheticDataset(int invalidEvery = 5) {
    std::vector<Parameter> parameters{
        {"x", ParameterType::Integer, {std::int64_t{1}, std::int64_t{2}, std::int64_t{4}, std::int64_t{8}}},
        {"y",
         ParameterType::Integer,
         {std::int64_t{1}, std::int64_t{2}, std::int64_t{3}, std::int64_t{4}, std::int64_t{5}}},
        {"z", ParameterType::String, {std::string("a"), std::string("b"), std::string("c")}}};
    SearchSpace product(parameters, {});
    auto dataset = std::make_shared<Dataset>();
    dataset->path = "synthetic";
    dataset->format = "kernel_tuner";
    dataset->deviceName = "Synthetic GPU";
    dataset->kernelName = "synthetic";
    dataset->problemSize = "[64]";
    dataset->objective = "time";
    std::vector<SearchSpace::Index> present;
    for (SearchSpace::Index i = 0; i < product.productSize(); ++i) {
        Measurement m;
        if (invalidEvery > 0 && i % invalidEvery == 0) {
            m.status = MeasureStatus::RuntimeFailed;
        } else {
            auto d = product.digits(i);
            m.status = MeasureStatus::Ok;
            m.objective = 1.0 + std::pow(double(d[0]) - 2.0, 2) + std::abs(double(d[1]) - 3.0) + 0.1 * d[2];
            m.samples = {m.objective * 0.99, m.objective, m.objective * 1.01};
        }
        dataset->entries[i] = m;
        present.push_back(i);
    }
    dataset->space = SearchSpace::fromValidSet(parameters, present);
    return dataset;
}

} // namespace ts::test
