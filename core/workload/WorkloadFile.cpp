#include "workload/WorkloadFile.h"

#include "kernels/KernelCatalog.h"
#include "kernels/KernelSizes.h"
#include "kernels/KernelSpecReader.h"
#include "util/BoundedJson.h"
#include "util/Error.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <system_error>

namespace ts {

namespace {

using Json = nlohmann::ordered_json;
namespace fs = std::filesystem;

constexpr std::size_t kMaxNameLength = 200;

// What one task tunes, before the size is checked against its kernel.
struct TaskInput {
    std::string name;
    double weight = 1;
    std::string kernel;     // a catalog name, or
    std::string kernelSpec; // an absolute kernel.json path, or
    std::string dataset;    // an absolute replay dataset path
    std::string size;       // size text as given; empty: the spec's defaults
    SearchSettings settings;
};

// The session of one task: the command line's measurement options, seed and budget, the task's target at
// its size (`size`: written out in full), then the settings of the file's defaults, the task and the command
// line.
SessionPlan taskPlan(const std::string& backend, const TaskInput& task, const std::string& size,
                     const SearchSettings& fileDefaults, const WorkloadDefaults& d) {
    SessionPlan plan;
    plan.backend = backend;
    plan.seed = d.seed;
    if (d.budget > 0)
        plan.budget = d.budget;
    plan.dataset = task.dataset;
    if (!task.dataset.empty())
        plan.replayDelayMs = d.replayDelayMs; // a kernel task is measured for real
    if (task.dataset.empty()) {
        plan.kernel = d.measurement;
        plan.kernel.kernel = task.kernel;
        plan.kernel.kernelSpec = task.kernelSpec;
        plan.kernel.size = size;
    }
    fileDefaults.applyTo(plan);
    task.settings.applyTo(plan);
    d.search.applyTo(plan);
    return plan;
}

WorkloadPlan workloadOf(const std::string& name, const std::string& backend, const WorkloadDefaults& d) {
    WorkloadPlan plan;
    plan.name = name;
    plan.backend = backend;
    plan.seed = d.seed;
    plan.budget = d.budget;
    plan.scheduler = d.scheduler;
    plan.schedulerOptions = d.schedulerOptions;
    return plan;
}

// The size as it is stored: every value by name, in the spec's order.
std::string fullSize(const KernelSpec& spec, const std::string& text) {
    return formatProblemSize(spec, text.empty() ? spec.defaultSize() : parseProblemSize(spec, text));
}

std::string excerpt(const Json& value) {
    std::string text = value.dump();
    if (text.size() > 60)
        text = text.substr(0, 57) + "...";
    return text;
}

std::string joined(std::initializer_list<const char*> keys) {
    std::string list;
    for (const char* key : keys)
        list += (list.empty() ? "" : ", ") + std::string(key);
    return list;
}

// The file's whole text, read only when it is a regular file (a fifo would block the open, a device would
// never end) and at most kMaxBytes.
std::string readText(const fs::path& file, const std::string& display) {
    std::error_code ec;
    const fs::file_status status = fs::status(file, ec);
    if (status.type() == fs::file_type::not_found)
        throw Error(fmt::format("{}: no such file.", display));
    if (ec)
        throw Error(fmt::format("{}: cannot be read ({}).", display, ec.message()));
    if (fs::is_directory(status))
        throw Error(fmt::format("{}: is a folder, not a workload file.", display));
    if (!fs::is_regular_file(status))
        throw Error(fmt::format("{}: not a regular file (a fifo, socket or device), so not a workload file.",
                                display));
    errno = 0;
    const std::unique_ptr<std::FILE, int (*)(std::FILE*)> in(std::fopen(file.c_str(), "rb"), &std::fclose);
    if (!in)
        throw Error(fmt::format("{}: cannot be opened ({}).", display, std::strerror(errno)));
    std::string text;
    char buffer[65536];
    while (true) {
        const std::size_t n = std::fread(buffer, 1, sizeof buffer, in.get());
        text.append(buffer, n);
        if (text.size() > WorkloadFile::kMaxBytes)
            throw Error(fmt::format("{}: larger than {} MiB, the limit for a workload file.", display,
                                    WorkloadFile::kMaxBytes / (1024 * 1024)));
        if (n < sizeof buffer)
            break;
    }
    if (std::ferror(in.get()))
        throw Error(fmt::format("{}: cannot be read ({}).", display, std::strerror(errno)));
    return text;
}

// Reads one workload file; every failure is one sentence naming the file, the task and the key.
class FileReader {
public:
    FileReader(const fs::path& file, const WorkloadDefaults& defaults)
        : m_file(fs::absolute(file).lexically_normal()), m_folder(m_file.parent_path()),
          m_display(displayPath(file)), m_defaults(defaults) {}

