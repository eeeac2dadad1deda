// The built-ins, matching CPython: Python's whitespace set, numeric literals with underscores,
// shortest round-trip float repr, and int64 bounds where Python would have none.
#include "policy/python/python_values.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <limits>
#include <optional>

#include "policy/base/errors.hpp"

namespace ckpt::python {
namespace {

using nlohmann::json;

// The length of the Python whitespace character at the start of `text`, or 0.
std::size_t leading_space(std::string_view text) {
    if (text.empty()) {
        return 0;
    }
    const auto b0 = static_cast<unsigned char>(text[0]);
    if ((b0 >= 0x09 && b0 <= 0x0d) || (b0 >= 0x1c && b0 <= 0x20)) {
        return 1;
    }
    const auto byte = [&](std::size_t i) {
        return i < text.size() ? static_cast<unsigned char>(text[i]) : 0;
    };
    if (b0 == 0xc2 && (byte(1) == 0x85 || byte(1) == 0xa0)) {
        return 2;  // U+0085, U+00A0
    }
    if (b0 == 0xe1 && byte(1) == 0x9a && byte(2) == 0x80) {
        return 3;  // U+1680
    }
    if (b0 == 0xe2 && byte(1) == 0x80 &&
        (byte(2) <= 0x8a || byte(2) == 0xa8 || byte(2) == 0xa9 || byte(2) == 0xaf)) {
        return byte(2) >= 0x80 ? 3 : 0;  // U+2000-U+200A, U+2028, U+2029, U+202F
    }
    if (b0 == 0xe2 && byte(1) == 0x81 && byte(2) == 0x9f) {
        return 3;  // U+205F
    }
    if (b0 == 0xe3 && byte(1) == 0x80 && byte(2) == 0x80) {
        return 3;  // U+3000
    }
    return 0;
}

// The length of the Python whitespace character that ends `text`, or 0.
std::size_t trailing_space(std::string_view text) {
    for (std::size_t length = 1; length <= 3 && length <= text.size(); ++length) {
        const auto tail = text.substr(text.size() - length);
        if (leading_space(tail) == length) {
            return length;
        }
    }
    return 0;
}

std::string lower(std::string_view text) {
    std::string out(text);
    std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
    return out;
}

// Python allows single underscores between digits in numeric literals ("1_000").
std::optional<std::string> without_digit_underscores(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (text[i] != '_') {
            out.push_back(text[i]);
            continue;
        }
        const bool between_digits = i > 0 && i + 1 < text.size() &&
                                    std::isdigit(static_cast<unsigned char>(text[i - 1])) &&
                                    std::isdigit(static_cast<unsigned char>(text[i + 1]));
        if (!between_digits) {
            return std::nullopt;
        }
    }
    return out;
}

std::optional<double> parse_float_literal(std::string_view raw) {
    const std::string_view text = strip(raw);
    std::string_view body = text;
    bool negative = false;
    if (!body.empty() && (body.front() == '+' || body.front() == '-')) {
        negative = body.front() == '-';
        body.remove_prefix(1);
    }
    const std::string word = lower(body);
    if (word == "inf" || word == "infinity") {
        return negative ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity();
    }
    if (word == "nan") {
        return std::numeric_limits<double>::quiet_NaN();
    }
    const auto digits = without_digit_underscores(body);
    if (!digits || digits->empty()) {
        return std::nullopt;
    }
    // Python accepts "1.", ".5" and "1e5" but not hex, "0x", or a bare exponent.
    const bool only_decimal_chars = std::all_of(digits->begin(), digits->end(), [](char c) {
        return std::isdigit(static_cast<unsigned char>(c)) || c == '.' || c == 'e' || c == 'E' || c == '+' ||
               c == '-';
    });
    if (!only_decimal_chars) {
        return std::nullopt;
    }
    double value = 0.0;
    const char* first = digits->data();
    const char* last = first + digits->size();
    const auto [end, error] = std::from_chars(first, last, value);
    if (end != last) {
        return std::nullopt;
    }
    if (error == std::errc::result_out_of_range) {
        // Overflow becomes inf and underflow 0.0, as in Python.
        const bool huge = std::any_of(first, last, [](char c) { return c == 'e' || c == 'E'; }) &&
                          digits->find("e-") == std::string::npos && digits->find("E-") == std::string::npos;
        value = huge ? std::numeric_limits<double>::infinity() : 0.0;
    } else if (error != std::errc{}) {
        return std::nullopt;
    }
    return negative ? -value : value;
}

std::optional<std::int64_t> parse_int_literal(std::string_view raw) {
    std::string_view text = strip(raw);
    bool negative = false;
    if (!text.empty() && (text.front() == '+' || text.front() == '-')) {
        negative = text.front() == '-';
        text.remove_prefix(1);
    }
    const auto digits = without_digit_underscores(text);
    if (!digits || digits->empty() || !std::all_of(digits->begin(), digits->end(), [](char c) {
            return std::isdigit(static_cast<unsigned char>(c));
        })) {
        return std::nullopt;
    }
    std::uint64_t magnitude = 0;
    const auto [end, error] = std::from_chars(digits->data(), digits->data() + digits->size(), magnitude);
    if (error != std::errc{} || end != digits->data() + digits->size() ||
        magnitude > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
        throw ValueError("integer out of range: " + std::string(strip(raw)));
    }
    const auto value = static_cast<std::int64_t>(magnitude);
    return negative ? -value : value;
}

std::string quote(const std::string& text) {
    // Python picks single quotes unless the text holds a single quote and no double quote.
    const bool use_double = text.find('\'') != std::string::npos && text.find('"') == std::string::npos;
    const char q = use_double ? '"' : '\'';
    std::string out(1, q);
    for (const char c : text) {
        switch (c) {
            case '\\':
                out += "\\\\";
                break;
            case '\n':
                out += "\\n";
                break;
            case '\r':
                out += "\\r";
                break;
            case '\t':
                out += "\\t";
                break;
            default:
                if (c == q) {
                    out += '\\';
                    out += c;
                } else if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
                    std::array<char, 8> buffer{};
                    std::snprintf(buffer.data(), buffer.size(), "\\x%02x", static_cast<unsigned char>(c));
                    out += buffer.data();
                } else {
                    out += c;
                }
        }
    }
    out += q;
    return out;
}

