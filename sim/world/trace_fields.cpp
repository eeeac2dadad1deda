// TraceFields: nlohmann's compact dump() of an object, member by member. Plain printable ASCII
// is copied between quotes (dump() escapes nothing there); any other string goes through
// nlohmann, so escapes and UTF-8 checks are its own.
#include "sim/world/trace_fields.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <stdexcept>

#include "sim/base/byte_words.hpp"

namespace ckpt::sim {

namespace {

// Printable ASCII without '"' and '\\' (DEL is escaped): eight bytes at a time, then one by one.
bool needs_no_escape(std::string_view text) {
    std::size_t at = 0;
    for (; at + 8 <= text.size(); at += 8) {
        const std::uint64_t word = byte_words::load(text.data() + at);
        if (!byte_words::all_unescaped_json(word) || byte_words::has_byte(word, 0x7f)) {
            return false;
        }
    }
    return std::all_of(text.begin() + static_cast<std::ptrdiff_t>(at), text.end(),
                       [](char c) { return c >= 0x20 && c <= 0x7e && c != '"' && c != '\\'; });
}

void append_quoted(std::string& out, std::string_view plain) {
    out += '"';
    out += plain;
    out += '"';
}

}  // namespace

void append_json_string(std::string& out, std::string_view value) {
    if (needs_no_escape(value)) {
        append_quoted(out, value);
    } else {
        out += nlohmann::json(value).dump();
    }
}

std::string_view TraceFields::last_key() const noexcept {
    return last_key_at_ == std::string::npos ? std::string_view(last_key_)
                                             : std::string_view(text_).substr(last_key_at_, last_key_size_);
}

void append_json_integer(std::string& out, std::int64_t value) {
    char digits[24];
    out.append(digits, std::to_chars(digits, digits + sizeof digits, value).ptr);
}

void append_json_unsigned(std::string& out, std::uint64_t value) {
    char digits[24];
    out.append(digits, std::to_chars(digits, digits + sizeof digits, value).ptr);
}

void append_json_number(std::string& out, double value) {
    // dump()'s own formatting: its serializer writes "null" for a non-finite double and otherwise
    // calls exactly this grisu2 routine (the shortest round-trip form, "1.0"). Called directly, a
    // number costs no json, output adapter and serializer of its own.
    if (!std::isfinite(value)) {
        out += "null";
        return;
    }
    std::array<char, 64> digits;
    const char* end = nlohmann::detail::to_chars(digits.data(), digits.data() + digits.size(), value);
    out.append(digits.data(), static_cast<std::size_t>(end - digits.data()));
}

// The serializer's compact form, case by case: members in the object's (sorted) order, ','
// between items and no spaces, strings and keys as append_json_string writes them.
void append_json_value(std::string& out, const nlohmann::json& value) {
    using Type = nlohmann::json::value_t;
    switch (value.type()) {
        case Type::object: {
            out += '{';
            bool first = true;
            for (const auto& [key, member] : value.get_ref<const nlohmann::json::object_t&>()) {
                if (!first) {
                    out += ',';
                }
                first = false;
                append_json_string(out, key);
                out += ':';
                append_json_value(out, member);
            }
            out += '}';
            return;
        }
        case Type::array: {
            out += '[';
            bool first = true;
            for (const auto& item : value.get_ref<const nlohmann::json::array_t&>()) {
                if (!first) {
                    out += ',';
                }
                first = false;
                append_json_value(out, item);
            }
            out += ']';
            return;
        }
        case Type::string:
            append_json_string(out, value.get_ref<const std::string&>());
            return;
        case Type::boolean:
            out += value.get<bool>() ? "true" : "false";
            return;
        case Type::null:
            out += "null";
            return;
        case Type::number_integer:
        case Type::number_unsigned:
            if (value.is_number_unsigned()) {
                append_json_unsigned(out, value.get<std::uint64_t>());
            } else {
                append_json_integer(out, value.get<std::int64_t>());
            }
            return;
        case Type::number_float:
            append_json_number(out, value.get<double>());
            return;
        default:  // binary and discarded values: the serializer's own (rare) forms
            out += value.dump();
            return;
    }
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
    const bool plain = needs_no_escape(key);
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
    if (needs_no_escape(value)) {
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
