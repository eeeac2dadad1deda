// The checkers' own reading of the simulated disk and the ledger: completeness, the visible
// link, the durably recorded floor. It never uses the policy's parsers or completeness test,
// which a mutant may bend, and it only reads (through the inspection views, which no injected
// fault can hit). Shared by the ledger writer and the checkers.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "policy/core/checkpoint_evaluation_state.hpp"
#include "sim/checks/ledger.hpp"
#include "sim/disk/sim_file_system.hpp"

namespace ckpt::sim {

std::string describe(const CheckpointEvaluationState& state);

// Reads the seed's state mapping; nothing when it is not a well-formed state.
std::optional<CheckpointEvaluationState> read_state(const nlohmann::json& mapping);

std::string checkpoint_path(std::int64_t step);
// checkpoint-N/trainer_state.json under the output directory.
std::string trainer_state_path(std::int64_t step);

// Complete: trainer_state.json parses and names global_step `step`.
bool checkpoint_is_complete(const SimFileSystem& fs, const Ledger& ledger, std::int64_t step);
// The text is a JSON object whose global_step is the integer `step` (validated whole, only
// global_step built: top_level_fields.hpp).
bool trainer_state_names_step(std::string_view bytes, std::int64_t step);
bool checkpoint_has_every_shard(const SimFileSystem& fs, const Ledger& ledger, int ranks, std::int64_t step);
std::optional<std::int64_t> visible_link_step(const SimFileSystem& fs);
bool record_intact(const SimFileSystem& fs, const Ledger& ledger, const CheckpointRecord& record);

// The newest durably recorded decision that is still usable.
CheckpointEvaluationState expected_floor(const SimFileSystem& fs, const Ledger& ledger);

// The durable sidecar as P2 and P9 read it. Its payload holds only what they read:
// last_evaluated_step and, of checkpoint_eval_state, the fields read_state reads.
SidecarReading read_durable_sidecar(const SimFileSystem& fs);
// The same reading of sidecar bytes from any view (nothing when there are none).
SidecarReading read_sidecar_bytes(std::optional<std::string> bytes);
// What read_sidecar_bytes gives for bytes that are exactly the checkers' own layout of `state`
// (sidecar_oracle_format.hpp's oracle_sidecar_text of these arguments, the best finite or
// absent), known without scanning them: that state, and that step as json::parse reads it.
SidecarReading reading_of_laid_out_sidecar(std::string bytes, const PolicySettings& settings,
                                           const CheckpointEvaluationState& state, std::int64_t step,
                                           int version);

}  // namespace ckpt::sim
