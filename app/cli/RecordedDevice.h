#pragma once

#include "store/SessionRecord.h"

#include <string>
#include <vector>

namespace ts::cli {

// One device naming across the commands: a session's device as the deployment (and so `best` and
// tunescope/runtime.h) names it: the device's own name from its fingerprint ("AMD EPYC 7763", "NVIDIA H200"),
// not the recorded text that may add the backend and compiler ("cpu: AMD EPYC 7763; g++ 12.2"). `records
// list` prints it.
std::string recordedDeviceName(const SessionRecord& session);

// The deployment's name of the device `text` names: itself when some session's device has that name, else
// the name of the device whose recorded text (whole, or up to its first ';' as older listings printed it)
// or name is `text` ignoring case; `text` unchanged when none matches.
std::string resolveDeviceName(const std::string& text, const std::vector<SessionRecord>& sessions);

} // namespace ts::cli
