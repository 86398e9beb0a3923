#pragma once

#include <cstddef>
#include <vector>

namespace ts::gui {

class RunData;

// The heatmap of two parameters as plain data: for every pair of their values, the best (fastest Ok) time
// over all the other parameters, and the trial that measured it.
struct HeatmapData {
    std::size_t xParameter = 0, yParameter = 0;
    int columns = 0, rows = 0;
    std::vector<double> best;   // columns * rows, row-major by y; +inf where nothing Ok was measured
    std::vector<int> bestTrial; // trial row of each cell's best, -1 where none
    std::vector<int> count;     // trials (any status) per cell
    double lo = 0.0, hi = 0.0;  // range of the finite cells
    std::size_t trials = 0;     // trials added so far (rows [0, trials) of the data)

    static HeatmapData compute(const RunData& data, std::size_t xParameter, std::size_t yParameter);
    // Adds the data's trials from row `first` on (the ones just appended), so that the heatmap follows the
    // trials as they come, like the trials table.
    void add(const RunData& data, std::size_t first);
    double at(int column, int row) const { return best[static_cast<std::size_t>(row * columns + column)]; }
};

} // namespace ts::gui