    WorkloadPlan read() {
        const Json root = parse();
        if (!root.is_object())
            throw Error(fmt::format("{}: the top level is not a JSON object.", m_display));
        const std::string top = "the workload";
        checkKeys(root, top, {"name", "device", "source", "defaults", "tasks"});
        const std::string name = this->name(root, top);
        const std::optional<std::string> device = optionalString(root, top, "device");
        const std::string source = optionalString(root, top, "source").value_or("");
        SearchSettings fileDefaults;
        if (const auto it = root.find("defaults"); it != root.end()) {
            const std::string subject = "\"defaults\"";
            if (!it->is_object())
                failType(top, "defaults", *it, "an object");
            checkKeys(*it, subject,
                      {"strategy", "options", "space", "batch_size", "constraints", "cold", "transfer",
                       "stochastic"});
            fileDefaults = settings(*it, subject);
        }
        const std::vector<TaskInput> tasks = readTasks(root);
        WorkloadPlan plan = workloadOf(name, backendOf(device, tasks), m_defaults);
        plan.file = m_file.string();
        plan.source = source;
        for (std::size_t i = 0; i < tasks.size(); ++i)
            plan.tasks.push_back({tasks[i].name, tasks[i].weight,
                                  taskPlan(plan.backend, tasks[i], checkedSize(i, tasks[i], plan.backend),
                                           fileDefaults, m_defaults)});
        plan = plan.withAbsolutePaths();
        plan.checkTasks();
        return plan;
    }

private:
    [[noreturn]] void fail(const std::string& subject, const std::string& problem) const {
        throw Error(fmt::format("{}: {} {}", m_display, subject, problem));
    }
    [[noreturn]] void failType(const std::string& subject, const std::string& key, const Json& value,
                               const std::string& expected) const {
        fail(subject, fmt::format("has \"{}\": {}, which is not {}.", key, excerpt(value), expected));
    }

    Json parse() const {
        const std::string text = readText(m_file, m_display);
        try {
            return parseBoundedOrderedJson(text, m_display, JsonSyntaxErrors::Throw);
        } catch (const Json::parse_error& e) {
            // nlohmann quotes the token it last read, which may be the whole of a huge string.
            std::string reason = e.what();
            if (reason.size() > 300)
                reason = reason.substr(0, 297) + "...";
            throw Error(fmt::format("{}: not valid JSON ({}).", m_display, reason));
        }
    }

    void checkKeys(const Json& object, const std::string& subject,
                   std::initializer_list<const char*> known) const {
        for (const auto& item : object.items())
            if (std::none_of(known.begin(), known.end(), [&](const char* k) { return item.key() == k; }))
                fail(subject,
                     fmt::format("has the unknown key \"{}\" (known: {}).", item.key(), joined(known)));
    }

    std::optional<std::string> optionalString(const Json& object, const std::string& subject,
                                              const char* key) const {
        const auto it = object.find(key);
        if (it == object.end())
            return std::nullopt;
        if (!it->is_string())
            failType(subject, key, *it, "a string");
        return it->get<std::string>();
    }

    std::string requiredString(const Json& object, const std::string& subject, const char* key) const {
        const std::optional<std::string> text = optionalString(object, subject, key);
        if (!text)
            fail(subject, fmt::format("has no \"{}\".", key));
        if (text->empty())
            fail(subject, fmt::format("has an empty \"{}\".", key));
        return *text;
    }

