#include "util/Gzip.h"

#include "util/Error.h"

#include <fmt/format.h>
#include <zlib.h>

#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>
#include <vector>

namespace ts {

namespace {

constexpr std::size_t kInflateChunk = 256 * 1024;

std::string quoted(const std::filesystem::path& path) {
    return path.string();
}

// A zlib inflate stream for the gzip wrapper, ended on destruction.
class InflateStream {
public:
    explicit InflateStream(const std::filesystem::path& sourceName) {
        std::memset(&m_stream, 0, sizeof(m_stream));
        // 16 + MAX_WBITS: gzip wrapper only.
        if (inflateInit2(&m_stream, 16 + MAX_WBITS) != Z_OK)
            throw Error(
                fmt::format("{} cannot be decompressed: zlib failed to initialise.", quoted(sourceName)));
    }
    ~InflateStream() { inflateEnd(&m_stream); }
    InflateStream(const InflateStream&) = delete;
    InflateStream& operator=(const InflateStream&) = delete;

    z_stream& get() { return m_stream; }
    void reset() {
        if (inflateReset(&m_stream) != Z_OK)
            throw Error("zlib failed to reset its inflate stream.");
    }

private:
    z_stream m_stream;
};

} // namespace

bool isGzipped(std::string_view bytes) {
    return bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f &&
           static_cast<unsigned char>(bytes[1]) == 0x8b;
}

// Inflates through a fixed chunk appended to the output, so memory follows the data actually inflated.
// The size in the gzip trailer is never trusted: a cut or forged file may claim gigabytes.
std::string gunzip(std::string_view bytes, const std::filesystem::path& sourceName, std::size_t limit) {
    InflateStream stream(sourceName);
    std::string out;
    std::vector<unsigned char> chunk(kInflateChunk);
    std::size_t consumed = 0;
    while (true) {
        const std::size_t inChunk =
            std::min<std::size_t>(bytes.size() - consumed, std::numeric_limits<uInt>::max());
        z_stream& z = stream.get();
        z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data() + consumed));
        z.avail_in = static_cast<uInt>(inChunk);
        z.next_out = chunk.data();
        z.avail_out = static_cast<uInt>(chunk.size());
        const int rc = inflate(&z, Z_NO_FLUSH);
        consumed += inChunk - z.avail_in;
        const std::size_t produced = chunk.size() - z.avail_out;
        out.append(reinterpret_cast<const char*>(chunk.data()), produced);
        if (out.size() >= limit)
            break;
        if (rc == Z_STREAM_END) {
            // Another gzip member may follow (concatenated .gz files).
            if (consumed < bytes.size() && isGzipped(bytes.substr(consumed))) {
                stream.reset();
                continue;
            }
            break;
        }
        if (rc == Z_BUF_ERROR || (rc == Z_OK && produced == 0 && consumed == bytes.size())) {
            // No progress possible: all input is used and the stream has not ended.
            throw Error(fmt::format("{} is a truncated gzip file (the compressed data ends early).",
                                    quoted(sourceName)));
        }
        if (rc != Z_OK) {
            throw Error(fmt::format("{} is a corrupt gzip file ({}).", quoted(sourceName),
                                    z.msg != nullptr ? z.msg : "unknown zlib error"));
        }
    }
    return out;
}

std::string readMaybeGzippedFile(const std::filesystem::path& path, std::size_t limit) {
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) {
        throw Error(fmt::format("{} does not exist.", quoted(path)));
    }
    if (std::filesystem::is_directory(path, ec)) {
        throw Error(fmt::format("{} is a directory, not a file.", quoted(path)));
    }
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        throw Error(fmt::format("{} cannot be opened for reading.", quoted(path)));
    }
    std::string bytes;
    const auto size = std::filesystem::file_size(path, ec);
    if (!ec) {
        bytes.resize(size);
        in.read(bytes.data(), static_cast<std::streamsize>(size));
        bytes.resize(static_cast<std::size_t>(in.gcount()));
    } else {
        bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    }
    if (in.bad()) {
        throw Error(fmt::format("{} cannot be read.", quoted(path)));
    }
    if (isGzipped(bytes)) {
        return gunzip(bytes, path, limit);
    }
    if (bytes.size() > limit)
        bytes.resize(limit);
    return bytes;
}

} // namespace ts
