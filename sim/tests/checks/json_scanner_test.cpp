// scan_json against nlohmann, rule by rule: each hostile text here targets one clause of the
// grammar (BOM, NUL, escapes, surrogates, UTF-8 ranges, numbers at a double's edge, nesting,
// separators, duplicate and escaped member names), and every pair of bytes inside a string
// covers the UTF-8 table exhaustively. The oracle (json_scanner_oracle.hpp) is nlohmann itself.
#include "sim/checks/json_scanner.hpp"

#include <array>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "sim/tests/checks/json_scanner_oracle.hpp"

namespace ckpt::sim {
namespace {

using testing::python_dom;
using testing::scanner_disagreement;

std::string bytes(std::initializer_list<int> values) {
    std::string out;
    for (const int v : values) {
        out.push_back(static_cast<char>(v));
    }
    return out;
}

std::vector<std::string> grammar_cases() {
    return {
        "",
        " ",
        "{}",
        "[]",
        "{",
        "}",
        "[",
        "]",
        "{}}",
        "[]]",
        "{]",
        "[}",
        "{} {}",
        "{},",
        "null",
        "true",
        "false",
        "nul",
        "tru",
        "fals",
        "truex",
        "True",
        "NULL",
        "0",
        "-",
        "-0",
        "-01",
        "01",
        "00",
        "1.",
        ".5",
        "1.5",
        "1e",
        "1e+",
        "1e-",
        "1E5",
        "1e+5",
        "1e-5",
        "+1",
        "0x10",
        "1.e5",
        "1.5e",
        "--1",
        "-a",
        R"({"a":1,})",
        R"({,"a":1})",
        R"({"a" 1})",
        R"({"a"::1})",
        R"({"a":})",
        R"({a:1})",
        R"({1:1})",
        R"({"a":1 "b":2})",
        R"([1,])",
        R"([,1])",
        R"([1 2])",
        R"([1,,2])",
        R"({"a":[}]})",
        R"({"a":{"b":[1,{"c":null}]},"b":"x"})",
        R"({"a":1,"a":2})",
        R"({"a":{"k":1,"k":[2]},"a":{"k":3}})",
        R"({"x":{"a":1},"b":[{"a":2}]})",
        R"({"\u0061":1,"b\u0000":2,"\u0062":3})",
        R"({"a\"":1,"a":2})",
        R"({"\ud83d\ude00":1,"a":"\ud83d\ude00"})",
        R"({"a":"\/\b\f\n\r\t\"\\"})",
        R"({"a":"\x"})",
        R"({"a":"\u12"})",
        R"({"a":"\u12g4"})",
        R"({"a":"\uD800"})",
        R"({"a":"\uD800\u0041"})",
        R"({"a":"\uDC00"})",
        R"({"a":"\uDBFF\uDFFF"})",
        R"({"a":"\uD800\\"})",
        R"({"a":"\uD800\"})",
        R"({"a":"\u0000"})",
        R"({"a":"\uFFFF"})",
        R"({"a":"\UD800"})",
        R"({"a":"\uabcD"})",
        "{\"a\":\"\t\"}",
        "{\"a\":\"\x7f\"}",
        "{\"a\":\"\x1f\"}",
        "{\"a\":\"unterminated}",
        "{\"a\":1}\n\r\t ",
        " \t\n\r{\"a\":1}",
        "{\"a\":1}\v",
        "{\"a\":1}\f",
        "\f{}",
        std::string("{\"a\":1}\0junk", 13),
        std::string("{\"a\":1} \0", 9),
        std::string("{\"a\":\0}", 7),
        std::string("{\"a\":\"\0\"}", 9),
        std::string("\0{}", 3),
        std::string("{\"a\":1\0}", 8),
        std::string("tru\0e", 5),
        bytes({0xEF, 0xBB, 0xBF, '{', '}'}),
        bytes({0xEF, 0xBB, '{', '}'}),
        bytes({0xEF, '{', '}'}),
        bytes({' ', 0xEF, 0xBB, 0xBF, '{', '}'}),
        bytes({0xEF, 0xBB, 0xBF}),
        bytes({0xEF, 0xBB, 0xBF, 0xEF, 0xBB, 0xBF, '{', '}'}),
        bytes({0xFE, 0xFF, '{', '}'}),
        "{\"a\":1}\xEF\xBB\xBF",
        "/* c */{}",
        "{}// c",
        "{'a':1}",
        R"({"a":NaN})",
        R"({"a":Infinity})",
        R"({"a":-Infinity})",
    };
}

