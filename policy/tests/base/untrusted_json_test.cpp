// parse_untrusted_json's fast path for plain documents (plain_json.hpp) changes nothing it
// decides: a plain document gives nlohmann's tree, type for type; a key repeated within one
// object is still refused by name (or, when the limits allow it, the last value kept); the
// scan's refusals and nlohmann's parse errors still come first and read as before.
#include "policy/base/untrusted_json.hpp"

#include <string>

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "policy/tests/support/json_same_tree.hpp"
#include "policy/tests/support/random_json.hpp"

namespace ckpt {
namespace {

using nlohmann::json;
using test::same_json_tree;

std::string refusal(const std::string& text, JsonLimits limits = {}) {
    try {
        parse_untrusted_json(text, "doc", limits);
    } catch (const MalformedJson& error) {
        return error.what();
    }
    return "accepted";
}

TEST(UntrustedJson, PlainDocumentsWithARepeatedKeyAreStillRefused) {
    EXPECT_EQ(refusal(R"({"a":1,"a":2})"), "doc: duplicate key \"a\"");
    EXPECT_EQ(refusal(R"({"x":{"b":[1],"c":2,"b":3}})"), "doc: duplicate key \"b\"");
    EXPECT_EQ(refusal(R"([{"k":1},{"k":2,"k":true}])"), "doc: duplicate key \"k\"");
    EXPECT_EQ(refusal(R"({"a":1,"b":{"a":2}})"), "accepted");  // one key in each of two objects
}

TEST(UntrustedJson, RepeatedKeysKeepTheLastWhenTheLimitsAllowThem) {
    const JsonLimits allow{kMaxJsonDepth, false};
    EXPECT_TRUE(same_json_tree(parse_untrusted_json(R"({"a":1,"a":[2]})", "doc", allow),
                               json::parse(R"({"a":[2]})")));
    EXPECT_TRUE(same_json_tree(parse_untrusted_json(R"({"b":1,"a":2,"b":-3})", "doc", allow),
                               json::parse(R"({"b":1,"a":2,"b":-3})")));
}

TEST(UntrustedJson, RefusalsReadAsBefore) {
    EXPECT_EQ(refusal("{\"a\":1}\x01"), "doc: control character 1 at byte 7");
    EXPECT_EQ(refusal(std::string(70, '[') + std::string(70, ']')),
              "doc: nesting deeper than 64 levels at byte 64");
    EXPECT_EQ(refusal("{\"a\":1,}").rfind("doc: not valid JSON: [json.exception.parse_error.101]", 0), 0U);
    EXPECT_EQ(refusal("[1e400]").rfind("doc: not valid JSON: [json.exception.out_of_range.406]", 0), 0U);
}

RC_GTEST_PROP(UntrustedJson, PlainAndGeneralDocumentsGiveNlohmannsTree, ()) {
    const json tree = *test::gen_json_value(2);
    std::string text;
    try {
        text = tree.dump(*rc::gen::element(-1, 2));
    } catch (const json::type_error&) {
        return;  // a string that is not UTF-8 has no text
    }
    RC_ASSERT(same_json_tree(parse_untrusted_json(text, "doc"), json::parse(text)));
}

}  // namespace
}  // namespace ckpt
