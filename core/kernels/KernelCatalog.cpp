#include "kernels/KernelCatalog.h"

#include "kernels/KernelSpecReader.h"
#include "util/DataFolders.h"
#include "util/Error.h"

#include <algorithm>
#include <cstdlib>

namespace ts {
namespace {

constexpr const char* kSpecName = "kernel.json";

} // namespace

std::vector<std::filesystem::path> KernelCatalog::searchPath() {
    std::vector<std::filesystem::path> roots{std::filesystem::path(TUNESCOPE_SOURCE_DIR) / "kernels"};
    for (std::filesystem::path& folder : pathListOf("TUNESCOPE_KERNEL_PATH"))
        roots.push_back(std::move(folder));
    if (auto user = userDataFolder("kernels"); !user.empty())
        roots.push_back(std::move(user));
    return roots;
}

KernelCatalog::KernelCatalog(std::vector<std::filesystem::path> roots) : m_roots(std::move(roots)) {
    for (const auto& root : m_roots) {
        scan(root);
    }
    std::stable_sort(m_kernels.begin(), m_kernels.end(),
                     [](const KernelSpec& a, const KernelSpec& b) { return a.name < b.name; });
}

void KernelCatalog::scan(const std::filesystem::path& root) {
    std::error_code ec;
    if (std::filesystem::is_regular_file(root / kSpecName, ec)) {
        load(root / kSpecName);
        return;
    }
    if (!std::filesystem::is_directory(root, ec)) {
        return;
    }
    std::vector<std::filesystem::path> folders;
    for (const auto& entry : std::filesystem::directory_iterator(root, ec)) {
        if (entry.is_directory(ec) && std::filesystem::is_regular_file(entry.path() / kSpecName, ec)) {
            folders.push_back(entry.path());
        }
    }
    std::sort(folders.begin(), folders.end());
    for (const auto& folder : folders) {
        load(folder / kSpecName);
    }
}

void KernelCatalog::load(const std::filesystem::path& specFile) {
    const std::string folderName = specFile.parent_path().filename().string();
    KernelSpec spec;
    try {
        spec = readKernelSpec(specFile);
    } catch (const Error& e) {
        m_failures.push_back({folderName, e.what()});
        m_problems.push_back(e.what());
        return;
    }
    const auto existing = std::find_if(m_kernels.begin(), m_kernels.end(),
                                       [&](const KernelSpec& k) { return k.name == spec.name; });
    if (existing != m_kernels.end()) {
        m_problems.push_back(displayPath(specFile) + ": kernel " + spec.name + " is already defined by " +
                             displayPath(existing->specFile) + ", which takes precedence.");
        return;
    }
    m_kernels.push_back(std::move(spec));
}

const KernelSpec* KernelCatalog::findByEntry(const std::string& backend, const std::string& entry) const {
    for (const auto& kernel : m_kernels) {
        const KernelVariant* variant = kernel.variant(backend);
        if (variant && variant->entry == entry)
            return &kernel;
    }
    return nullptr;
}

const KernelSpec& KernelCatalog::find(const std::string& name) const {
    for (const auto& kernel : m_kernels) {
        if (kernel.name == name) {
            return kernel;
        }
    }
    for (const auto& failure : m_failures) {
        if (failure.folderName == name) {
            throw Error(failure.message);
        }
    }
    std::string known;
    for (const auto& kernel : m_kernels) {
        known += (known.empty() ? "" : ", ") + kernel.name;
    }
    throw Error("Unknown kernel \"" + name + "\" (known kernels: " + (known.empty() ? "none" : known) + ").");
}

} // namespace ts
