#include "RecordedDevice.h"

#include "hardware/DeviceFingerprint.h"

#include <algorithm>
#include <cctype>

namespace ts::cli {

namespace {

std::string lower(std::string text) {
    std::transform(text.begin(), text.end(), text.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return text;
}

std::string trimmed(const std::string& text) {
    const auto first = text.find_first_not_of(" \t");
    if (first == std::string::npos)
        return {};
    return text.substr(first, text.find_last_not_of(" \t") - first + 1);
}

} // namespace

std::string recordedDeviceName(const SessionRecord& session) {
    const DeviceFingerprint fingerprint = DeviceFingerprint::fromJson(session.deviceInfo);
    return fingerprint.name.empty() ? session.device : fingerprint.name;
}

std::string resolveDeviceName(const std::string& text, const std::vector<SessionRecord>& sessions) {
    for (const SessionRecord& session : sessions)
        if (recordedDeviceName(session) == text)
            return text;
    const std::string wanted = lower(trimmed(text));
    for (const SessionRecord& session : sessions) {
        const std::string name = recordedDeviceName(session);
        const std::string recorded = lower(session.device);
        if (wanted == lower(name) || wanted == recorded ||
            wanted == trimmed(recorded.substr(0, recorded.find(';'))))
            return name;
    }
    return text;
}

} // namespace ts::cli
