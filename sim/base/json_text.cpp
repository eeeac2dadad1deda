// json_text.hpp: nlohmann's serializer restated case by case: an object's members in its (sorted)
// order, ',' between items, "key": value with a newline and the level's indent when pretty, and
// "{}" / "[]" for empty containers. Strings that are not plain go through nlohmann itself.
#include "sim/base/json_text.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <memory>
#include <stdexcept>

#include "policy/base/byte_words.hpp"

namespace ckpt::sim {

using nlohmann::json;

bool is_plain_json_string(std::string_view text) noexcept {
    std::size_t at = 0;
    for (; at + 8 <= text.size(); at += 8) {
        if (!byte_words::all_plain_json(byte_words::load(text.data() + at))) {
            return false;
        }
    }
    if (at == text.size()) {
        return true;
    }
    // The last few bytes in a word padded with spaces, which are plain themselves.
    std::uint64_t word = byte_words::kOnes * static_cast<unsigned char>(' ');
    std::memcpy(&word, text.data() + at, text.size() - at);
    return byte_words::all_plain_json(word);
}

void append_json_string(std::string& out, std::string_view value, bool ensure_ascii) {
    if (is_plain_json_string(value)) {
        out += '"';
        out += value;
        out += '"';
    } else {
        out += json(value).dump(-1, ' ', ensure_ascii);
    }
}

namespace {

// Room for any integer's or double's text.
constexpr std::size_t kNumberRoom = 64;

// dump()'s own formatting of a double: its serializer writes "null" for a non-finite one and
// otherwise calls exactly this grisu2 routine (the shortest round-trip form, "1.0"). Called
// directly, a number costs no json, output adapter and serializer of its own.
char* format_number(char* at, double value) {
    if (!std::isfinite(value)) {
        std::memcpy(at, "null", 4);
        return at + 4;
    }
    return nlohmann::detail::to_chars(at, at + kNumberRoom, value);
}

// Python's json.dumps: NaN, Infinity, -Infinity.
char* format_python_constant(char* at, double value) {
    const std::string_view word = std::isnan(value) ? "NaN" : value > 0 ? "Infinity" : "-Infinity";
    std::memcpy(at, word.data(), word.size());
    return at + word.size();
}

}  // namespace

void append_python_constant(std::string& out, double value) {
    if (std::isfinite(value)) {
        throw std::invalid_argument("append_python_constant needs a nan or an infinity");
    }
    char word[kNumberRoom];
    out.append(word, format_python_constant(word, value));
}

void append_json_integer(std::string& out, std::int64_t value) {
    char digits[kNumberRoom];
    out.append(digits, std::to_chars(digits, digits + sizeof digits, value).ptr);
}

void append_json_unsigned(std::string& out, std::uint64_t value) {
    char digits[kNumberRoom];
    out.append(digits, std::to_chars(digits, digits + sizeof digits, value).ptr);
}

void append_json_number(std::string& out, double value) {
    char digits[kNumberRoom];
    out.append(digits, format_number(digits, value));
}

namespace {

// The writer's output: bytes appended in place, inline, into a buffer that starts on the stack
// (a trainer_state.json of a few callbacks fits) and doubles on the heap past it; std::string's
// appends are calls each, and a document is hundreds of small appends.
class TextSink {
  public:
    TextSink() noexcept : begin_(local_), end_(local_), limit_(local_ + sizeof local_) {}
    TextSink(const TextSink&) = delete;
    TextSink& operator=(const TextSink&) = delete;

    std::string_view text() const noexcept { return {begin_, static_cast<std::size_t>(end_ - begin_)}; }

    void put(char c) {
        room(1);
        *end_++ = c;
    }

    void put(std::string_view bytes) {
        room(bytes.size());
        std::memcpy(end_, bytes.data(), bytes.size());
        end_ += bytes.size();
    }

    void put_spaces(std::size_t count) {
        room(count);
        std::memset(end_, ' ', count);
        end_ += count;
    }

    // Where up to `bytes` bytes go, written in place; commit(end) keeps those before `end`.
    char* slot(std::size_t bytes) {
        room(bytes);
        return end_;
    }
    char* number_slot() { return slot(kNumberRoom); }
    void commit(char* end) noexcept { end_ = end; }

  private:
    void room(std::size_t bytes) {
        if (static_cast<std::size_t>(limit_ - end_) < bytes) {
            grow(bytes);
        }
    }

    void grow(std::size_t bytes) {
        const auto size = static_cast<std::size_t>(end_ - begin_);
        const auto capacity = std::max(2 * static_cast<std::size_t>(limit_ - begin_), size + bytes);
        std::unique_ptr<char[]> bigger(new char[capacity]);  // not zeroed: every byte is written
        std::memcpy(bigger.get(), begin_, size);
        heap_ = std::move(bigger);
        begin_ = heap_.get();
        end_ = begin_ + size;
        limit_ = begin_ + capacity;
    }

    char local_[4096];
    std::unique_ptr<char[]> heap_;
    char* begin_;
    char* end_;
    char* limit_;
};

// One writer for both layouts; `step_` < 0 is compact. In the pretty layout a binary value's
// text depends on its depth, so the writer only notes it and the caller lets nlohmann write all.
class JsonTextWriter {
  public:
    JsonTextWriter(TextSink& out, int indent, bool ensure_ascii, NonFinite non_finite = NonFinite::null)
        : out_(out), step_(indent), ensure_ascii_(ensure_ascii), non_finite_(non_finite) {}

    bool met_binary() const noexcept { return met_binary_; }