std::vector<std::string> number_cases() {
    std::vector<std::string> numbers = {
        "1e308",
        "1e309",
        "-1e309",
        "1e400",
        "1.7976931348623157e308",
        "1.7976931348623158e308",
        "1.7976931348623159e308",
        "1.8e308",
        "179.76931348623157e306",
        "0.17976931348623157e309",
        "0.0e99999999999999999999",
        "0e400",
        "1e-400",
        "1e-99999999999999999999",
        "-0.0",
        "-0e-0",
        "18446744073709551615",
        "18446744073709551616",
        "-9223372036854775808",
        "-9223372036854775809",
        "9223372036854775807",
        "9223372036854775808",
        "123456789012345678901234567890",
        "0.00000000000000000000000000000000000000000000001",
        "1E+308",
        "10e307",
        "100e306",
        "1e00000000308",
        "1" + std::string(308, '0'),
        "1" + std::string(309, '0'),
        "-1" + std::string(309, '0'),
        "9" + std::string(308, '9'),
        "0." + std::string(400, '9') + "e309",
        "1" + std::string(400, '0') + "e-100",
        "1" + std::string(309, '0') + ".5",
        "1" + std::string(300, '0') + "e9",
        "1" + std::string(300, '0') + "e8",
    };
    std::vector<std::string> cases;
    for (const auto& n : numbers) {
        cases.push_back(n);
        cases.push_back("{\"a\":" + n + "}");
        cases.push_back("{\"b\":[" + n + "," + n + "]}");
    }
    return cases;
}

std::vector<std::string> nesting_cases() {
    std::vector<std::string> cases;
    for (const std::size_t depth : {63U, 64U, 65U, 511U, 512U, 513U, 5000U}) {
        cases.push_back("{\"a\":" + std::string(depth, '[') + std::string(depth, ']') + "}");
        cases.push_back("{\"a\":" + std::string(depth, '[') + std::string(depth - 1, ']') + "}");
        cases.push_back("{\"a\":" + std::string(depth, '[') + std::string(depth + 1, ']') + "}");
        std::string objects = "{\"b\":";
        for (std::size_t i = 0; i < depth; ++i) {
            objects += i % 2 == 0 ? "{\"a\":" : "[";
        }
        objects += "1";
        for (std::size_t i = depth; i-- > 0;) {
            objects += i % 2 == 0 ? "}" : "]";
        }
        cases.push_back(objects + "}");
        cases.push_back(objects);
    }
    return cases;
}

TEST(JsonScanner, AgreesWithNlohmannOnEachGrammarRule) {
    for (const auto& cases : {grammar_cases(), number_cases(), nesting_cases()}) {
        for (const auto& text : cases) {
            EXPECT_EQ(scanner_disagreement(text), "") << text.substr(0, 200);
        }
    }
}

// Python's constants (finding 28): json.loads's verdict on each, for the scanner and for the
// oracle the other tests hold it to.
TEST(JsonScanner, ReadsPythonsConstantsWhereJsonLoadsDoes) {
    for (const auto& [text, valid] : testing::python_constant_verdicts()) {
        const auto shape = !valid                ? JsonShape::invalid
                           : text.front() == '{' ? JsonShape::object
                                                 : JsonShape::other;
        EXPECT_EQ(scan_json(text, {}, {}), shape) << text;
        EXPECT_EQ(python_dom(text).is_discarded(), !valid) << text;
        EXPECT_EQ(scanner_disagreement(text), "") << text;
    }
    const std::array<std::string_view, 1> names = {"grad_norm"};
    std::array<std::string_view, 1> values{};
    ASSERT_EQ(scan_json("{\"grad_norm\": -Infinity, \"loss\": 1.0}", names, values), JsonShape::object);
    EXPECT_EQ(values[0], "-Infinity");
}

// Every two-byte sequence inside a string, alone and followed by two continuations, spans
// RFC 3629's table with the control bytes, the quote and the backslash.
TEST(JsonScanner, AgreesWithNlohmannOnEveryBytePairInAString) {
    for (int first = 0; first < 256; ++first) {
        for (int second = 0; second < 256; ++second) {
            const std::string pair = bytes({first, second});
            for (const std::string& text : {"{\"a\":\"" + pair + "\"}", "{\"a\":\"" + pair + "\x80\x80\"}",
                                            "{\"" + pair + "\xBF\":1}"}) {
                ASSERT_EQ(scanner_disagreement(text), "") << first << " " << second;
            }
        }
    }
}

TEST(JsonScanner, LocatesTheLastValueOfEachNamedMember) {
    const std::string_view names[] = {"a", "b", "c"};
    std::string_view values[3];
    EXPECT_EQ(scan_json(R"({"a": [1, {"a": 2}] , "c":3,"b" : "x","a":  {"k": true} })", names, values),
              JsonShape::object);
    EXPECT_EQ(values[0], R"({"k": true})");
    EXPECT_EQ(values[1], R"("x")");
    EXPECT_EQ(values[2], "3");
    EXPECT_EQ(scan_json(R"([{"a": 1}])", names, values), JsonShape::other);
    EXPECT_EQ(values[0], "");
    EXPECT_EQ(scan_json(R"({"a": 1} x)", names, values), JsonShape::invalid);
    EXPECT_EQ(values[0], "");
}

}  // namespace
}  // namespace ckpt::sim
