#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace ts {

// An output the user named: a path, or "-" for standard output. Every command that writes a file or stdout
// goes through it.
//
// A path must be a regular file or not exist yet: a symbolic link, device, FIFO, socket or directory is
// refused, so an output never replaces or writes through anything else. The bytes go into a temporary file
// beside the target, which commit() syncs and renames over it; a failure, or destruction before commit(),
// removes the temporary, so no empty or partial file is left and an earlier file at the path stays intact.
// Every write, flush, sync, close and rename is checked and throws Error with one sentence naming the output.
// Not thread-safe; one object per output.
class OutputFile {
public:
    // `what` names the output in errors ("export file", "trace file"). Throws Error when `target` cannot be
    // written (refused kind, missing or unwritable folder).
    OutputFile(std::string target, std::string what);
    ~OutputFile();
    OutputFile(const OutputFile&) = delete;
    OutputFile& operator=(const OutputFile&) = delete;

    // Throws Error when the target is the file `input` (under any name), which the output must not replace.
    void protect(const std::filesystem::path& input) const;

    void write(std::string_view bytes);
    // Makes the output final: syncs, closes and renames the temporary over the target; for "-", flushes
    // standard output. Throws Error, leaving the target as it was, when any step fails.
    void commit();

    const std::string& target() const { return m_target; }
    bool isStandardOutput() const { return m_target == "-"; }

    // Writes `text` as the whole of `target` ("-" for standard output).
    static void writeAll(const std::string& target, const std::string& what, std::string_view text);

    // Flushes stdout (and with it std::cout, which shares its buffer). Throws Error when the flush or an
    // earlier write to stdout failed; the CLI calls it before exiting so a full disk or a closed output is
    // never a silent success.
    static void flushStandardOutput();
    // "Cannot write to standard output: REASON." for an errno value (0 when unknown).
    static std::string standardOutputFailure(int error);

private:
    void openTemporary();
    void fail(int error);
    void discard() noexcept;

    std::string m_target;
    std::string m_what;
    std::filesystem::path m_temporary;
    int m_fd = -1;
    bool m_done = false;
};

} // namespace ts
