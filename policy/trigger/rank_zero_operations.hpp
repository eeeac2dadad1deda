// The names of the trigger callback's rank-zero-only operations, as they appear in the shared
// outcome's RankZeroFailure (policy/ports/rank_zero_outcome.hpp) and in its message. A caller
// that must react to one failure (the simulator classifying how a job ended) compares
// RankZeroFailure::operation() with these, never the message text.
#pragma once

namespace ckpt {

inline constexpr const char* kSidecarRestoreOperation = "sidecar policy restore";
inline constexpr const char* kArtifactRecoveryOperation = "committed checkpoint artifact recovery";
inline constexpr const char* kSavedCheckpointPublicationOperation = "saved checkpoint publication";

}  // namespace ckpt
