#pragma once

#include "records/RecordStore.h"

#include <filesystem>
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
    };

    explicit TrialImporter(RecordStore& store) : m_store(store) {}

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
    Result store(const Parsed& parsed, const std::string& format);

    RecordStore& m_store;
};

} // namespace ts
