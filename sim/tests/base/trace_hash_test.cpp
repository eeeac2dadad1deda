// FNV-1a 64 against its reference vectors, and the trace hash's concatenation property.
#include "sim/base/trace_hash.hpp"

#include <cstdint>

#include <gtest/gtest.h>

namespace ckpt::sim {
namespace {

// Test vectors from the FNV reference (draft-eastlake-fnv, "FNV-1a 64" column).
TEST(TraceHash, MatchesFnv1a64TestVectors) {
    EXPECT_EQ(fnv1a64(""), 0xcbf29ce484222325ULL);
    EXPECT_EQ(fnv1a64("a"), 0xaf63dc4c8601ec8cULL);
    EXPECT_EQ(fnv1a64("foobar"), 0x85944171f73967e8ULL);
    static_assert(fnv1a64("a") == 0xaf63dc4c8601ec8cULL, "usable at compile time");
}

TEST(TraceHash, UpdatesConcatenate) {
    TraceHash whole;
    whole.update("foobar");
    TraceHash parts;
    parts.update("foo");
    parts.update("");
    parts.update("bar");
    EXPECT_EQ(parts.value(), whole.value());
    EXPECT_EQ(whole.value(), 0x85944171f73967e8ULL);
}

TEST(TraceHash, IntegersHashAsLittleEndianBytes) {
    TraceHash number;
    number.update_u64(0x0102030405060708ULL);
    TraceHash bytes;
    bytes.update(std::string_view("\x08\x07\x06\x05\x04\x03\x02\x01", 8));
    EXPECT_EQ(number.value(), bytes.value());
    EXPECT_EQ(number.value(), 0x0c6d4496e17859d5ULL);
}

TEST(TraceHash, HexIsSixteenLowercaseDigits) {
    TraceHash empty;
    EXPECT_EQ(empty.hex(), "cbf29ce484222325");
    EXPECT_EQ(TraceHash::to_hex(0), "0000000000000000");
    EXPECT_EQ(TraceHash::to_hex(0xABCULL), "0000000000000abc");
    EXPECT_EQ(TraceHash::to_hex(UINT64_MAX), "ffffffffffffffff");
}

}  // namespace
}  // namespace ckpt::sim
