#include "models/XgbMatrix.h"

#include "models/XgbCheck.h"

#include <cmath>
#include <xgboost/c_api.h>

namespace ts {

XgbMatrix::XgbMatrix(std::span<const float> values, std::size_t rows, std::size_t columns, int threads)
    : m_rows(rows) {
    xgbCheck(XGDMatrixCreateFromMat_omp(values.data(), rows, columns, NAN, &m_handle, threads),
             "XGDMatrixCreateFromMat_omp");
}

XgbMatrix::~XgbMatrix() {
    if (m_handle)
        XGDMatrixFree(m_handle);
}

void XgbMatrix::setLabels(std::span<const float> labels) {
    xgbCheck(XGDMatrixSetFloatInfo(m_handle, "label", labels.data(), labels.size()),
             "XGDMatrixSetFloatInfo(label)");
}

void XgbMatrix::setWeights(std::span<const float> weights) {
    xgbCheck(XGDMatrixSetFloatInfo(m_handle, "weight", weights.data(), weights.size()),
             "XGDMatrixSetFloatInfo(weight)");
}

void XgbMatrix::setGroups(std::span<const unsigned> sizes) {
    xgbCheck(XGDMatrixSetUIntInfo(m_handle, "group", sizes.data(), sizes.size()),
             "XGDMatrixSetUIntInfo(group)");
}

} // namespace ts