    // A name shown in tables and sentences: one line, not too long.
    std::string name(const Json& object, const std::string& subject) const {
        const std::string text = requiredString(object, subject, "name");
        if (text.size() > kMaxNameLength || std::any_of(text.begin(), text.end(), [](char c) {
                return static_cast<unsigned char>(c) < 0x20 || c == 0x7f;
            }))
            failType(
                subject, "name", object.at("name"),
                fmt::format("a name of at most {} characters without control characters", kMaxNameLength));
        return text;
    }

    std::optional<bool> optionalBool(const Json& object, const std::string& subject, const char* key) const {
        const auto it = object.find(key);
        if (it == object.end())
            return std::nullopt;
        if (!it->is_boolean())
            failType(subject, key, *it, "true or false");
        return it->get<bool>();
    }

    std::vector<std::string> stringList(const Json& object, const std::string& subject,
                                        const char* key) const {
        std::vector<std::string> list;
        const auto it = object.find(key);
        if (it == object.end())
            return list;
        if (!it->is_array())
            failType(subject, key, *it, "a list of strings");
        for (std::size_t i = 0; i < it->size(); ++i) {
            const Json& item = (*it)[i];
            if (!item.is_string() || item.get<std::string>().empty())
                failType(subject, fmt::format("{}[{}]", key, i), item, "a non-empty string");
            list.push_back(item.get<std::string>());
        }
        return list;
    }

    SearchSettings settings(const Json& object, const std::string& subject) const {
        SearchSettings s;
        s.strategy = optionalString(object, subject, "strategy");
        if (s.strategy && s.strategy->empty())
            fail(subject, "has an empty \"strategy\".");
        if (const auto it = object.find("options"); it != object.end()) {
            if (!it->is_object())
                failType(subject, "options", *it, "an object of option values");
            for (const auto& [name, value] : it->items()) {
                if (value.is_object() || value.is_array() || value.is_null())
                    failType(subject, "options." + name, value, "a string, number or true/false");
                s.options[name] = value.is_string() ? value.get<std::string>() : value.dump();
            }
        }
        if (const std::optional<std::string> space = optionalString(object, subject, "space")) {
            s.mode = spaceModeFromString(*space);
            if (!s.mode)
                failType(subject, "space", Json(*space), "\"constrained\" or \"product\"");
        }
        if (const auto it = object.find("batch_size"); it != object.end()) {
            if (!it->is_number_unsigned() || it->get<std::uint64_t>() == 0)
                failType(subject, "batch_size", *it, "a whole number of 1 or more");
            s.batchSize = it->get<std::size_t>();
        }
        s.constraints = stringList(object, subject, "constraints");
        s.cold = optionalBool(object, subject, "cold");
        s.transfer = optionalBool(object, subject, "transfer");
        s.stochastic = optionalBool(object, subject, "stochastic");
        return s;
    }

    std::vector<TaskInput> readTasks(const Json& root) const {
        const auto it = root.find("tasks");
        if (it == root.end())
            fail("the workload", "has no \"tasks\".");
        if (!it->is_array())
            failType("the workload", "tasks", *it, "a list of tasks");
        if (it->empty())
            fail("the workload", "has an empty \"tasks\" list: a workload needs at least one task.");
        if (it->size() > WorkloadFile::kMaxTasks)
            fail("the workload", fmt::format("has {} tasks, more than the limit of {}.", it->size(),
                                             WorkloadFile::kMaxTasks));
        std::vector<TaskInput> tasks;
        for (std::size_t i = 0; i < it->size(); ++i) {
            tasks.push_back(readTask((*it)[i], i));
            for (std::size_t j = 0; j < i; ++j)
                if (tasks[j].name == tasks[i].name)
                    fail(label(i, tasks[i].name),
                         fmt::format("has the same \"name\" as task {}: task names must be unique.", j + 1));
        }
        return tasks;
    }

    static std::string label(std::size_t index, const std::string& name = "") {
        return name.empty() ? fmt::format("task {}", index + 1)
                            : fmt::format("task {} (\"{}\")", index + 1, name);
    }

