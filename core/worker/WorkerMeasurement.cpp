#include "worker/WorkerMeasurement.h"

#include "util/Statistics.h"

namespace ts::worker {

void addWorkerResult(Measurement& m, const WorkerResult& result, std::optional<double> flops) {
    m.status = result.status;
    m.log = result.log;
    if (result.signal != 0)
        m.metrics["signal"] = result.signal;
    if (!result.reply)
        return;
    for (const auto& [name, value] : result.reply->metrics)
        m.metrics[name] = value;
    if (m.status != MeasureStatus::Ok)
        return;
    m.samples = result.reply->samplesMs;
    const Statistics stats = summarize(m.samples);
    m.objective = stats.median;
    m.metrics["min_ms"] = stats.min;
    m.metrics["mean_ms"] = stats.mean;
    m.metrics["stdev_ms"] = stats.stdev;
    m.metrics["cv"] = stats.cv;
    m.metrics["noisy"] = stats.cv > kNoisyCv ? 1.0 : 0.0;
    m.metrics["number"] = static_cast<double>(result.reply->number);
    if (flops && stats.median > 0)
        m.metrics["gflops"] = *flops / (stats.median * 1e6);
}

} // namespace ts::worker
