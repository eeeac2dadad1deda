// File contents on the callback protocol: bytes travel as a JSON string whose every code point
// is at most U+00FF, one per byte (Python's latin-1). nlohmann holds that string as UTF-8, so
// these two functions convert between it and the raw bytes. The reverse throws HarnessError for
// a code point above U+00FF (the process sent text, not bytes).
#pragma once

#include <string>
#include <string_view>

namespace ckpt::sim {

std::string bytes_to_code_points(std::string_view bytes);
std::string code_points_to_bytes(std::string_view utf8);

}  // namespace ckpt::sim
