#include "datasets/DatasetJsonHandler.h"

#include "util/BoundedJson.h"

namespace ts {

std::optional<std::uint32_t> DatasetJsonHandler::fieldId(const std::string& name) const {
    const auto it = m_fieldIds.find(name);
    if (it == m_fieldIds.end()) {
        return std::nullopt;
    }
    return it->second;
}

DatasetJsonHandler::Json* DatasetJsonHandler::addToDom(Json&& value) {
    if (m_stack.empty()) {
        m_root = std::move(value);
        return &m_root;
    }
    Json* parent = m_stack.back();
    if (parent->is_array()) {
        parent->push_back(std::move(value));
        return &parent->back();
    }
    Json& slot = (*parent)[m_key];
    slot = std::move(value);
    return &slot;
}

void DatasetJsonHandler::cacheScalar(Json&& value) {
    if (m_skipFrom > 0) {
        return; // inside a cache entry that is not a record: refused later by its key, contents ignored
    }
    if (m_cacheLevel == 0) {
        m_badRecordKey = m_badRecordKey.value_or(m_key);
    } else if (m_cacheLevel == 1) {
        m_records.back().fields.emplace_back(m_field, std::move(value));
    } else if (m_inTimes && value.is_number()) {
        m_records.back().times.push_back(value.get<double>());
    }
}

template <typename Value> bool DatasetJsonHandler::value(Value&& value) {
    if (m_cacheLevel >= 0) {
        cacheScalar(Json(std::forward<Value>(value)));
    } else {
        addToDom(Json(std::forward<Value>(value)));
    }
    return true;
}

bool DatasetJsonHandler::null() {
    return value(nullptr);
}
bool DatasetJsonHandler::boolean(bool flag) {
    return value(flag);
}
bool DatasetJsonHandler::number_integer(number_integer_t number) {
    return value(number);
}
bool DatasetJsonHandler::number_unsigned(number_unsigned_t number) {
    return value(number);
}

bool DatasetJsonHandler::number_float(number_float_t number, const string_t&) {
    if (m_inTimes) {
        m_records.back().times.push_back(number); // the hot path: most numbers of a cache are samples
        return true;
    }
    return value(number);
}

bool DatasetJsonHandler::string(string_t& text) {
    return value(std::move(text));
}
bool DatasetJsonHandler::binary(binary_t&) {
    return value(nullptr);
}

bool DatasetJsonHandler::key(string_t& name) {
    if (!m_stopAt.empty() && m_cacheLevel < 0 && m_depth == 1 && name == m_stopAt) {
        m_stopped = true;
        return false;
    }
    if (m_cacheLevel == 1) {
        const auto [it, inserted] =
            m_fieldIds.try_emplace(name, static_cast<std::uint32_t>(m_fieldIds.size()));
        m_field = it->second;
    } else if (m_cacheLevel <= 0) {
        m_key = std::move(name);
    }
    // Only the DOM's ordered objects search their keys; the cache's records go to m_records.
    if (m_cacheLevel < 0 && !m_keys.empty() && ++m_keys.back() > kMaxJsonObjectKeys) {
        m_tooWide = true;
        return false;
    }
    return true;
}

void DatasetJsonHandler::leaveCacheLevel() {
    if (--m_cacheLevel < m_skipFrom) {
        m_skipFrom = 0;
    }
}

bool DatasetJsonHandler::enter() {
    m_tooDeep = ++m_depth > kMaxJsonDepth;
    return !m_tooDeep;
}

bool DatasetJsonHandler::start_object(std::size_t) {
    if (!enter()) {
        return false;
    }
    if (m_cacheLevel >= 0) {
        if (m_cacheLevel == 0) {
            m_records.push_back(CacheRecord{m_key, {}, {}});
        }
        ++m_cacheLevel;
        return true;
    }
    if (m_stack.size() == 1 && m_key == "cache" && m_stack.back()->is_object()) {
        addToDom(Json::object());
        m_cacheLevel = 0;
        m_timesField =
            m_fieldIds.try_emplace("times", static_cast<std::uint32_t>(m_fieldIds.size())).first->second;
        return true;
    }
    m_stack.push_back(addToDom(Json::object()));
    m_keys.push_back(0);
    return true;
}

bool DatasetJsonHandler::end_object() {
    --m_depth;
    if (m_cacheLevel >= 0) {
        leaveCacheLevel();
        return true;
    }
    m_stack.pop_back();
    m_keys.pop_back();
    return true;
}

bool DatasetJsonHandler::start_array(std::size_t) {
    if (!enter()) {
        return false;
    }
    if (m_cacheLevel >= 0) {
        if (m_cacheLevel == 0) {
            m_badRecordKey = m_badRecordKey.value_or(m_key);
            m_skipFrom = 1;
        } else if (m_cacheLevel == 1 && m_skipFrom == 0 && m_field == m_timesField) {
            m_inTimes = true;
        }
        ++m_cacheLevel;
        return true;
    }
    m_stack.push_back(addToDom(Json::array()));
    return true;
}

bool DatasetJsonHandler::end_array() {
    --m_depth;
    if (m_cacheLevel >= 0) {
        leaveCacheLevel();
        if (m_cacheLevel == 1) {
            m_inTimes = false;
        }
        return true;
    }
    m_stack.pop_back();
    return true;
}

bool DatasetJsonHandler::parse_error(std::size_t position, const std::string&,
                                     const nlohmann::detail::exception& error) {
    m_errorByte = position == 0 ? 0 : position - 1;
    m_errorMessage = error.what();
    return false;
}

} // namespace ts
