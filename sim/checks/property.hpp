// The property catalogue (DESIGN.md's P1-P10, plus P11 "the seed's rules" and P12 liveness) and
// a violation. Ids are stable: scenario files, the CLI and counterexample names use them.
// constexpr, depends on nothing.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ckpt::sim {

// The properties of DESIGN.md (P1-P10) and three the simulator adds: P11 holds every decision
// to the seed's rules, P12 is the liveness check (a run ends by finishing, or because of a
// fault that explains how it ended, and never stops early), and P13 holds the evaluations to
// the trainer's save schedule, and P14 holds the refusals of unsafe training arguments to the
// rules that call for them.
enum class Property : std::uint8_t { P1, P2, P3, P4, P5, P6, P7, P8, P9, P10, P11, P12, P13, P14 };
inline constexpr std::size_t kPropertyCount = 14;

struct PropertyInfo {
    std::string_view id;
    std::string_view name;
    std::string_view statement;
};

inline constexpr std::array<PropertyInfo, kPropertyCount> kProperties{{
    {"P1", "retain",
     "final_checkpoint never moves to a lower-scoring (or equal) checkpoint and ends on the best; on the "
     "visible "
     "and the durable disk outside the save window it names the best survivor, within save_total_limit, and "
     "agrees with what a resume would load"},
    {"P2", "patience",
     "a resume restores the full state of the newest recorded decision on the history it continues, "
     "and no step is counted twice"},
    {"P3", "stop", "after a stop (durable or decided) no further optimizer step or evaluation happens"},
    {"P4", "link", "final_checkpoint is absent or names a complete checkpoint outside the save window"},
    {"P5", "commit", "a restored best_step names a complete checkpoint, and a resume starts from one"},
    {"P6", "hang", "a rank-zero failure ends every rank with the same error; only a dead rank hangs a job"},
    {"P7", "agree", "after every collective each live rank holds the ledger's decided (or restored) state"},
    {"P8", "determinism", "the same seed gives the same trace hash"},
    {"P9", "formats", "the state JSON on disk round-trips exactly"},
    {"P10", "callbacks", "every stateful callback restores to its state at the checkpoint, without warnings"},
    {"P11", "rules", "every decision follows the seed's policy rules"},
    {"P12", "liveness",
     "a run finishes, stops only when patience ran out on its history, or ends for a reason an "
     "injected fault explains (a damaged sidecar fails the resume loudly)"},
    {"P13", "schedule",
     "every save event becomes exactly one evaluation, none happens outside one, and one is dropped "
     "only for a step its history counted or under a stop"},
    {"P14", "refusal",
     "on_train_begin refuses exactly the training arguments the seed's rules refuse, naming the setting, "
     "and a job restarted with the fix it names runs"},
}};

constexpr std::string_view id_of(Property property) noexcept {
    return kProperties[static_cast<std::size_t>(property)].id;
}
constexpr const PropertyInfo& info_of(Property property) noexcept {
    return kProperties[static_cast<std::size_t>(property)];
}
constexpr std::optional<Property> parse_property(std::string_view id) noexcept {
    for (std::size_t i = 0; i < kPropertyCount; ++i) {
        if (kProperties[i].id == id) {
            return static_cast<Property>(i);
        }
    }
    return std::nullopt;
}

struct Violation {
    Property property;
    std::string message;
};

}  // namespace ckpt::sim