    void write(const json& value, std::size_t level) {
        using Type = json::value_t;
        switch (value.type()) {
            case Type::object: {
                const std::string_view separator = step_ >= 0 ? ": " : ":";
                write_container(value.get_ref<const json::object_t&>(), "{}", level,
                                [this, separator, level](const json::object_t::value_type& member) {
                                    write_string(member.first);
                                    out_.put(separator);
                                    write(member.second, level + 1);
                                });
                return;
            }
            case Type::array:
                write_container(value.get_ref<const json::array_t&>(), "[]", level,
                                [this, level](const json& item) { write(item, level + 1); });
                return;
            case Type::string:
                write_string(value.get_ref<const std::string&>());
                return;
            case Type::boolean:
                out_.put(value.get<bool>() ? std::string_view("true") : std::string_view("false"));
                return;
            case Type::null:
                out_.put("null");
                return;
            case Type::number_integer: {
                char* at = out_.number_slot();
                out_.commit(std::to_chars(at, at + kNumberRoom, value.get<std::int64_t>()).ptr);
                return;
            }
            case Type::number_unsigned: {
                char* at = out_.number_slot();
                out_.commit(std::to_chars(at, at + kNumberRoom, value.get<std::uint64_t>()).ptr);
                return;
            }
            case Type::number_float: {
                const double number = value.get<double>();
                out_.commit(non_finite_ == NonFinite::python_constants && !std::isfinite(number)
                                ? format_python_constant(out_.number_slot(), number)
                                : format_number(out_.number_slot(), number));
                return;
            }
            case Type::binary:
                if (step_ >= 0) {
                    met_binary_ = true;
                    return;
                }
                out_.put(value.dump());
                return;
            default:  // a discarded value: the serializer's own (rare) form, the same at any depth
                out_.put(value.dump());
                return;
        }
    }

  private:
    // An object's members or an array's items between `brackets`, one item a line when pretty.
    template <typename Container, typename WriteItem>
    void write_container(const Container& items, std::string_view brackets, std::size_t level,
                         const WriteItem& write_item) {
        if (items.empty()) {
            out_.put(brackets);
            return;
        }
        out_.put(brackets[0]);
        bool first = true;
        for (const auto& item : items) {
            open_item(first, level + 1);
            write_item(item);
        }
        new_line(level);
        out_.put(brackets[1]);
    }

    // is_plain_json_string and the copy in one pass, a word at a time: the last word is padded
    // with spaces and stored whole (the slot has room for it; commit drops what lies past).
    void write_string(const std::string& text) {
        const std::size_t size = text.size();
        char* quote = out_.slot(size + 2 + sizeof(std::uint64_t));
        char* to = quote + 1;
        std::size_t done = 0;
        for (; done + sizeof(std::uint64_t) <= size; done += sizeof(std::uint64_t)) {
            const std::uint64_t word = byte_words::load(text.data() + done);
            if (!byte_words::all_plain_json(word)) {
                write_escaped(text);
                return;
            }
            std::memcpy(to + done, &word, sizeof word);
        }
        if (done < size) {
            // A long string's last word overlaps the one before; a short one is padded with spaces.
            const bool overlaps = size > sizeof(std::uint64_t);
            const std::size_t from = overlaps ? size - sizeof(std::uint64_t) : 0;
            std::uint64_t word = 0;
            if (overlaps) {
                word = byte_words::load(text.data() + from);
            } else {
                char padded[sizeof word] = {' ', ' ', ' ', ' ', ' ', ' ', ' ', ' '};
                for (std::size_t at = 0; at < size; ++at) {
                    padded[at] = text[at];
                }
                word = byte_words::load(padded);
            }
            if (!byte_words::all_plain_json(word)) {
                write_escaped(text);
                return;
            }
            std::memcpy(to + from, &word, sizeof word);
        }
        *quote = '"';
        to[size] = '"';
        out_.commit(to + size + 1);
    }

    void write_escaped(const std::string& text) { out_.put(json(text).dump(-1, ' ', ensure_ascii_)); }

    void open_item(bool& first, std::size_t level) {
        if (!first) {
            out_.put(',');
        }
        first = false;
        new_line(level);
    }

    // A newline and the level's indent (nothing when compact).
    // A usual indent is one fixed-size copy of a newline and kIndentRun spaces, cut to width.
    void new_line(std::size_t level) {
        if (step_ < 0) {
            return;
        }
        const std::size_t width = level * static_cast<std::size_t>(step_);
        if (width <= kIndentRun) {
            char* at = out_.slot(kNewLineRun.size());
            std::memcpy(at, kNewLineRun.data(), kNewLineRun.size());
            out_.commit(at + 1 + width);
        } else {
            out_.put('\n');
            out_.put_spaces(width);
        }
    }

    static constexpr std::size_t kIndentRun = 64;
    static constexpr std::array<char, kIndentRun + 1> kNewLineRun = [] {
        std::array<char, kIndentRun + 1> run{};
        run.fill(' ');
        run[0] = '\n';
        return run;
    }();

    TextSink& out_;
    int step_;
    bool ensure_ascii_;
    NonFinite non_finite_;
    bool met_binary_ = false;
};

}  // namespace

void append_json_value(std::string& out, const json& value) {
    TextSink sink;
    JsonTextWriter(sink, -1, false).write(value, 0);
    out += sink.text();
}

std::string dump_indented_json(const json& value, int indent, bool ensure_ascii, NonFinite non_finite) {
    if (indent < 0) {
        throw std::invalid_argument("dump_indented_json needs an indent of at least 0");
    }
    TextSink sink;
    JsonTextWriter writer(sink, indent, ensure_ascii, non_finite);
    writer.write(value, 0);
    if (writer.met_binary()) {
        return value.dump(indent, ' ', ensure_ascii);
    }
    return std::string(sink.text());
}

}  // namespace ckpt::sim
