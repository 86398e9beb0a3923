#pragma once

#include "kernels/KernelCatalog.h"
#include "kernels/KernelSpec.h"
#include "store/SessionRecord.h"

#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

namespace ts::cli {

// How the records name one kernel's problem sizes, so that every command reads `--size` with `tune`'s
// grammar (parseProblemSize): all values in problem order, or some by name with the others at their
// defaults. A kernel session stores its size as a JSON object of named sizes; the problem order and the
// defaults come from the kernel's spec (the file recorded with the session, else the catalog's), or, when
// neither still matches the stored names, from the stored order and the values all sessions agree on. A
// replay or imported kernel stores a list of numbers without names: its sizes are positional only.
class ProblemNaming {
public:
    // From the sessions of `kernel` among `sessions` (the others are ignored).
    ProblemNaming(const std::string& kernel, const std::vector<SessionRecord>& sessions,
                  const KernelCatalog& catalog);

    bool named() const { return !m_storedNames.empty(); }
    // The names in the order the records store them (empty when unnamed).
    const std::vector<std::string>& storedNames() const { return m_storedNames; }
    // "M,N,K" in problem order; empty when unnamed.
    std::string names() const;
    // The numbers of values the kernel's recorded sizes have (usually one).
    const std::set<std::size_t>& ranks() const { return m_ranks; }

    // `--size` text as the shape a deployment lists for it: values in the order the records store them.
    // Throws Error naming the text and the problem: a bad value, an unknown or repeated name, a name without
    // a default, names for a kernel whose sizes have none. A positional size of another rank than the
    // recorded ones is returned as given (a lookup then finds no record at it: the caller warns).
    std::vector<std::int64_t> parse(const std::string& text) const;

    // A size of numbers without names, each checked as parseProblemSize checks a value.
    static std::vector<std::int64_t> parsePositional(const std::string& kernel, const std::string& text);

    // A stored problem (JSON text) as `--size` text that parse() accepts back: "M=16,N=32,K=48" in problem
    // order, "4096,4096" for a list, "-" when there is none.
    std::string describe(const std::string& problem) const;

    // A shape in the stored order (a deployment's) for messages: "M=16,N=32,K=48" in problem order when the
    // kernel's sizes are named and the rank matches, else "[4096, 4096]".
    std::string describeShape(const std::vector<std::int64_t>& shape) const;

private:
    std::string m_kernel;
    std::vector<std::string> m_storedNames; // the key order of the stored object (the deployment's order)
    KernelSpec m_spec; // problem order and defaults (0: none known); a real spec also checks argument counts
    std::set<std::size_t> m_ranks;
};

// A stored problem size (JSON text) as a list of numbers, in the stored order; empty when it has none.
std::vector<std::int64_t> storedShape(const std::string& problem);

} // namespace ts::cli
