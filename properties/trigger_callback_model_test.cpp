// Model-based test of TriggerCallback alone, on the crash-consistent SimFileSystem with one
// rank: random sequences of training steps (with the evaluations and saves they trigger),
// crashes of every kind (between operations, or at the n-th file operation of a step or of a
// restart) and resumes, checked against a model of what must be durable.
//
// The model is a ledger of the policy states a write has made durable, plus the one a write
// was making durable when a crash cut it short. It has to be fed from the run: where an armed
// crash lands, and so which writes returned, is only known once the step has run. So it lives
// in the harness beside the system, and rc::state's own model carries only the configuration.
// What it checks:
//  - when persist() or on_save() returns, the durable view of the disk (what a power loss
//    leaves) holds exactly the callback's state, and final_checkpoint names the best durably;
//  - after a restart's on_train_begin, the restored state is the last durably recorded one, or
//    the one whose write a crash interrupted, never an older one or one the run never decided;
//  - a restored stop stops the trainer, and a restored best is what final_checkpoint names;
//  - at any moment final_checkpoint is absent or names a complete checkpoint (this trainer
//    model has no rotation of its own, so there is no save window).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <rapidcheck/gtest.h>
#include <rapidcheck/state.h>

#include "policy/base/mutants.hpp"
#include "policy/formats/saved_trigger_callback.hpp"
#include "policy/output_dir/checkpoint_layout.hpp"
#include "policy/output_dir/final_checkpoint_link.hpp"
#include "policy/output_dir/model_weights.hpp"
#include "policy/output_dir/resume_point.hpp"
#include "policy/ports/collective.hpp"
#include "policy/trigger/apply_decision.hpp"
#include "policy/trigger/trigger_callback.hpp"
#include "properties/support/quiet_check.hpp"
#include "properties/support/size_free_range.hpp"
#include "sim/base/rng.hpp"
#include "sim/disk/sim_file_system.hpp"

namespace ckpt::properties {
namespace {

using nlohmann::json;

const std::string kOut = "/out";

// The harness resumes like the simulator's trainer, but has nothing to trace.
struct UntracedResume final : ResumeObserver {
    bool on_chosen(const CheckpointEntry&) override { return true; }
    void on_removed(const CheckpointEntry&) override {}
};

// Thrown from the file system's observer to kill the process mid-operation. Not a
// std::exception, so no handler in the code under test runs, as none runs in a killed process.
struct InjectedCrash {};

enum class CrashMode { process_kill, power_loss_strict, power_loss_prefix, power_loss_torn };

std::string_view to_string(CrashMode mode) {
    switch (mode) {
        case CrashMode::process_kill:
            return "process kill";
        case CrashMode::power_loss_strict:
            return "power loss (strict)";
        case CrashMode::power_loss_prefix:
            return "power loss (prefix)";
        case CrashMode::power_loss_torn:
            return "power loss (torn)";
    }
    return "?";
}

rc::Gen<CrashMode> gen_crash_mode() {
    return rc::gen::map(uniform(0, 4), [](int i) { return static_cast<CrashMode>(i); });
}

// A step count of 2 to 5 between saves, and gate and regular steps among the first few steps, so
// a short command sequence already goes through many evaluations, saves and stops.
struct Config {
    TriggerCallbackConfig callback;
    std::int64_t save_steps = 2;
    std::uint64_t power_seed = 0;  // what a power loss keeps (prefix and torn modes)
};

void showValue(const Config& config, std::ostream& os) {
    const auto& c = config.callback;
    os << "save_steps " << config.save_steps << ", patience " << c.policy.patience << ", tie "
       << to_string(c.policy.tie_policy) << ", patience_start_step " << c.policy.patience_start_step
       << ", gate_steps " << json(c.gate_steps).dump() << ", regular_steps "
       << (c.regular_steps ? std::to_string(*c.regular_steps) : "none") << ", save_total_limit "
       << c.save_total_limit << ", power seed " << config.power_seed;
}

rc::Gen<Config> gen_config() {
    return rc::gen::exec([] {
        Config config;
        config.save_steps = *uniform<std::int64_t>(2, 6);
        config.callback.policy.patience = *uniform<std::int64_t>(1, 5);
        config.callback.policy.tie_policy = static_cast<TiePolicy>(*uniform(0, 4));
        config.callback.policy.patience_start_step = *rc::gen::element<std::int64_t>(0, 0, 3, 8);
        if (*rc::gen::arbitrary<bool>()) {
            config.callback.gate_steps = {1, 3};
        }
        if (*rc::gen::arbitrary<bool>()) {
            config.callback.regular_steps = *uniform<std::int64_t>(2, 6);
        }
        config.callback.save_total_limit = *uniform<std::int64_t>(1, 4);
        config.power_seed = *rc::gen::arbitrary<std::uint64_t>();
        return config;
    });
}

struct Ledger {
    // The newest state a returned write made durable; the fresh state before any.
    CheckpointEvaluationState durable;
    // A state whose write was under way when the process died: a restart may see it or not.
    std::optional<CheckpointEvaluationState> in_flight;
};

// The system under test (one rank's trainer loop, the callback and the disk) and the ledger.
class Harness {
  public:
    explicit Harness(const Config& config, bool shield_checkpoint_commit = true)
        : config_(config), power_(config.power_seed), shield_checkpoint_commit_(shield_checkpoint_commit) {
        fs_.mkdir(kOut);
        fs_.sync_all();
        fs_.set_observer([this](const sim::FsOperation&) {
            if (armed_ > 0 && --armed_ == 0) {
                if (shielded_) {
                    armed_ = 1;
                    return;
                }
                throw InjectedCrash{};
            }
        });
    }