    TaskInput readTask(const Json& json, std::size_t index) const {
        if (!json.is_object())
            fail(label(index), fmt::format("is {}, which is not an object.", excerpt(json)));
        TaskInput task;
        task.name = name(json, label(index));
        const std::string subject = label(index, task.name);
        checkKeys(json, subject,
                  {"name", "weight", "kernel", "kernel_spec", "dataset", "size", "strategy", "options",
                   "space", "batch_size", "constraints", "cold", "transfer", "stochastic"});
        if (const auto it = json.find("weight"); it != json.end()) {
            if (!it->is_number() || !std::isfinite(it->get<double>()) || it->get<double>() < 0)
                failType(subject, "weight", *it, "a number of 0 or more (calls per inference)");
            task.weight = it->get<double>();
        }
        readTarget(json, subject, task);
        task.settings = settings(json, subject);
        return task;
    }

    void readTarget(const Json& json, const std::string& subject, TaskInput& task) const {
        std::vector<const char*> given;
        for (const char* key : {"kernel", "kernel_spec", "dataset"})
            if (json.contains(key))
                given.push_back(key);
        if (given.empty())
            fail(subject, "has no target: give one of \"kernel\", \"kernel_spec\" or \"dataset\".");
        if (given.size() > 1)
            fail(subject, fmt::format("has both \"{}\" and \"{}\": give one target (kernel, kernel_spec or "
                                      "dataset).",
                                      given[0], given[1]));
        const std::string target = requiredString(json, subject, given[0]);
        if (std::string(given[0]) == "kernel")
            task.kernel = target;
        else if (std::string(given[0]) == "kernel_spec")
            task.kernelSpec = resolved(target);
        else
            task.dataset = resolved(target);
        if (const auto it = json.find("size"); it != json.end()) {
            if (!task.dataset.empty())
                fail(subject, "has \"size\", but a dataset task is replayed at the size it was recorded at.");
            task.size = sizeText(*it, subject);
        }
    }

    // "size": the text of `tune --size`, or an object of sizes by name ({"M": 128, "K": 768}).
    std::string sizeText(const Json& size, const std::string& subject) const {
        if (size.is_string())
            return size.get<std::string>();
        if (!size.is_object())
            failType(subject, "size", size, "a size text (\"M=128,K=768\") or an object of named sizes");
        std::string text;
        for (const auto& [name, value] : size.items()) {
            if (!value.is_number_integer())
                failType(subject, "size." + name, value, "a whole number");
            text += fmt::format("{}{}={}", text.empty() ? "" : ",", name, value.dump());
        }
        if (text.empty())
            fail(subject, "has an empty \"size\" object: name the sizes or leave \"size\" out.");
        return text;
    }

    std::string resolved(const std::string& path) const {
        const fs::path p(path);
        return (p.is_absolute() ? p : m_folder / p).lexically_normal().string();
    }

    std::string backendOf(const std::optional<std::string>& device,
                          const std::vector<TaskInput>& tasks) const {
        std::string backend;
        std::string origin;
        if (m_defaults.backend) {
            backend = *m_defaults.backend;
            if (backend != "cpu" && backend != "cuda" && backend != "replay")
                throw Error(fmt::format("The backend \"{}\" is not one of replay, cpu or cuda.", backend));
            origin = "the command line's backend";
        } else if (device) {
            backend = *device;
            origin = "its \"device\"";
            if (backend != "cpu" && backend != "cuda" && backend != "replay")
                failType("the workload", "device", Json(backend), "\"cpu\", \"cuda\" or \"replay\"");
        } else {
            const auto kernelTask = std::find_if(tasks.begin(), tasks.end(),
                                                 [](const TaskInput& t) { return t.dataset.empty(); });
            if (kernelTask != tasks.end())
                fail("the workload", fmt::format("has no \"device\": {} measures a kernel, on \"cpu\" or "
                                                 "\"cuda\".",
                                                 label(static_cast<std::size_t>(kernelTask - tasks.begin()),
                                                       kernelTask->name)));
            return "replay";
        }
        for (std::size_t i = 0; i < tasks.size(); ++i) {
            const bool replayed = !tasks[i].dataset.empty();
            if (replayed != (backend == "replay"))
                fail(label(i, tasks[i].name),
                     fmt::format("has \"{}\", but the workload is measured on {} ({}): {}.",
                                 replayed                  ? "dataset"
                                 : tasks[i].kernel.empty() ? "kernel_spec"
                                                           : "kernel",
                                 backend, origin,
                                 replayed ? "a dataset is replayed, on \"replay\" only"
                                          : "a kernel is measured on \"cpu\" or \"cuda\""));
        }
        return backend;
    }

