// dump_json against nlohmann::json::dump, which it stands in for: the same text for every tree
// and indent, and the same exception where nlohmann throws (a string that is not UTF-8).
#include "policy/base/plain_json_dump.hpp"

#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "policy/tests/support/random_json.hpp"

namespace ckpt {
namespace {

using nlohmann::json;

std::string outcome(const std::function<std::string()>& dump) {
    try {
        return "text: " + dump();
    } catch (const json::exception& error) {
        return std::string("error: ") + error.what();
    }
}

void expect_same_text(const json& value) {
    for (const int indent : {-1, 0, 2, 4}) {
        EXPECT_EQ(outcome([&] { return dump_json(value, indent); }),
                  outcome([&] { return value.dump(indent); }))
            << indent;
    }
}

TEST(PlainJsonDump, EdgeCases) {
    expect_same_text(json::object());
    expect_same_text(json::array());
    expect_same_text(json(nullptr));
    expect_same_text(json{{"a", json::object()}, {"b", json::array()}, {"c", {1, 2, {{"d", nullptr}}}}});
    expect_same_text(json{{"quote\"key", "back\\slash"}, {"tab", "a\tb"}, {"del", "\x7f"}, {"slash", "a/b"}});
    expect_same_text(json{{"utf8", "caf\xc3\xa9"}, {"bad", "\xff"}});
    expect_same_text(json{0.1, 1.0, -0.0, 1e-05, 1e+20, 5e-324, 1.7976931348623157e308});
    expect_same_text(json{std::nan(""), HUGE_VAL, -HUGE_VAL, 123456789012345680.0, 0.30000000000000004});
    expect_same_text(
        json{std::int64_t{-9'223'372'036'854'775'807} - 1, std::uint64_t{18'446'744'073'709'551'615u}});
    expect_same_text(json{true, false, "", std::string(1, '\0')});
    expect_same_text(json(json::value_t::discarded));
    expect_same_text(json::binary({1, 2, 3}));
}

RC_GTEST_PROP(PlainJsonDump, RandomTreesDumpAsNlohmannDumps, ()) {
    const json value = *test::gen_json_value(2);
    const int indent = *rc::gen::element(-1, 0, 2);
    RC_ASSERT(outcome([&] { return dump_json(value, indent); }) ==
              outcome([&] { return value.dump(indent); }));
}

}  // namespace
}  // namespace ckpt
