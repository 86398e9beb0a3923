#pragma once

#include "hardware/OccupancyCalculator.h"
#include "hardware/StaticProfile.h"
#include "models/ConfigFeatureTable.h"
#include "datasets/Dataset.h"
#include "datasets/DatasetProfile.h"

#include <memory>

namespace ts {

// A profile row as a StaticProfile on the calculator's GPU: its resources and launch shape (a block of
// threadsPerBlock x 1 x 1, a grid of `blocks` x 1 x 1, or of 1 where the row has no grid), its occupancy
// recomputed.
StaticProfile staticProfileOf(const ConfigProfile& row, const OccupancyCalculator& calculator);

// The hardware features (HardwareFeatures) of every config a dataset's static profile holds, on the GPU the
// profile was made for, indexed by the dataset's configs: what strategies with option `hardware` give their
// models. The occupancy and its limiter are recomputed from the profile's registers, shared memory and block
// size; the grid's columns (sm_fill, waves_log2, tail_efficiency) are missing for profiles that did not
// record the grid. With `withDevice`, the GPU's own figures follow in every row (log2 of its SMs, threads and
// blocks per SM, shared memory per SM, bandwidth, FP32 peak, L2 and boost clock: deviceFeatureNames()), for
// models that learn across GPUs (a hardware-aware TransferPrior). Throws Error naming the profile when its
// GPU is not in the database; null when Tunescope was built without the CUDA toolkit's occupancy header.
std::shared_ptr<const ConfigFeatureTable>
profileFeatures(const Dataset& dataset, const DatasetProfile& profile, bool withDevice = false);
const std::vector<std::string>& deviceFeatureNames();

// The dataset's companion profile's features with the GPU's (profileFeatures with withDevice) for a
// hardware-aware transfer prior; null when the dataset has no profile or the build lacks the occupancy
// header. Throws as DatasetProfile::companionOf for a bad companion.
std::shared_ptr<const ConfigFeatureTable> transferFeatures(const Dataset& dataset);

// What option hardware=true needs: the features of the dataset's profile, covering every config a search in
// `mode` may propose (a profile of the configs in the file covers constrained mode; product mode needs one
// made with `analyze --dataset --product`). Throws Error, one sentence naming the dataset, when `profile` is
// null, does not cover the domain, or the build lacks the occupancy header.
std::shared_ptr<const ConfigFeatureTable>
requireProfileFeatures(const Dataset& dataset, const DatasetProfile* profile, SpaceMode mode);

} // namespace ts
