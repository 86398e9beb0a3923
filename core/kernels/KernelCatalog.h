#pragma once

#include "kernels/KernelSpec.h"

#include <filesystem>
#include <string>
#include <vector>

namespace ts {

// The kernels Tunescope knows: every folder holding a kernel.json in the search path. A root is either a
// kernel folder itself or a folder of kernel folders. When two roots hold a kernel of the same name, the
// first one in search order wins and the other is reported in problems().
class KernelCatalog {
public:
    // The default search path, in order: the repository's kernels/, each folder of $TUNESCOPE_KERNEL_PATH
    // (colon-separated), then $XDG_DATA_HOME/tunescope/kernels (default ~/.local/share/tunescope/kernels).
    // Folders that do not exist are kept (and skipped when searched).
    static std::vector<std::filesystem::path> searchPath();

    // Loads every spec under the roots. A malformed spec does not stop the others: it is left out and its
    // error is kept in problems(), and find() of its folder name throws that error.
    explicit KernelCatalog(std::vector<std::filesystem::path> roots = searchPath());

    const std::vector<std::filesystem::path>& roots() const { return m_roots; }
    // Sorted by name.
    const std::vector<KernelSpec>& all() const { return m_kernels; }
    // One sentence per spec that could not be loaded or was shadowed.
    const std::vector<std::string>& problems() const { return m_problems; }

    // Throws Error listing the known kernels when there is no kernel of that name.
    const KernelSpec& find(const std::string& name) const;
    // The first kernel (by name) whose `backend` variant's entry function is `entry` (a replay dataset names
    // its kernel by the function that was measured, e.g. Xgemm); null when none.
    const KernelSpec* findByEntry(const std::string& backend, const std::string& entry) const;

private:
    struct Failure {
        std::string folderName;
        std::string message;
    };

    void scan(const std::filesystem::path& root);
    void load(const std::filesystem::path& specFile);

    std::vector<std::filesystem::path> m_roots;
    std::vector<KernelSpec> m_kernels;
    std::vector<Failure> m_failures;
    std::vector<std::string> m_problems;
};

} // namespace ts