    // The task's size in full, after the cheap checks of its target: the dataset is a file; the kernel is
    // known (or its spec reads), has a variant for the backend, and the size parses against it.
    std::string checkedSize(std::size_t index, const TaskInput& task, const std::string& backend) {
        const std::string subject = label(index, task.name);
        if (!task.dataset.empty()) {
            std::error_code ec;
            if (!fs::is_regular_file(task.dataset, ec))
                fail(subject, fmt::format("has \"dataset\": {}, which is not a file.", task.dataset));
            return "";
        }
        const std::string key = task.kernel.empty() ? "kernel_spec" : "kernel";
        const KernelSpec& spec = specOf(task, subject, key);
        if (!spec.variant(backend)) {
            std::string variants;
            for (const auto& [name, variant] : spec.variants)
                variants += (variants.empty() ? "" : ", ") + name;
            fail(subject, fmt::format("has \"{}\": {}, which has no {} variant (it has: {}).", key, spec.name,
                                      backend, variants));
        }
        try {
            return fullSize(spec, task.size);
        } catch (const Error& e) {
            throw Error(fmt::format("{}: {}, \"size\": {}", m_display, subject, e.what()));
        }
    }

    const KernelSpec& specOf(const TaskInput& task, const std::string& subject, const std::string& key) {
        const std::string id = task.kernel.empty() ? task.kernelSpec : "catalog:" + task.kernel;
        if (const auto it = m_specs.find(id); it != m_specs.end())
            return it->second;
        try {
            if (!task.kernel.empty()) {
                if (!m_catalog)
                    m_catalog.emplace();
                return m_specs.emplace(id, m_catalog->find(task.kernel)).first->second;
            }
            return m_specs.emplace(id, readKernelSpec(task.kernelSpec)).first->second;
        } catch (const Error& e) {
            throw Error(fmt::format("{}: {}, \"{}\": {}", m_display, subject, key, e.what()));
        }
    }

    fs::path m_file;
    fs::path m_folder;
    std::string m_display;
    const WorkloadDefaults& m_defaults;
    std::optional<KernelCatalog> m_catalog;
    std::map<std::string, KernelSpec> m_specs;
};

} // namespace

WorkloadPlan WorkloadFile::read(const fs::path& file, const WorkloadDefaults& defaults) {
    return FileReader(file, defaults).read();
}

WorkloadDefaults WorkloadFile::defaultsOf(const SessionPlan& base) {
    WorkloadDefaults d;
    d.backend = base.backend;
    d.search = SearchSettings::of(base);
    d.measurement = base.kernel;
    d.seed = base.seed;
    d.budget = base.budget;
    return d;
}

WorkloadPlan WorkloadFile::ofSizes(const SessionPlan& base, const std::vector<std::string>& sizes) {
    if (!base.kernel.active())
        throw Error(
            "A workload of several sizes needs a kernel: a name of the catalog or a kernel spec file.");
    const KernelSpec spec = loadKernelSpec(base.kernel);
    const WorkloadDefaults d = defaultsOf(base);
    WorkloadPlan plan =
        workloadOf(fmt::format("{} at {} size{}", spec.name, sizes.size(), sizes.size() == 1 ? "" : "s"),
                   base.backend, d);
    for (const std::string& text : sizes) {
        TaskInput task;
        task.kernel = base.kernel.kernel;
        task.kernelSpec = base.kernel.kernelSpec;
        const std::string size = fullSize(spec, text);
        task.name = spec.name + " " + size;
        plan.tasks.push_back(
            {task.name, task.weight, taskPlan(plan.backend, task, size, SearchSettings{}, d)});
    }
    plan = plan.withAbsolutePaths();
    plan.checkTasks();
    return plan;
}

} // namespace ts
