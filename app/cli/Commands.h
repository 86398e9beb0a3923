#pragma once

#include <CLI/CLI.hpp>

namespace ts::cli {

// Each adds one subcommand to the app; its callback does the work and throws ts::Error on bad input.
void addInfoCommand(CLI::App& app);
void addStrategiesCommand(CLI::App& app);
void addSchedulersCommand(CLI::App& app);
void addTuneCommand(CLI::App& app);
void addCompareCommand(CLI::App& app);
void addRecordsCommand(CLI::App& app);
void addScoreCommand(CLI::App& app);
void addExportCommand(CLI::App& app);
void addImportCommand(CLI::App& app);
void addBestCommand(CLI::App& app);
void addKernelsCommand(CLI::App& app);
void addAnalyzeCommand(CLI::App& app);
void addDevicesCommand(CLI::App& app);
void addWorkloadCommand(CLI::App& app);
// `workload from-onnx`, a subcommand of `workload`.
void addWorkloadFromOnnx(CLI::App& workload);
void addImportanceCommand(CLI::App& app);

} // namespace ts::cli