    bool running() const { return callback_.has_value(); }
    bool stopped() const { return control_.should_training_stop; }

    // Runs `action`, killing the process with `mode` if the armed operation count runs out.
    template <typename Action>
    void with_crash_at(std::optional<int> operation, CrashMode mode, Action&& action) {
        armed_ = operation.value_or(0);
        try {
            action();
        } catch (const InjectedCrash&) {
            armed_ = 0;
            crash(mode);
            check_link_names_a_complete_checkpoint();
            return;
        }
        armed_ = 0;
    }

    void step(double score) {
        control_.should_log = false;  // on_step_begin
        control_.should_evaluate = false;
        control_.should_save = false;
        ++global_step_;
        if (global_step_ % config_.save_steps == 0) {
            control_.should_save = true;  // DefaultFlowCallback
        }
        callback_->on_step_end(view(), control_);
        if (control_.should_evaluate) {
            control_.should_evaluate = false;
            if (callback_->consume_checkpoint_evaluation()) {
                evaluate(score);
            }
        }
        if (control_.should_save) {
            control_.should_save = false;
            write_checkpoint();
            callback_->on_save(view(), control_);
            wrote_durably();
        }
        check_link_names_a_complete_checkpoint();
    }

    // The process dies (and with power loss, the machine): what is left on disk must still be
    // consistent, so the link is checked by the caller right after.
    void crash(CrashMode mode) {
        callback_.reset();
        if (mode == CrashMode::process_kill) {
            fs_.process_kill();
        } else {
            const auto loss = mode == CrashMode::power_loss_strict   ? sim::PowerLossMode::strict
                              : mode == CrashMode::power_loss_prefix ? sim::PowerLossMode::prefix
                                                                     : sim::PowerLossMode::torn;
            fs_.power_loss(loss, power_);
        }
    }

    // A new process: the fixed resume rule (the newest complete checkpoint, dropping newer
    // incomplete ones, as the simulator's trainer does), then on_train_begin.
    void restart() {
        if (callback_) {
            fs_.process_kill();  // the old process is preempted
            callback_.reset();
        }
        control_ = TrainerControl{};
        global_step_ = 0;
        UntracedResume untraced;
        const auto source = resume_from_checkpoint(fs_, kOut, ResumeSourceRule::newest_complete, untraced);
        if (source) {
            const auto trainer_state =
                json::parse(fs_.read_file(join_path(join_path(kOut, source->name), kTrainerStateName)));
            callback_.emplace(TriggerCallback::from_state(
                find_saved_trigger_callback(trainer_state).value().state, fs_, collective_));
            global_step_ = source->step;
        } else {
            callback_.emplace(config_.callback, fs_, collective_);
        }
        callback_->on_train_begin(TrainingArguments{kOut}, view(), control_);
        check_restored_state();
    }

    void check_link_names_a_complete_checkpoint() { RC_ASSERT(link_is_absent_or_complete()); }

    bool link_is_absent_or_complete() {
        if (!fs_.is_symlink(join_path(kOut, kFinalCheckpointLink))) {
            return true;
        }
        const auto step = final_checkpoint_step(fs_, kOut);
        return step && is_complete_checkpoint(fs_, kOut, *step);
    }

  private:
    TrainerStateView view() const { return {global_step_, true}; }

    void evaluate(double score) {
        const auto decision = callback_->policy().observe(score, global_step_);
        apply_checkpoint_evaluation_decision(control_, decision);
        callback_->record_checkpoint_evaluation_decision(decision);
        ledger_.in_flight = callback_->policy().state();
        if (!decision.should_save) {
            // A lower score has no checkpoint to live in: the trainer persists it at once.
            callback_->persist();
            wrote_durably();
        }
    }

