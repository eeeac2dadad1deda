// One scenario's world: what outlives each incarnation of the job (the disk, the ledger, the
// virtual clock, the save window, the trace, the stats) and the sinks that observe it. Members
// are declared so that each is built after everything it refers to.
#pragma once

#include "sim/base/rng.hpp"
#include "sim/checks/ledger.hpp"
#include "sim/checks/ledger_writer.hpp"
#include "sim/checks/oracles.hpp"
#include "sim/disk/sim_file_system.hpp"
#include "sim/events/job_constants.hpp"
#include "sim/events/save_window.hpp"
#include "sim/events/virtual_clock.hpp"
#include "sim/faults/callback_crash_points.hpp"
#include "sim/faults/callback_io.hpp"
#include "sim/faults/fault_plan.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/trainer/checkpoint_mtimes.hpp"
#include "sim/trainer/score_model.hpp"
#include "sim/world/run_stats.hpp"
#include "sim/world/simulation.hpp"
#include "sim/world/stats_sink.hpp"
#include "sim/world/trace.hpp"
#include "sim/world/trace_sink.hpp"

namespace ckpt::sim {

struct World {
    World(const Scenario& s, const RunOptions& options)
        : scenario(s),
          scores(s),
          trace(options.keep_trace, options.trace_sink),
          ledger_writer(s.callbacks, fs, ledger),
          oracles(scenario, fs, ledger, save_window),
          callback_io(kOutputDir),
          callback_points(callback_io),
          faults(scenario, Rng(s.seed).derive("faults"), callback_io),
          stats_sink(stats, scenario, ledger),
          trace_sink(trace, clock, incarnation),
          power(Rng(s.seed).derive("power")) {
        fs.mkdir("/run");
        fs.mkdir(kOutputDir);
        fs.sync_all();
    }
    World(const World&) = delete;
    World& operator=(const World&) = delete;

    const Scenario& scenario;
    SimFileSystem fs;
    ScoreModel scores;
    Ledger ledger;
    Trace trace;
    RunStats stats;
    VirtualClock clock;
    CheckpointMtimes checkpoint_mtimes;  // survives incarnations, as the disk does
    SaveWindow save_window;
    int incarnation = 0;  // the running incarnation, or the last one
    LedgerWriter ledger_writer;
    Oracles oracles;
    CallbackIo callback_io;
    CallbackCrashPoints callback_points;
    FaultPlan faults;
    StatsSink stats_sink;
    TraceSink trace_sink;
    Rng power;
};

}  // namespace ckpt::sim
