// libFuzzer target: the checkers' validating JSON scanner (sim/checks/json_scanner.hpp) with a
// differential oracle. For any bytes, nlohmann::json::parse and the scanner must reach the same
// verdict, and every top-level member the scanner locates must parse to the DOM's value; so must
// read_top_level_fields. A disagreement traps, so libFuzzer saves the input.
#include <cstddef>
#include <cstdint>

#include "fuzz/fuzz_support.hpp"
#include "sim/tests/checks/json_scanner_oracle.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (!ckpt::sim::testing::scanner_disagreement(ckpt::fuzz::as_text(data, size)).empty()) {
        __builtin_trap();
    }
    return 0;
}
