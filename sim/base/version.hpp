// The tool's version and the scenario file format it writes, stamped into every scenario file and
// every --json output so a CI artifact replayed later, on another build, says where it came from.
// CMake passes the project version in; depends on nothing.
#pragma once

#include <string_view>

#ifndef CKPTSIM_VERSION
#error "CKPTSIM_VERSION must come from CMake's project(VERSION)"
#endif

namespace ckpt::sim {

inline constexpr std::string_view kCkptsimVersion = CKPTSIM_VERSION;

// 1: the flat scenario object with no version fields (every file before versions existed);
// 2: the same scenario layout, with `ckptsim_version` and `scenario_format` beside it.
inline constexpr int kScenarioFormat = 2;

}  // namespace ckpt::sim
