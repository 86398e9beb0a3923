#include "Commands.h"
#include "Interrupted.h"
#include "util/Error.h"

#include <cstdio>

int main(int argc, char** argv) {
    CLI::App app{"tunescope-cli: auto-tune compute kernels from the command line"};
    app.require_subcommand(1);
    app.set_version_flag("--version", TUNESCOPE_VERSION);
    ts::cli::addInfoCommand(app);
    ts::cli::addStrategiesCommand(app);
    ts::cli::addTuneCommand(app);
    ts::cli::addCompareCommand(app);
    ts::cli::addScoreCommand(app);
    ts::cli::addRecordsCommand(app);
    ts::cli::addExportCommand(app);
    ts::cli::addImportCommand(app);
    ts::cli::addBestCommand(app);
    ts::cli::addKernelsCommand(app);
    ts::cli::addAnalyzeCommand(app);
    ts::cli::addDevicesCommand(app);
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        return app.exit(e);
    } catch (const ts::cli::Interrupted& e) {
        std::fprintf(stderr, "tunescope-cli: %s\n", e.what());
        return 128 + e.signal();
    } catch (const ts::Error& e) {
        std::fprintf(stderr, "tunescope-cli: %s\n", e.what());
        return 1;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "tunescope-cli: internal error: %s\n", e.what());
        return 2;
    }
    return 0;
}