// The Python type json.loads would have produced.
std::string type_name(const json& value) {
    switch (value.type()) {
        case json::value_t::null:
            return "NoneType";
        case json::value_t::array:
            return "list";
        case json::value_t::object:
            return "dict";
        case json::value_t::string:
            return "str";
        case json::value_t::boolean:
            return "bool";
        case json::value_t::number_float:
            return "float";
        default:
            return "int";
    }
}

std::string container_repr(const json& value) {
    std::string out;
    if (value.is_array()) {
        out = "[";
        for (std::size_t i = 0; i < value.size(); ++i) {
            out += (i ? ", " : "") + repr(value[i]);
        }
        return out + "]";
    }
    out = "{";
    bool first = true;
    for (const auto& [key, item] : value.items()) {
        out += (first ? "" : ", ") + quote(key) + ": " + repr(item);
        first = false;
    }
    return out + "}";
}

}  // namespace

std::string_view strip(std::string_view text) {
    while (const auto n = leading_space(text)) {
        text.remove_prefix(n);
    }
    while (const auto n = trailing_space(text)) {
        text.remove_suffix(n);
    }
    return text;
}

double to_float(const json& value) {
    if (value.is_boolean()) {
        return value.get<bool>() ? 1.0 : 0.0;
    }
    if (value.is_number()) {
        return value.get<double>();
    }
    if (value.is_string()) {
        if (const auto parsed = parse_float_literal(value.get_ref<const std::string&>())) {
            return *parsed;
        }
        throw ValueError("could not convert string to float: " + repr(value));
    }
    throw ValueError("float() argument must be a string or a real number, not '" + type_name(value) + "'");
}

std::int64_t to_int(const json& value) {
    if (value.is_boolean()) {
        return value.get<bool>() ? 1 : 0;
    }
    if (value.is_number_unsigned()) {
        const auto raw = value.get<std::uint64_t>();
        if (raw > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
            throw ValueError("integer out of range: " + value.dump());
        }
        return static_cast<std::int64_t>(raw);
    }
    if (value.is_number_integer()) {
        return value.get<std::int64_t>();
    }
    if (value.is_number_float()) {
        const double raw = value.get<double>();
        if (std::isnan(raw)) {
            throw ValueError("cannot convert float NaN to integer");
        }
        if (std::isinf(raw)) {
            throw ValueError("cannot convert float infinity to integer");
        }
        const double truncated = std::trunc(raw);
        // 2^63 is exactly representable; anything at or beyond it does not fit.
        if (truncated >= 9223372036854775808.0 || truncated < -9223372036854775808.0) {
            throw ValueError("integer out of range: " + float_repr(raw));
        }
        return static_cast<std::int64_t>(truncated);
    }
    if (value.is_string()) {
        if (const auto parsed = parse_int_literal(value.get_ref<const std::string&>())) {
            return *parsed;
        }
        throw ValueError("invalid literal for int() with base 10: " + repr(value));
    }
    throw ValueError("int() argument must be a string, a bytes-like object or a real number, not '" +
                     type_name(value) + "'");
}

