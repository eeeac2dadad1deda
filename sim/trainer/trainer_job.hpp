// What one incarnation of the job gives each of its ranks: the scenario, the disk, the score
// model and the scheduler, the checkpoint it resumes from, the sink the ranks report what they
// do to, the factory of its trigger callbacks, the stateful-callback machinery, and the virtual clock with
// the directory mtimes it stamps. The trainer reaches nothing else: no checker, no ledger, no fault plan, no
// trace.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "sim/disk/sim_file_system.hpp"
#include "sim/events/event_sink.hpp"
#include "sim/events/virtual_clock.hpp"
#include "sim/ranks/rank_scheduler.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/trainer/callback_state_machinery.hpp"
#include "sim/trainer/checkpoint_mtimes.hpp"
#include "sim/trainer/score_model.hpp"
#include "sim/trainer/trainer_state_file.hpp"
#include "sim/trainer/trigger_port.hpp"

namespace ckpt::sim {

// A trainer_state.json as written, reported again after rank 0's on_save (RankTrainer::on_save).
struct WrittenTrainerState {
    std::int64_t step = 0;
    double score = 0.0;
    CheckpointEvaluationState policy_state;
    std::shared_ptr<const nlohmann::json> callback_states;  // shared with the ledger's record
    FileBytes bytes;                                        // shared with the disk's file
    int rank = 0;                                           // the rank that wrote it
};

struct TrainerJob {
    const Scenario& scenario;
    SimFileSystem& fs;
    const ScoreModel& scores;
    RankScheduler& scheduler;
    EventSink& events;
    const VirtualClock& clock;  // stamps the checkpoint directories' mtimes
    CheckpointMtimes& mtimes;
    TriggerFactory& triggers;                       // the C++ port, or a proxy to an external callback
    const CallbackStateMachinery& callback_states;  // the port's, or Transformers' own
    const EarlyStoppingCallbacks& early_stopping;   // the port's
    int incarnation = 0;
    std::optional<std::int64_t> resume_step;  // the checkpoint this incarnation starts from
    // Its trainer_state.json, loaded: every rank reads the same bytes, so it is parsed once.
    transformers::LoadedTrainerState resume_trainer_state;
    // The last trainer_state.json any rank wrote: under save_on_each_node another node's local
    // rank 0 may write it after rank 0 does, and what rank 0's on_save reports is the file's.
    std::shared_ptr<const WrittenTrainerState> last_trainer_state;
};

}  // namespace ckpt::sim