    // Transformers' _save_checkpoint, with the simulator's declared choice of fsynced files:
    // trainer_state.json (with every stateful callback) last.
    void write_checkpoint() {
        const auto dir = join_path(kOut, checkpoint_dir_name(global_step_));
        make_dirs(fs_, dir);
        fs_.write_file(join_path(dir, "model.safetensors"),
                       safetensors_without_tensors("weights@" + std::to_string(global_step_)));
        fs_.fsync_file(join_path(dir, "model.safetensors"));
        const json trainer_state = {
            {"global_step", global_step_},
            {"stateful_callbacks",
             {{"CheckpointEvaluationTriggerCallback", callback_->state()},
              {"TrainerControl", control_.state()}}},
        };
        const auto path = join_path(dir, kTrainerStateName);
        fs_.write_file(path, trainer_state.dump(2));
        // Shielded only for harnesses that ask for it; RecoveryMakesACheckpointDurableBeforeLinkingIt
        // below crashes inside this window on purpose.
        shielded_ = shield_checkpoint_commit_;
        fs_.fsync_file(path);
        fs_.fsync_dir(dir);
        fs_.fsync_dir(kOut);
        shielded_ = false;
        // A complete checkpoint is a durable record of the state it holds.
        ledger_.durable = callback_->policy().state();
    }

    std::optional<CheckpointEvaluationState> durable_sidecar_state() const {
        const auto bytes = fs_.content_in(sim::FsView::durable, join_path(kOut, kSidecarName));
        if (!bytes) {
            return std::nullopt;
        }
        const auto payload = json::parse(*bytes, nullptr, false);
        RC_ASSERT(!payload.is_discarded());
        return CheckpointEvaluationPolicy::from_state_dict(payload.at("checkpoint_eval_state")).state();
    }

    // persist() or on_save() returned: the state must now survive a power loss.
    void wrote_durably() {
        const auto& state = callback_->policy().state();
        const auto on_disk = durable_sidecar_state();
        RC_ASSERT(on_disk.has_value());
        RC_ASSERT(*on_disk == state);
        if (state.best_step && !state.best_is_external) {
            const auto link = fs_.link_target_in(sim::FsView::durable, join_path(kOut, kFinalCheckpointLink));
            RC_ASSERT(link.has_value());
            RC_ASSERT(parse_checkpoint_step(*link) == state.best_step);
        }
        ledger_.durable = state;
        ledger_.in_flight.reset();
    }

    void check_restored_state() {
        const auto restored = callback_->policy().state();
        const bool durable = restored == ledger_.durable;
        const bool interrupted = ledger_.in_flight && restored == *ledger_.in_flight;
        if (!durable && !interrupted) {
            RC_FAIL("restored evaluation_count " + std::to_string(restored.evaluation_count) +
                    " (best_step " + (restored.best_step ? std::to_string(*restored.best_step) : "none") +
                    ") is neither the durable state (evaluation_count " +
                    std::to_string(ledger_.durable.evaluation_count) + ") nor the interrupted one");
        }
        RC_ASSERT(restored.evaluation_count >= ledger_.durable.evaluation_count);
        if (restored.stop_requested) {
            RC_ASSERT(control_.should_training_stop);
        }
        if (restored.best_step && !restored.best_is_external) {
            RC_ASSERT(final_checkpoint_step(fs_, kOut) == restored.best_step);
            RC_ASSERT(is_complete_checkpoint(fs_, kOut, *restored.best_step));
            // Recovery republished what it restored, so it is durable now.
            RC_ASSERT(durable_sidecar_state() == restored);
        }
        ledger_.durable = restored;
        ledger_.in_flight.reset();
        check_link_names_a_complete_checkpoint();
    }

    Config config_;
    sim::SimFileSystem fs_;
    SingleProcessCollective collective_;
    sim::Rng power_;
    std::optional<TriggerCallback> callback_;  // empty while no process runs
    TrainerControl control_;
    std::int64_t global_step_ = 0;
    int armed_ = 0;  // mutating file operations until an armed crash; 0 when none is armed
    bool shield_checkpoint_commit_ = true;
    bool shielded_ = false;
    Ledger ledger_;
};

struct Model {
    Config config;
};

using Command = rc::state::Command<Model, Harness>;

// Scores on a grid of quarters, so ties (and every tie policy) come up often.
rc::Gen<double> gen_score() {
    return rc::gen::map(uniform(0, 5), [](int q) { return q / 4.0; });
}

// A crash at the n-th mutating file operation of the command, or none.
struct ArmedCrash {
    std::optional<int> operation;
    CrashMode mode = CrashMode::process_kill;

