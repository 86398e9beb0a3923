#include "distributed/MpiChannel.h"

#include "util/Error.h"

#include <fmt/format.h>
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <string>
#include <thread>

namespace ts {

namespace {

// The longest pause between two looks for a message: short against a measurement (the pause is a
// message's latency), long enough that a waiting rank takes next to no CPU.
constexpr auto kLongestPause = std::chrono::microseconds(250);

} // namespace

void MpiChannel::send(int rank, Tag tag, const nlohmann::json& body) {
    const std::string text = body.dump();
    if (MPI_Send(text.data(), static_cast<int>(text.size()), MPI_CHAR, rank, static_cast<int>(tag),
                 MPI_COMM_WORLD) != MPI_SUCCESS)
        throw Error(fmt::format("Sending a message to MPI rank {} failed.", rank));
}

std::optional<MpiChannel::Message> MpiChannel::poll(int source) {
    int waiting = 0;
    MPI_Status status;
    MPI_Iprobe(source < 0 ? MPI_ANY_SOURCE : source, MPI_ANY_TAG, MPI_COMM_WORLD, &waiting, &status);
    if (!waiting)
        return std::nullopt;
    int bytes = 0;
    MPI_Get_count(&status, MPI_CHAR, &bytes);
    std::string text(static_cast<std::size_t>(std::max(bytes, 0)), '\0');
    MPI_Recv(text.data(), bytes, MPI_CHAR, status.MPI_SOURCE, status.MPI_TAG, MPI_COMM_WORLD,
             MPI_STATUS_IGNORE);
    Message message;
    message.source = status.MPI_SOURCE;
    message.tag = static_cast<Tag>(status.MPI_TAG);
    message.body = nlohmann::json::parse(text, nullptr, false);
    if (message.body.is_discarded())
        throw Error(fmt::format("MPI rank {} sent a message that is not JSON.", message.source));
    return message;
}

std::optional<MpiChannel::Message> MpiChannel::receive(const std::function<bool()>& stop, int source) {
    auto pause = std::chrono::microseconds(20);
    for (;;) {
        if (std::optional<Message> message = poll(source))
            return message;
        if (stop && stop())
            return std::nullopt;
        std::this_thread::sleep_for(pause);
        pause = std::min(pause * 2, kLongestPause);
    }
}

} // namespace ts
