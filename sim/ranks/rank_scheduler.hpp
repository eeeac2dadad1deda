// The rank scheduler's interface: run a job's ranks as fibers, one at a time, switching only in
// collectives, with kills, hang reports and a watchdog. Same chooser decisions, same run. The
// fiber machinery stays behind it (rank_scheduler_impl.hpp); depends on nlohmann::json, the rank
// limit and the Collective port's shared broadcast value.
#pragma once

#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "policy/ports/collective.hpp"
#include "sim/ranks/rank_limit.hpp"

namespace ckpt::sim {

enum class CollectiveKind : std::uint8_t { barrier, broadcast };
const char* to_string(CollectiveKind kind) noexcept;

// Where a blocked rank waits. Ranks match collectives by order, as torch.distributed does, so the sequence
// number is what makes a report comparable across ranks; the label says which trainer hook it came from.
struct WaitPoint {
    CollectiveKind kind = CollectiveKind::barrier;
    int src = -1;                // the broadcast root; -1 for a barrier
    std::uint64_t sequence = 0;  // the n-th collective this rank entered, from 0
    const char* label = "";      // a string with static storage duration, e.g. "on_save"
};

// Thrown by a rank body (or by kill_rank on the calling rank) to model that rank's process being killed. It
// deliberately does not derive from std::exception: a trainer's `catch (const std::exception&)`, which turns
// rank-zero errors into a broadcast outcome, must not see a process kill as an error it can report.
class RankDied {
  public:
    explicit RankDied(const char* reason = "killed") noexcept : reason_(reason) {}
    const char* reason() const noexcept { return reason_; }

  private:
    const char* reason_;
};

// Thrown by a rank body when the whole job goes down (power loss, node loss, a job-level kill). run() unwinds
// every other rank and rethrows it. Not a std::exception, for the same reason as RankDied.
class JobCrash {
  public:
    explicit JobCrash(std::string reason) : reason_(std::move(reason)) {}
    virtual ~JobCrash() = default;
    const std::string& reason() const noexcept { return reason_; }

  private:
    std::string reason_;
};

struct RankOutcome {
    enum class Kind : std::uint8_t { finished, failed, dead, hung };
    Kind kind = Kind::finished;
    std::string message;       // failed: the exception's what(); dead: why it died
    std::exception_ptr error;  // failed: what the body threw, to rethrow or inspect
    // failed: the object `error` holds, when it is a std::exception, to inspect by type without
    // the cost of a rethrow; valid while `error` is.
    const std::exception* thrown = nullptr;
    std::optional<WaitPoint> waiting;  // hung: the collective it waits in
    std::uint64_t collectives = 0;     // collectives this rank entered, to place a death or failure in time
};
const char* to_string(RankOutcome::Kind kind) noexcept;

struct RunResult {
    std::vector<RankOutcome> ranks;  // indexed by rank
    std::string hang;                // empty unless ranks hung: why no collective can complete
    // Every rank the hung collective waits on is dead (it never arrived and never will). When it
    // also waits on a rank that finished or failed, that rank left a collective the others
    // entered, and the death beside it explains nothing.
    bool hang_awaits_dead_rank = false;

    bool hung() const noexcept { return !hang.empty(); }
    bool all_finished() const noexcept;
    // Multi-line, one line per rank, for traces and failure messages.
    std::string describe() const;
};

// A hang turned into a job crash, as a torch watchdog (NCCL timeout) would; the simulator then resumes the
// job.
class WatchdogTimeout final : public JobCrash {
  public:
    explicit WatchdogTimeout(RunResult result);
    const RunResult& result() const noexcept { return result_; }

  private:
    RunResult result_;
};

struct RankSchedulerConfig {
    int world_size = 1;
    // When true, run() throws WatchdogTimeout instead of returning a hung result.
    bool watchdog = false;
    // Virtual size of each rank's stack; pages are only committed when touched, and a guard page turns an
    // overflow into a fault instead of silent corruption of a neighbour.
    std::size_t stack_size = std::size_t{1} << 20;
};

struct RankSchedulerStats {
    std::uint64_t collectives = 0;       // completed, including world-size-1 ones that never block
    std::uint64_t context_switches = 0;  // stack switches, both directions: one dispatch of a rank costs two
};

class SimCollective;

// Runs every rank of a job as a fiber on the calling thread, one at a time. A rank only gives up the CPU
// inside a collective, so the whole interleaving is decided by the chooser: same chooser decisions, same run.
//
// Collectives follow torch NCCL semantics: each one needs every rank of the world. A rank that is dead,
// failed or finished never arrives, so a collective still waiting for it cannot complete and the job hangs;
// the scheduler reports that instead of completing it among the survivors, because a real job would hang too
// and the properties must see exactly that (P6: a dead rank is a hang, never a wrong answer).
class RankScheduler {
  public:
    using Body = std::function<void(int rank)>;
    // Picks which runnable rank runs next. Receives the runnable ranks in ascending order and returns an
    // index into that span. Only consulted when there is a real choice (two or more runnable ranks), so a
    // seeded PRNG behind it draws only for decisions that can change the run. An empty chooser always picks
    // the lowest rank.
    using Chooser = std::function<std::size_t(std::span<const int> runnable)>;

    explicit RankScheduler(RankSchedulerConfig config, Chooser chooser = {});
    ~RankScheduler();
    RankScheduler(const RankScheduler&) = delete;
    RankScheduler& operator=(const RankScheduler&) = delete;

    // Runs `body(rank)` on every rank not already killed, until all end or the job hangs. A hang is returned
    // (or thrown as WatchdogTimeout); a JobCrash from any rank is rethrown. Either way every fiber has been
    // unwound, running the destructors on its stack, before run() leaves. Callable once per scheduler.
    // Unwinding throws an internal type from the collective a rank waits in: a body must rethrow from any
    // `catch (...)`, and must not enter a collective from a destructor.
    RunResult run(const Body& body);

    // Kills a rank: it never runs again and its stack is unwound. Called on the running rank itself, it
    // throws RankDied and does not return. Another rank, if it was waiting in a collective, leaves it, so
    // that collective can no longer complete. Killing a rank that already ended is a no-op.
    void kill_rank(int rank);

    int world_size() const noexcept { return world_size_; }
    // The rank whose code is executing, or -1 outside any rank (e.g. in the chooser).
    int current_rank() const noexcept { return current_; }
    // False once a rank is dead, failed or finished: components that model a process (the file system, the
    // fault injector) can ignore what a rank does while its stack is being unwound.
    bool is_alive(int rank) const;
    const RankSchedulerStats& stats() const noexcept { return stats_; }

  private:
    friend class SimCollective;
    struct Impl;

    void barrier(int rank, const char* label);
    SharedJson broadcast(int rank, nlohmann::json value, int src, const char* label);
    // A world of one never blocks, and the 1-rank training loop runs millions of collectives a second, so its
    // collectives only count and never reach the fiber machinery.
    void note_local_collective() noexcept { ++stats_.collectives; }

    int world_size_;
    int current_ = -1;
    RankSchedulerStats stats_;
    std::unique_ptr<Impl> impl_;
};

}  // namespace ckpt::sim