    ArmedCrash() {
        const bool armed = *rc::gen::arbitrary<bool>();
        const int at = *uniform(1, 16);
        mode = *gen_crash_mode();
        if (armed) {
            operation = at;
        }
    }

    void show(std::ostream& os) const {
        if (operation) {
            os << ", " << to_string(mode) << " at file operation " << *operation;
        }
    }
};

struct Steps : Command {
    std::vector<double> scores =
        *rc::gen::resize(4, rc::gen::nonEmpty(rc::gen::container<std::vector<double>>(gen_score())));
    ArmedCrash crash;

    void run(const Model& /*model*/, Harness& harness) const override {
        harness.with_crash_at(crash.operation, crash.mode, [&] {
            for (const double score : scores) {
                if (!harness.running() || harness.stopped()) {
                    return;  // a dead or stopped job takes no step
                }
                harness.step(score);
            }
        });
    }
    void show(std::ostream& os) const override {
        os << "steps(scores";
        for (const double score : scores) {
            os << " " << score;
        }
        crash.show(os);
        os << ")";
    }
};

struct Crash : Command {
    CrashMode mode = *gen_crash_mode();

    void run(const Model& /*model*/, Harness& harness) const override {
        harness.crash(mode);
        harness.check_link_names_a_complete_checkpoint();
    }
    void show(std::ostream& os) const override { os << "crash(" << to_string(mode) << ")"; }
};

struct Restart : Command {
    ArmedCrash crash;

    void run(const Model& /*model*/, Harness& harness) const override {
        harness.with_crash_at(crash.operation, crash.mode, [&] { harness.restart(); });
    }
    void show(std::ostream& os) const override {
        os << "restart(";
        crash.show(os);
        os << ")";
    }
};

void check_against_the_model() {
    const Model model{*gen_config()};
    Harness harness(model.config);
    harness.restart();  // the first start: nothing to resume from
    rc::state::check(model, harness,
                     rc::state::gen::execOneOfWithArgs<Steps, Steps, Steps, Crash, Restart>());
}

RC_GTEST_PROP(TriggerCallbackModel, WhatReturnedIsDurableAndRestartsRestoreIt, ()) {
    check_against_the_model();
}

// A model test that cannot fail proves nothing: each of these catalogue bugs sits in the
// callback's sidecar protocol or restore path, which is all this test drives, and it must
// catch every one. The others need several ranks, the trainer's own code, the policy's rules,
// or (sidecar_without_commit_check) a checkpoint damaged at rest, which this harness does not
// inject: the simulator's properties cover those.
TEST(TriggerCallbackModel, CatchesTheCallbackMutants) {
    for (const auto mutant :
         {mutants::Mutant::sidecar_without_temp_rename, mutants::Mutant::sidecar_without_fsync,
          mutants::Mutant::sidecar_without_dir_fsync, mutants::Mutant::sidecar_rollback,
          mutants::Mutant::link_at_evaluation, mutants::Mutant::stop_not_restored,
          mutants::Mutant::pending_save_persisted, mutants::Mutant::commit_check_is_dir_only}) {
        const mutants::MutantScope scope(mutant);
        const auto result =
            check_quietly("TriggerCallbackModel/" + std::string(mutants::name_of(mutant)), 2000,
                          /*shrink=*/false, check_against_the_model);
        EXPECT_FALSE(result.template is<rc::detail::SuccessResult>())
            << mutants::name_of(mutant) << " survived 2000 command sequences";
    }
}

// The window the harness shields above, left open (a regression test for a gap this suite found).
// A kill after trainer_state.json is written but before the checkpoint is fsynced leaves
// checkpoint-2 complete in the page cache only. The restart resumes from it (a killed process
// loses no page cache), and on_train_begin's recovery publishes final_checkpoint to it and
// fsyncs the link. Recovery must make the checkpoint durable before linking to it, or a power
// loss keeps the link and loses the checkpoint's trainer_state.json. The simulator's
// before_checkpoint_fsync crash point covers the same window.
TEST(TriggerCallbackModel, RecoveryMakesACheckpointDurableBeforeLinkingIt) {
    Config config;
    config.save_steps = 2;
    config.callback.policy.patience = 1;
    Harness harness(config, /*shield_checkpoint_commit=*/false);
    harness.restart();
    // Steps 1 and 2; step 2 evaluates and saves: mkdir, model write, model fsync, trainer_state
    // write, then the fsync of trainer_state.json is the 5th mutating operation.
    harness.with_crash_at(5, CrashMode::process_kill, [&] {
        harness.step(0.0);
        harness.step(0.0);
    });
    harness.restart();
    harness.crash(CrashMode::power_loss_strict);
    EXPECT_TRUE(harness.link_is_absent_or_complete());
}

}  // namespace
}  // namespace ckpt::properties
