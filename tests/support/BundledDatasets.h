#pragma once

#include "datasets/DatasetReader.h"

namespace ts::test {

// The CLBlast GEMM product measured on an RTX 3090 (resources/datasets), read once per test process.
inline const Dataset& bundledGemm() {
    static const Dataset dataset = readDataset(TUNESCOPE_RESOURCES "/datasets/gemm_clblast_RTX_3090.json.gz");
    return dataset;
}

} // namespace ts::test
