#include "models/XgbBooster.h"

#include "models/XgbCheck.h"

#include <cstdlib>
#include <cstring>
#include <fmt/format.h>
#include <xgboost/c_api.h>

namespace ts {

XgbBooster::XgbBooster(const XgbMatrix* training) {
    DMatrixHandle matrices[1] = {training ? training->handle() : nullptr};
    xgbCheck(XGBoosterCreate(matrices, training ? 1 : 0, &m_handle), "XGBoosterCreate");
}

XgbBooster::~XgbBooster() {
    if (m_handle)
        XGBoosterFree(m_handle);
}

void XgbBooster::setParameters(const std::map<std::string, std::string>& parameters) {
    for (const auto& [name, value] : parameters)
        xgbCheck(XGBoosterSetParam(m_handle, name.c_str(), value.c_str()), "XGBoosterSetParam");
}

void XgbBooster::updateOneIteration(int iteration, const XgbMatrix& training) {
    xgbCheck(XGBoosterUpdateOneIter(m_handle, iteration, training.handle()), "XGBoosterUpdateOneIter");
}

double XgbBooster::evaluate(int iteration, const XgbMatrix& data) {
    DMatrixHandle matrices[1] = {data.handle()};
    const char* names[1] = {"eval"};
    const char* line = nullptr;
    xgbCheck(XGBoosterEvalOneIter(m_handle, iteration, matrices, names, 1, &line), "XGBoosterEvalOneIter");
    // The line reads "[iteration]\teval-metric:value".
    const char* colon = std::strrchr(line, ':');
    return colon ? std::strtod(colon + 1, nullptr) : 0.0;
}

std::vector<float> XgbBooster::predict(const XgbMatrix& data, int rounds) const {
    std::string config =
        fmt::format(R"({{"type": 0, "training": false, "iteration_begin": 0, "iteration_end": {}, )"
                    R"("strict_shape": false}})",
                    rounds);
    const bst_ulong* shape = nullptr;
    bst_ulong dimensions = 0;
    const float* result = nullptr;
    xgbCheck(
        XGBoosterPredictFromDMatrix(m_handle, data.handle(), config.c_str(), &shape, &dimensions, &result),
        "XGBoosterPredictFromDMatrix");
    return std::vector<float>(result, result + data.rows());
}

int XgbBooster::boostedRounds() const {
    int rounds = 0;
    xgbCheck(XGBoosterBoostedRounds(m_handle, &rounds), "XGBoosterBoostedRounds");
    return rounds;
}

std::vector<char> XgbBooster::save() const {
    bst_ulong length = 0;
    const char* bytes = nullptr;
    xgbCheck(XGBoosterSaveModelToBuffer(m_handle, R"({"format": "ubj"})", &length, &bytes),
             "XGBoosterSaveModelToBuffer");
    return std::vector<char>(bytes, bytes + length);
}

std::unique_ptr<XgbBooster> XgbBooster::first(int rounds) const {
    BoosterHandle sliced = nullptr;
    xgbCheck(XGBoosterSlice(m_handle, 0, rounds, 1, &sliced), "XGBoosterSlice");
    auto copy = std::make_unique<XgbBooster>();
    XGBoosterFree(copy->m_handle);
    copy->m_handle = sliced;
    return copy;
}

void XgbBooster::load(const std::vector<char>& bytes) {
    xgbCheck(XGBoosterLoadModelFromBuffer(m_handle, bytes.data(), bytes.size()),
             "XGBoosterLoadModelFromBuffer");
}

} // namespace ts
