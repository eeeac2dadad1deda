// TraceFields: nlohmann's compact dump() of an object, member by member, through
// sim/base/json_text.hpp: plain printable ASCII is copied between quotes (dump() escapes nothing
// there); any other string goes through nlohmann, so escapes and UTF-8 checks are its own.
#include "sim/world/trace_fields.hpp"

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <stdexcept>

namespace ckpt::sim {

namespace {

void append_quoted(std::string& out, std::string_view plain) {
    out += '"';
    out += plain;
    out += '"';
}

}  // namespace

std::string_view TraceFields::last_key() const noexcept {
    return last_key_at_ == std::string::npos ? std::string_view(last_key_)
                                             : std::string_view(text_).substr(last_key_at_, last_key_size_);
}

void TraceFields::open_member(std::string_view key) {
    // The envelope's keys are Trace's own; no member of a line, nested or not, reuses one.
    static constexpr std::array<std::string_view, 4> kEnvelope{"t", "inc", "rank", "kind"};
    if (std::find(kEnvelope.begin(), kEnvelope.end(), key) != kEnvelope.end()) {
        throw std::logic_error("trace detail uses the reserved key '" + std::string(key) + "'");
    }
    if (!text_.empty() && key <= last_key()) {
        throw std::logic_error("trace detail '" + std::string(key) + "' is not after '" +
                               std::string(last_key()) + "': nlohmann would order the keys differently");
    }
    // Escaped before anything is written, so a key nlohmann refuses leaves the fields as they were.
    const bool plain = is_plain_json_string(key);
    const std::string escaped = plain ? std::string() : nlohmann::json(key).dump();
    if (text_.empty()) {
        text_.reserve(kTypicalSize);  // one allocation for a whole line's members
    } else {
        text_ += ',';
    }
    if (plain) {
        // The key stands unchanged between its quotes: the next member compares with it there.
        text_ += '"';
        last_key_at_ = text_.size();
        last_key_size_ = key.size();
        text_ += key;
        text_ += '"';
    } else {
        text_ += escaped;
        last_key_at_ = std::string::npos;
        last_key_.assign(key);
    }
    text_ += ':';
}

TraceFields& TraceFields::null(std::string_view key) {
    open_member(key);
    text_ += "null";
    return *this;
}

TraceFields& TraceFields::integer(std::string_view key, std::int64_t value) {
    open_member(key);
    append_json_integer(text_, value);
    return *this;
}

TraceFields& TraceFields::integer_or_null(std::string_view key, std::optional<std::int64_t> value) {
    return value ? integer(key, *value) : null(key);
}

TraceFields& TraceFields::number(std::string_view key, double value) {
    open_member(key);
    append_json_number(text_, value);
    return *this;
}

TraceFields& TraceFields::number_or_null(std::string_view key, std::optional<double> value) {
    return value ? number(key, *value) : null(key);
}

TraceFields& TraceFields::boolean(std::string_view key, bool value) {
    open_member(key);
    text_ += value ? "true" : "false";
    return *this;
}

TraceFields& TraceFields::string(std::string_view key, std::string_view value) {
    if (is_plain_json_string(value)) {
        open_member(key);
        append_quoted(text_, value);
        return *this;
    }
    // Escaped before the member opens: a value nlohmann refuses (not UTF-8) leaves no half member.
    const auto escaped = nlohmann::json(value).dump();
    open_member(key);
    text_ += escaped;
    return *this;
}

TraceFields& TraceFields::object(std::string_view key, const TraceFields& members) {
    open_member(key);
    text_ += '{';
    text_ += members.text_;
    text_ += '}';
    return *this;
}

TraceFields& TraceFields::raw(std::string_view key, std::string_view json_text) {
    open_member(key);
    text_ += json_text;
    return *this;
}

}  // namespace ckpt::sim
