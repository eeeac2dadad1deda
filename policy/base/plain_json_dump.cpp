// The dump fast path: nlohmann's serializer layout restated, recursing over the tree. A binary
// value (never in a document ckptsim writes) sends the whole document to nlohmann.
#include "policy/base/plain_json_dump.hpp"

#include <charconv>
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
                write_object(value, level);
                return;
            case json::value_t::array:
                write_array(value, level);
                return;
            case json::value_t::string:
                write_string(value.get_ref<const std::string&>());
                return;
            case json::value_t::boolean:
                out_ += value.get<bool>() ? "true" : "false";
                return;
            case json::value_t::null:
                out_ += "null";
                return;
            case json::value_t::number_integer:
                write_integer(value.get<std::int64_t>());
                return;
            case json::value_t::number_unsigned:
                write_integer(value.get<std::uint64_t>());
                return;
            case json::value_t::binary:  // its layout follows the indent: nlohmann writes the document
                declined_ = true;
                return;
            default:  // doubles and discarded values: nlohmann's own text
                out_ += value.dump();
                return;
        }
    }

  private:
    void indent(std::size_t level) { out_.append(level * static_cast<std::size_t>(step_), ' '); }

    void write_string(const std::string& text) {
        if (is_plain_string(text)) {
            out_ += '"';
            out_ += text;
            out_ += '"';
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

    void write_object(const json& value, std::size_t level) {
        if (value.empty()) {
            out_ += "{}";
            return;
        }
        out_ += pretty_ ? "{\n" : "{";
        bool first = true;
        for (const auto& [key, member] : value.get_ref<const json::object_t&>()) {
            if (!first) {
                out_ += pretty_ ? ",\n" : ",";
            }
            first = false;
            indent(level + 1);
            write_string(key);
            out_ += pretty_ ? ": " : ":";
            write(member, level + 1);
        }
        if (pretty_) {
            out_ += '\n';
            indent(level);
        }
        out_ += '}';
    }

    void write_array(const json& value, std::size_t level) {
        if (value.empty()) {
            out_ += "[]";
            return;
        }
        out_ += pretty_ ? "[\n" : "[";
        bool first = true;
        for (const auto& element : value) {
            if (!first) {
                out_ += pretty_ ? ",\n" : ",";
            }
            first = false;
            indent(level + 1);
            write(element, level + 1);
        }
        if (pretty_) {
            out_ += '\n';
            indent(level);
        }
        out_ += ']';
    }

    std::string& out_;
    bool pretty_;
    int step_;
    bool declined_ = false;
};

}  // namespace

std::string dump_json(const json& value, int indent) {
    std::string out;
    JsonWriter writer(out, indent);
    writer.write(value, 0);
    return writer.declined() ? value.dump(indent) : out;
}

}  // namespace ckpt