bool truthy(const json& value) {
    switch (value.type()) {
        case json::value_t::null:
            return false;
        case json::value_t::boolean:
            return value.get<bool>();
        case json::value_t::number_integer:
            return value.get<std::int64_t>() != 0;
        case json::value_t::number_unsigned:
            return value.get<std::uint64_t>() != 0;
        case json::value_t::number_float:
            return value.get<double>() != 0.0;
        case json::value_t::string:
            return !value.get_ref<const std::string&>().empty();
        default:
            return !value.empty();
    }
}

std::string float_repr(double value) {
    if (std::isnan(value)) {
        return "nan";
    }
    if (std::isinf(value)) {
        return value < 0 ? "-inf" : "inf";
    }
    // Shortest round-trip digits in scientific form, then laid out by Python's repr rule:
    // positional when -4 <= exponent < 16, scientific otherwise.
    std::array<char, 64> buffer{};
    const auto [end, error] =
        std::to_chars(buffer.data(), buffer.data() + buffer.size(), value, std::chars_format::scientific);
    (void)error;
    std::string scientific(buffer.data(), end);
    const auto e_at = scientific.find('e');
    std::string mantissa = scientific.substr(0, e_at);
    const int exponent = std::stoi(scientific.substr(e_at + 1));
    std::string sign;
    if (mantissa.front() == '-') {
        sign = "-";
        mantissa.erase(0, 1);
    }
    std::string digits;
    for (const char c : mantissa) {
        if (c != '.') {
            digits += c;
        }
    }
    if (exponent >= -4 && exponent < 16) {
        std::string out;
        if (exponent < 0) {
            // Appended in place: the temporaries' concatenation made GCC's link-time optimiser
            // warn of a copy bound it could not prove (-Wstringop-overflow, a false positive).
            out.append("0.").append(static_cast<std::size_t>(-exponent - 1), '0').append(digits);
        } else if (static_cast<std::size_t>(exponent + 1) >= digits.size()) {
            out = digits + std::string(static_cast<std::size_t>(exponent + 1) - digits.size(), '0') + ".0";
        } else {
            out = digits.substr(0, static_cast<std::size_t>(exponent + 1)) + "." +
                  digits.substr(static_cast<std::size_t>(exponent + 1));
        }
        return sign + out;
    }
    std::string out = digits.substr(0, 1);
    if (digits.size() > 1) {
        out += "." + digits.substr(1);
    }
    const int magnitude = exponent < 0 ? -exponent : exponent;
    const std::string exponent_digits = (magnitude < 10 ? "0" : "") + std::to_string(magnitude);
    return sign + out + "e" + (exponent < 0 ? "-" : "+") + exponent_digits;
}

std::string str(const json& value) {
    if (value.is_string()) {
        return value.get<std::string>();
    }
    return repr(value);
}

std::string repr(const json& value) {
    switch (value.type()) {
        case json::value_t::null:
            return "None";
        case json::value_t::boolean:
            return value.get<bool>() ? "True" : "False";
        case json::value_t::number_integer:
            return std::to_string(value.get<std::int64_t>());
        case json::value_t::number_unsigned:
            return std::to_string(value.get<std::uint64_t>());
        case json::value_t::number_float:
            return float_repr(value.get<double>());
        case json::value_t::string:
            return quote(value.get<std::string>());
        default:
            return container_repr(value);
    }
}

bool equals_int(const json& value, std::int64_t expected) {
    if (value.is_boolean()) {
        return (value.get<bool>() ? 1 : 0) == expected;
    }
    if (value.is_number_unsigned()) {
        return expected >= 0 && value.get<std::uint64_t>() == static_cast<std::uint64_t>(expected);
    }
    if (value.is_number_integer()) {
        return value.get<std::int64_t>() == expected;
    }
    if (value.is_number_float()) {
        return value.get<double>() == static_cast<double>(expected);
    }
    return false;
}

}  // namespace ckpt::python
