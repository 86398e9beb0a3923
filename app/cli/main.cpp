#include "Commands.h"
#include "Interrupted.h"
#include "util/Error.h"
#include "util/OutputFile.h"

#include <cstdio>
#include <system_error>

namespace {

int fail(const char* message, int status) {
    std::fprintf(stderr, "tunescope-cli: %s\n", message);
    return status;
}

// stdout is buffered: what a command printed reaches a full disk or a closed pipe only when it is flushed,
// so a command has succeeded only once that flush has.
int flushed(int status) {
    try {
        ts::OutputFile::flushStandardOutput();
    } catch (const ts::Error& e) {
        return fail(e.what(), status == 0 ? 1 : status);
    }
    return status;
}

} // namespace

int main(int argc, char** argv) {
    CLI::App app{"tunescope-cli: auto-tune compute kernels from the command line"};
    app.require_subcommand(1);
    app.set_version_flag("--version", TUNESCOPE_VERSION);
    ts::cli::addInfoCommand(app);
    ts::cli::addStrategiesCommand(app);
    ts::cli::addSchedulersCommand(app);
    ts::cli::addTuneCommand(app);
    ts::cli::addCompareCommand(app);
    ts::cli::addScoreCommand(app);
    ts::cli::addRecordsCommand(app);
    ts::cli::addExportCommand(app);
    ts::cli::addImportCommand(app);
    ts::cli::addBestCommand(app);
    ts::cli::addImportanceCommand(app);
    ts::cli::addKernelsCommand(app);
    ts::cli::addAnalyzeCommand(app);
    ts::cli::addDevicesCommand(app);
    ts::cli::addWorkloadCommand(app);
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        return flushed(app.exit(e));
    } catch (const ts::cli::Interrupted& e) {
        return flushed(fail(e.what(), 128 + e.signal()));
    } catch (const ts::Error& e) {
        return fail(e.what(), 1);
    } catch (const std::system_error& e) {
        // fmt::print throws this when a write to stdout fails (the buffer filled and could not be written).
        if (std::ferror(stdout))
            return fail(ts::OutputFile::standardOutputFailure(e.code().value()).c_str(), 1);
        return fail(("internal error: " + std::string(e.what())).c_str(), 2);
    } catch (const std::exception& e) {
        return fail(("internal error: " + std::string(e.what())).c_str(), 2);
    }
    return flushed(0);
}
