#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace ts {

// SAX handler for dataset files. Builds an ordered DOM of everything except a top-level "cache" object
// (Kernel Tuner), whose records are most of a large file: those are kept compactly (scalar fields and the
// "times" samples) so that reading 18k records stays well under a second. The DOM gets "cache": {} instead.
class DatasetJsonHandler : public nlohmann::json_sax<nlohmann::ordered_json> {
public:
    using Json = nlohmann::ordered_json;

    struct CacheRecord {
        std::string key;
        std::vector<std::pair<std::uint32_t, Json>> fields; // field id (see fieldId) -> scalar value
        std::vector<double> times;
    };

    // Header only: parsing stops at this top-level key ("cache" of a Kernel Tuner file, "results" of a T4
    // one; stopped() then says so), leaving the DOM of the keys before it: what a catalog of datasets needs
    // to know without reading their records.
    void stopAt(std::string topLevelKey) { m_stopAt = std::move(topLevelKey); }
    bool stopped() const { return m_stopped; }

    const Json& root() const { return m_root; }
    const std::vector<CacheRecord>& records() const { return m_records; }
    // Id of a record field name; nullopt when no record has it.
    std::optional<std::uint32_t> fieldId(const std::string& name) const;
    // Key of a cache entry that is not an object, if any.
    const std::optional<std::string>& badRecordKey() const { return m_badRecordKey; }
    // Byte offset (0-based) where parsing failed and nlohmann's message.
    std::optional<std::size_t> errorByte() const { return m_errorByte; }
    const std::string& errorMessage() const { return m_errorMessage; }
    // True when parsing stopped because arrays and objects nest deeper than kMaxJsonDepth.
    bool tooDeep() const { return m_tooDeep; }
    // True when parsing stopped at an object of the DOM (not the cache) with more than kMaxJsonObjectKeys.
    bool tooWide() const { return m_tooWide; }

    bool null() override;
    bool boolean(bool value) override;
    bool number_integer(number_integer_t value) override;
    bool number_unsigned(number_unsigned_t value) override;
    bool number_float(number_float_t value, const string_t& text) override;
    bool string(string_t& value) override;
    bool binary(binary_t& value) override;
    bool start_object(std::size_t elements) override;
    bool key(string_t& value) override;
    bool end_object() override;
    bool start_array(std::size_t elements) override;
    bool end_array() override;
    bool parse_error(std::size_t position, const std::string& lastToken,
                     const nlohmann::detail::exception& error) override;

private:
    template <typename Value> bool value(Value&& value);
    Json* addToDom(Json&& value);
    bool enter();
    void cacheScalar(Json&& value);
    void leaveCacheLevel();

    Json m_root;
    std::vector<Json*> m_stack; // open DOM containers
    std::string m_key;          // pending object key in the DOM

    // Cache streaming: m_cacheLevel is the nesting below the cache object (0 = in the cache object,
    // 1 = in a record, 2+ = inside a record's array or object); -1 = not in the cache.
    int m_cacheLevel = -1;
    bool m_inTimes = false;
    std::uint32_t m_field = 0;
    std::uint32_t m_timesField = 0;
    std::vector<CacheRecord> m_records;
    std::unordered_map<std::string, std::uint32_t> m_fieldIds;
    std::optional<std::string> m_badRecordKey;
    // > 0 inside a cache entry that is an array, not a record: the cache level its contents start at. They
    // belong to no record (the file is refused by badRecordKey once parsed) and are ignored.
    int m_skipFrom = 0;

    std::string m_stopAt;
    bool m_stopped = false;
    int m_depth = 0;
    bool m_tooDeep = false;
    std::vector<std::size_t> m_keys; // keys so far of each open DOM object
    bool m_tooWide = false;
    std::optional<std::size_t> m_errorByte;
    std::string m_errorMessage;
};

} // namespace ts
