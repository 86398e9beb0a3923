#include "util/Gzip.h"

#include "util/Error.h"

#include <fmt/format.h>
#include <zlib.h>

#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>

namespace ts {

namespace {

std::string quoted(const std::filesystem::path& path) {
    return path.string();
}

} // namespace

bool isGzipped(std::string_view bytes) {
    return bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f &&
           static_cast<unsigned char>(bytes[1]) == 0x8b;
}

std::string gunzip(std::string_view bytes, const std::filesystem::path& sourceName) {
    z_stream stream;
    std::memset(&stream, 0, sizeof(stream));
    // 16 + MAX_WBITS: gzip wrapper only.
    if (inflateInit2(&stream, 16 + MAX_WBITS) != Z_OK) {
        throw Error(fmt::format("{} cannot be decompressed: zlib failed to initialise.", quoted(sourceName)));
    }
    std::string out;
    // The gzip trailer holds the uncompressed size modulo 2^32: a good first guess for the buffer.
    std::size_t guess = bytes.size() * 4;
    if (bytes.size() >= 18) {
        const auto* tail = reinterpret_cast<const unsigned char*>(bytes.data() + bytes.size() - 4);
        const std::size_t isize = tail[0] | (tail[1] << 8) | (tail[2] << 16) | (std::size_t(tail[3]) << 24);
        guess = std::max(guess, isize + 1);
    }
    out.resize(std::max<std::size_t>(guess, 1024));
    std::size_t produced = 0;
    std::size_t consumed = 0;
    int rc = Z_OK;
    while (true) {
        if (produced == out.size()) {
            out.resize(out.size() * 2);
        }
        const std::size_t inChunk =
            std::min<std::size_t>(bytes.size() - consumed, std::numeric_limits<uInt>::max());
        const std::size_t outChunk =
            std::min<std::size_t>(out.size() - produced, std::numeric_limits<uInt>::max());
        stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data() + consumed));
        stream.avail_in = static_cast<uInt>(inChunk);
        stream.next_out = reinterpret_cast<Bytef*>(out.data() + produced);
        stream.avail_out = static_cast<uInt>(outChunk);
        rc = inflate(&stream, Z_NO_FLUSH);
        consumed += inChunk - stream.avail_in;
        produced += outChunk - stream.avail_out;
        if (rc == Z_STREAM_END) {
            // Another gzip member may follow (concatenated .gz files).
            if (consumed < bytes.size() && isGzipped(bytes.substr(consumed))) {
                inflateReset(&stream);
                continue;
            }
            break;
        }
        if (rc == Z_BUF_ERROR && consumed == bytes.size() && stream.avail_out != 0) {
            inflateEnd(&stream);
            throw Error(fmt::format("{} is a truncated gzip file (the compressed data ends early).",
                                    quoted(sourceName)));
        }
        if (rc != Z_OK && rc != Z_BUF_ERROR) {
            const std::string detail = stream.msg != nullptr ? stream.msg : "unknown zlib error";
            inflateEnd(&stream);
            throw Error(fmt::format("{} is a corrupt gzip file ({}).", quoted(sourceName), detail));
        }
    }
    inflateEnd(&stream);
    out.resize(produced);
    return out;
}

std::string readMaybeGzippedFile(const std::filesystem::path& path) {
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
        return gunzip(bytes, path);
    }
    return bytes;
}

} // namespace ts
