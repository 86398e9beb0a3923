#pragma once

#include "store/RecordStore.h"

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace ts {

// Reads trials into the records database, one imported session per session of the input, each in one
// transaction (a bad file adds nothing). Inputs: Kernel Tuner cache JSON, T4 results, KTT output (through
// DatasetReader, plain or gzipped), and TrialExporter's JSON lines and CSV.
class TrialImporter {
public:
    struct Result {
        std::string format; // "kt-cache", "t4", "ktt", "jsonl" or "csv"
        std::vector<std::int64_t> sessions;
        std::size_t trials = 0;
        // What some imported session lacks for `best` and the deployment to find it: "a device name", "a
        // problem size" (none, or only ones such as Kernel Tuner's placeholder [1]). Empty when complete.
        std::vector<std::string> missing;
    };

    // What the user gives for what an input lacks (`import --device NAME --size S`): each replaces the
    // input's own value in every imported session.
    struct Supplied {
        std::string device;
        // The problem size (JSON text) to record for a session of the named kernel; unset: the input's own.
        std::function<std::string(const std::string& kernel)> problem;
    };

    explicit TrialImporter(RecordStore& store, Supplied supplied = {})
        : m_store(store), m_supplied(std::move(supplied)) {}

    // `format` is "auto" (by extension: .jsonl, .csv, otherwise a JSON dataset detected by content) or one
    // of Result::format's names. Throws Error naming the file and the problem (line or key) on bad input.
    Result import(const std::filesystem::path& input, const std::string& format = "auto");

    // The sessions and trials a JSON lines or CSV text describes, without touching a database (also what
    // the fuzz targets exercise). Trials are grouped per session in the order of `sessions`.
    struct Parsed {
        std::vector<SessionRecord> sessions;
        std::vector<std::vector<StoredTrial>> trials;
    };
    static Parsed parseJsonLines(const std::string& text, const std::string& source);
    static Parsed parseCsv(const std::string& text, const std::string& source);

private:
    Result importDataset(const std::filesystem::path& input, const std::string& format);
    Result store(Parsed parsed, const std::string& format);
    void supply(SessionRecord& session) const;

    RecordStore& m_store;
    Supplied m_supplied;
};

} // namespace ts
