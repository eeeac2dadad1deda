// The name of each event type, for the trace's violation lines: a violation says which event it
// judged even when that event writes no trace line of its own. The table follows the order of
// the Event variant; a static_assert keeps the two the same length.
#pragma once

#include <array>
#include <string_view>
#include <variant>

#include "sim/events/event.hpp"

namespace ckpt::sim {

inline constexpr std::array<std::string_view, 43> kEventNames = {"IncarnationBegan",
                                                                 "IncarnationEnded",
                                                                 "ResumeSourceChosen",
                                                                 "RanksEnded",
                                                                 "JobFinished",
                                                                 "IncarnationLimitReached",
                                                                 "UnexplainedFailure",
                                                                 "ResumeRefused",
                                                                 "CallbacksRestored",
                                                                 "TrainBegan",
                                                                 "BaselineEstablished",
                                                                 "RecoveryFinished",
                                                                 "RankStateShared",
                                                                 "StepStarted",
                                                                 "StepFinished",
                                                                 "EpochEnded",
                                                                 "EvaluationStarted",
                                                                 "DecisionMade",
                                                                 "StopInForce",
                                                                 "SidecarPersisted",
                                                                 "CheckpointStarted",
                                                                 "TrainerStateWritten",
                                                                 "RotationStarted",
                                                                 "SaveCallbackStarted",
                                                                 "SaveCallbackReturned",
                                                                 "Committed",
                                                                 "CrashPointPassed",
                                                                 "LinkPublished",
                                                                 "CrashInjected",
                                                                 "RankDeathInjected",
                                                                 "SidecarCorrupted",
                                                                 "CheckpointCorrupted",
                                                                 "Preempted",
                                                                 "IoErrorInjected",
                                                                 "EarlyStoppingRequested",
                                                                 "MetricsEvaluated",
                                                                 "BestModelLoading",
                                                                 "EvaluationScored",
                                                                 "EvaluationReturned",
                                                                 "TrainingRefused",
                                                                 "OperatorRemedied",
                                                                 "TrainerEvaluationStarted",
                                                                 "FixedResumeRuleReturned"};
static_assert(kEventNames.size() == std::variant_size_v<Event>, "one name per Event alternative");

inline std::string_view event_name(const Event& event) noexcept {
    return kEventNames[event.index()];
}

}  // namespace ckpt::sim
