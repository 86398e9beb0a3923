#pragma once

#include <cstddef>
#include <span>

namespace ts {

// RAII owner of an XGBoost DMatrix built from a dense row-major float matrix (the data is copied).
class XgbMatrix {
public:
    // threads: OpenMP threads XGBoost may use to build it.
    XgbMatrix(std::span<const float> values, std::size_t rows, std::size_t columns, int threads = 1);
    ~XgbMatrix();
    XgbMatrix(const XgbMatrix&) = delete;
    XgbMatrix& operator=(const XgbMatrix&) = delete;

    void setLabels(std::span<const float> labels);
    void setWeights(std::span<const float> weights);
    // Query groups for ranking objectives: sizes that sum to the row count.
    void setGroups(std::span<const unsigned> sizes);

    void* handle() const { return m_handle; }
    std::size_t rows() const { return m_rows; }

private:
    void* m_handle = nullptr;
    std::size_t m_rows = 0;
};

} // namespace ts
