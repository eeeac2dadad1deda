// Constants every part of the simulated job shares: where it writes, and how long its work
// takes in virtual time (so a summary can say how much training an exploration stood for).
#pragma once

#include <cstdint>

namespace ckpt::sim {

inline constexpr const char* kOutputDir = "/run/output";

inline constexpr std::int64_t kStepMs = 1'500;
inline constexpr std::int64_t kEvaluationMs = 60'000;
inline constexpr std::int64_t kCheckpointMs = 20'000;

}  // namespace ckpt::sim
