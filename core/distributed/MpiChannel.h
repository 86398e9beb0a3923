#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <optional>

namespace ts {

// Messages between the ranks of an MPI job: one JSON object per message, tagged with its kind. Receiving
// polls (MPI_Iprobe, then a pause that grows to 250 us) instead of blocking in MPI_Recv, so that an idle rank
// does not spin a core that a measurement needs and a wait can end on a signal.
class MpiChannel {
public:
    enum class Tag : int {
        Plan = 1,      // rank 0 -> measuring rank: the session's plan and its space
        Hello = 2,     // measuring rank -> rank 0: its device, or why it cannot measure
        Batch = 3,     // rank 0 -> measuring rank: configs to measure
        Result = 4,    // measuring rank -> rank 0: their measurements
        Stop = 5,      // rank 0 -> measuring rank: the session is over
        Heartbeat = 6, // measuring rank -> rank 0, every 100 ms: this rank is alive
    };

    struct Message {
        int source = 0;
        Tag tag = Tag::Stop;
        nlohmann::json body;
    };

    static void send(int rank, Tag tag, const nlohmann::json& body);
    // The next message from `source` (any rank when negative); nullopt when `stop` returns true first.
    // Throws Error on a message that is not JSON.
    static std::optional<Message> receive(const std::function<bool()>& stop, int source = -1);
    // A message waiting now, without waiting.
    static std::optional<Message> poll(int source = -1);
};

} // namespace ts
