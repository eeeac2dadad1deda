// The dump fast path: nlohmann's serializer layout restated, recursing over the tree. A binary
// value (never in a document ckptsim writes) sends the whole document to nlohmann.
#include "policy/base/plain_json_dump.hpp"

#include <array>
#include <charconv>
#include <cmath>
#include <string_view>

namespace ckpt {

using nlohmann::json;

namespace {

bool is_plain_string(std::string_view text) noexcept {
    for (const char c : text) {
        const auto byte = static_cast<unsigned char>(c);
        if (byte < 0x20 || byte > 0x7E || c == '"' || c == '\\') {
            return false;
        }
    }
    return true;
}

class JsonWriter {
  public:
    JsonWriter(std::string& out, int indent) : out_(out), pretty_(indent >= 0), step_(pretty_ ? indent : 0) {}

    // True when a value was met whose text this writer leaves to nlohmann's whole-document dump.
    bool declined() const noexcept { return declined_; }

    void write(const json& value, std::size_t level) {
        switch (value.type()) {
            case json::value_t::object:
                write_object(value.get_ref<const json::object_t&>(), level);
                return;
            case json::value_t::array:
                write_array(value.get_ref<const json::array_t&>(), level);
                return;
            case json::value_t::string:
                write_string(value.get_ref<const std::string&>());
                return;
            case json::value_t::boolean:
                append(value.get<bool>() ? std::string_view("true") : std::string_view("false"));
                return;
            case json::value_t::null:
                append("null");
                return;
            case json::value_t::number_integer:
                write_integer(value.get<std::int64_t>());
                return;
            case json::value_t::number_unsigned:
                write_integer(value.get<std::uint64_t>());
                return;
            case json::value_t::number_float:
                write_double(value.get<double>());
                return;
            case json::value_t::binary:  // its layout follows the indent: nlohmann writes the document
                declined_ = true;
                return;
            default:  // a discarded value: nlohmann's own text
                out_ += value.dump();
                return;
        }
    }

  private:
    void append(std::string_view text) { out_.append(text.data(), text.size()); }

    void open_member(std::size_t level) {
        if (pretty_) {
            out_.push_back('\n');
            out_.append(level * static_cast<std::size_t>(step_), ' ');
        }
    }

    void write_string(const std::string& text) {
        if (is_plain_string(text)) {
            out_.push_back('"');
            out_.append(text);
            out_.push_back('"');
        } else {
            out_ += json(text).dump();
        }
    }

    template <typename Integer>
    void write_integer(Integer value) {
        char buffer[24];
        const auto end = std::to_chars(buffer, buffer + sizeof buffer, value).ptr;
        out_.append(buffer, end);
    }

    // nlohmann's dump_float: "null" for a value JSON cannot hold, otherwise the shortest text
    // that reads back as the same double, through the routine dump() itself calls.
    void write_double(double value) {
        if (!std::isfinite(value)) {
            append("null");
            return;
        }
        std::array<char, 64> digits;
        const char* end = nlohmann::detail::to_chars(digits.data(), digits.data() + digits.size(), value);
        out_.append(digits.data(), static_cast<std::size_t>(end - digits.data()));
    }

    void write_object(const json::object_t& members, std::size_t level) {
        if (members.empty()) {
            append("{}");
            return;
        }
        out_.push_back('{');
        bool first = true;
        for (const auto& [key, member] : members) {
            if (!first) {
                out_.push_back(',');
            }
            first = false;
            open_member(level + 1);
            write_string(key);
            append(pretty_ ? std::string_view(": ") : std::string_view(":"));
            write(member, level + 1);
        }
        open_member(level);
        out_.push_back('}');
    }

    void write_array(const json::array_t& elements, std::size_t level) {
        if (elements.empty()) {
            append("[]");
            return;
        }
        out_.push_back('[');
        bool first = true;
        for (const auto& element : elements) {
            if (!first) {
                out_.push_back(',');
            }
            first = false;
            open_member(level + 1);
            write(element, level + 1);
        }
        open_member(level);
        out_.push_back(']');
    }

    std::string& out_;
    bool pretty_;
    int step_;
    bool declined_ = false;
};

}  // namespace

std::string dump_json(const json& value, int indent) {
    std::string out;
    out.reserve(4096);  // a trainer_state.json is a few kilobytes: grow the buffer once, if at all
    JsonWriter writer(out, indent);
    writer.write(value, 0);
    return writer.declined() ? value.dump(indent) : out;
}

}  // namespace ckpt
