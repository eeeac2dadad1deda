// The explore summary in words and as JSON. Averages are over scenarios, and every figure but
// the wall time is deterministic.
#include "sim/cli/explore_report.hpp"

#include <cstdio>

#include "sim/base/trace_hash.hpp"
#include "sim/base/version.hpp"
#include "sim/cli/table_columns.hpp"
#include "sim/cli/violation_classes.hpp"

namespace ckpt::cli {
namespace {

using nlohmann::json;

std::string fixed(double value, int digits) {
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%.*f", digits, value);
    return buffer;
}

double per(std::uint64_t total, std::uint64_t count) {
    return count == 0 ? 0.0 : static_cast<double>(total) / static_cast<double>(count);
}

std::string minutes_seconds(double seconds) {
    const auto whole = static_cast<std::uint64_t>(std::max(0.0, seconds));
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%llu:%02llu", static_cast<unsigned long long>(whole / 60),
                  static_cast<unsigned long long>(whole % 60));
    return buffer;
}

}  // namespace

std::string progress_line(const sim::ExploreProgress& p, std::optional<std::uint64_t> total,
                          std::optional<double> time_budget_seconds) {
    const double rate = p.elapsed_seconds > 0 ? static_cast<double>(p.done) / p.elapsed_seconds : 0.0;
    std::string line = "explored " + std::to_string(p.done);
    if (total) {
        line += " / " + std::to_string(*total) + " (" +
                fixed(100.0 * per(p.done, std::max<std::uint64_t>(*total, 1)), 1) + "%)";
    }
    line += ", " + std::to_string(p.violating) + " violating, " + fixed(rate, 0) + " scenarios/s, " +
            minutes_seconds(p.elapsed_seconds) + " elapsed";
    std::optional<double> left;
    if (total && rate > 0) {
        left = static_cast<double>(*total - std::min(*total, p.done)) / rate;
    }
    if (time_budget_seconds) {
        const double budget_left = *time_budget_seconds - p.elapsed_seconds;
        left = left ? std::min(*left, budget_left) : budget_left;
    }
    if (left) {
        line += ", " + minutes_seconds(*left) + (total ? " ETA" : " left");
    }
    return line;
}

json coverage_json(const sim::ExploreSummary& summary) {
    json coverage = json::object();
    for (std::size_t i = 0; i < sim::kCrashPointCount; ++i) {
        coverage[std::string(sim::kCrashPointNames[i])] = summary.totals.crash_point_hits[i];
    }
    for (const auto& [kind, count] : summary.totals.faults) {
        coverage[kind] = count;
    }
    for (const auto& [kind, count] : summary.totals.crashes) {
        coverage["crash_kind:" + kind] = count;
    }
    return coverage;
}

void print_explore_summary(std::ostream& out, const sim::ExploreSummary& s,
                           const std::vector<std::string>& replays) {
    out << "explored seeds " << s.first_seed << ".." << s.last_seed
        << (s.shard_count > 1
                ? " (shard " + std::to_string(s.shard_index + 1) + "/" + std::to_string(s.shard_count) +
                      ": every " + std::to_string(s.shard_count) + "th seed)"
                : std::string())
        << ": " << s.scenarios << " scenarios in " << fixed(s.wall_seconds, 1) << " s ("
        << fixed(per(s.scenarios, 1) / std::max(s.wall_seconds, 1e-9), 0) << " scenarios/s)\n";
    print_explore_details(out, s, replays);
    out << "trace hash: " << s.trace_hash << "\n";
}

void print_explore_details(std::ostream& out, const sim::ExploreSummary& s,
                           const std::vector<std::string>& replays) {
    const auto& t = s.totals;
    out << "  per scenario: " << fixed(per(t.steps, s.scenarios), 0) << " steps, "
        << fixed(per(t.evaluations, s.scenarios), 1) << " evaluations, "
        << fixed(per(s.ranks, s.scenarios), 2) << " ranks, " << fixed(per(t.faults_fired(), s.scenarios), 2)
        << " faults fired (" << fixed(100.0 * per(s.scenarios_with_fault, s.scenarios), 1)
        << "% with at least one)\n";
    out << "  simulated: " << t.steps << " optimizer steps (steps retrained after a resume count again, so"
        << " a run may exceed max_steps), " << t.evaluations << " evaluations, " << t.checkpoints
        << " checkpoints, " << fixed(static_cast<double>(t.virtual_ms) / 3.6e6, 1) << " training hours\n";
    out << "  resumes " << t.resumes << "; hangs " << t.hangs << " (" << t.watchdog_restarts
        << " ended by the watchdog and restarted, " << t.hangs - t.watchdog_restarts
        << " with no watchdog, which end the job)\n";
    out << "outcomes:";
    for (const auto& [outcome, count] : s.outcomes) {
        out << "  " << outcome << " " << count;
        if (outcome == "finished") {
            out << " (" << t.stopped_by_policy << " stopped by the policy, " << count - t.stopped_by_policy
                << " trained to the end)";
        }
    }
    const auto short_runs = s.scenarios - t.trained_to_end;
    out << "\n  " << t.refusals_fixed
        << " scenarios were refused, fixed as the refusal said and launched again;"
        << " " << short_runs << " (" << fixed(100.0 * per(short_runs, s.scenarios), 2)
        << "%) ended without training to the end\n  relaunched by the operator's remedy:";
    for (const auto& [remedy, count] : t.relaunches) {
        out << "  " << remedy << " " << count;
    }
    out << "\ncrashes by kind (injected crashes, rank deaths and preemptions; the faults below count each"
           " planned fault once):";
    for (const auto& [kind, count] : t.crashes) {
        out << "  " << kind << " " << count;
    }
    out << "\nfaults by kind:\n";
    for (const auto& [kind, count] : t.faults) {
        out << "  " << padded(kind, 34) << count << "\n";
    }
    out << "coverage (crash point: rank-0 passes / crashes injected):\n";
    for (std::size_t i = 0; i < sim::kCrashPointCount; ++i) {
        out << "  " << padded(std::string(sim::kCrashPointNames[i]), 28)
            << padded(std::to_string(t.crash_point_passes[i]), 12) << t.crash_point_hits[i] << "\n";
    }
    out << "rare paths (scenarios reaching each / share):\n";
    for (std::size_t i = 0; i < sim::kRarePathCount; ++i) {
        out << "  " << padded(std::string(sim::kRarePathNames[i]), 34)
            << padded(std::to_string(t.rare_paths[i]), 9)
            << fixed(100.0 * per(t.rare_paths[i], s.scenarios), 2) << "%\n";
    }
    out << "save window: " << t.save_window_dangling
        << " crash points passed while final_checkpoint dangled between rotation and on_save (not a "
           "violation;"
           " protect_best_in_rotation closes it)\n";
    out << "violations: " << s.violations.size() << " scenarios";
    for (std::size_t i = 0; i < sim::kPropertyCount; ++i) {
        if (s.violations_by_property[i] > 0) {
            out << "  " << sim::kProperties[i].id << " " << s.violations_by_property[i];
        }
    }
    out << "\n";
    for (std::size_t i = 0; i < s.violations.size() && i < 20; ++i) {
        const auto& found = s.violations[i];
        out << "  seed " << found.seed << ": " << sim::id_of(found.violations.front().property) << " "
            << found.violations.front().message << "\n";
        if (i < replays.size()) {
            out << "    " << replays[i] << "\n";
        }
    }
    const auto classes = violation_classes(s.violations);
    if (classes.size() > 1) {
        constexpr std::size_t kShown = 12;
        constexpr std::size_t kSignatureShown = 150;
        out << "violation classes (" << classes.size()
            << ": the same property and message but for its numbers; scenarios, first seed):\n";
        for (std::size_t i = 0; i < classes.size() && i < kShown; ++i) {
            const auto& c = classes[i];
            out << "  " << sim::id_of(c.property) << " " << c.scenarios << ", seed " << c.first_seed << ": "
                << c.signature.substr(0, kSignatureShown)
                << (c.signature.size() > kSignatureShown ? "..." : "") << "\n";
        }
    }
}

json explore_json(const sim::ExploreSummary& s, const std::vector<std::string>& replays,
                  const json& provenance) {
    json violations = json::array();
    for (std::size_t i = 0; i < s.violations.size(); ++i) {
        const auto& found = s.violations[i];
        json list = json::array();
        for (const auto& v : found.violations) {
            list.push_back({{"property", sim::id_of(v.property)}, {"message", v.message}});
        }
        violations.push_back({{"seed", found.seed},
                              {"violations", list},
                              {"replay", i < replays.size() ? replays[i] : std::string()}});
    }
    const auto& t = s.totals;
    return {
        {"ckptsim_version", sim::kCkptsimVersion},
        {"scenario_format", sim::kScenarioFormat},
        {"build_id", provenance.at("build_id")},
        {"run", provenance.at("run")},
        {"shard", {{"index", s.shard_index + 1}, {"count", s.shard_count}}},
        {"interrupted", s.interrupted},
        {"scenarios", s.scenarios},
        {"first_seed", s.first_seed},
        {"last_seed", s.last_seed},
        {"violations", violations},
        {"coverage", coverage_json(s)},
        {"crash_point_passes",
         [&] {
             json passes = json::object();
             for (std::size_t i = 0; i < sim::kCrashPointCount; ++i) {
                 passes[std::string(sim::kCrashPointNames[i])] = t.crash_point_passes[i];
             }
             return passes;
         }()},
        {"rare_paths",
         [&] {
             json paths = json::object();
             for (std::size_t i = 0; i < sim::kRarePathCount; ++i) {
                 paths[std::string(sim::kRarePathNames[i])] = {{"scenarios", t.rare_paths[i]},
                                                               {"share", per(t.rare_paths[i], s.scenarios)}};
             }
             return paths;
         }()},
        {"crashes", t.crashes},
        {"outcomes", s.outcomes},
        {"steps", t.steps},
        {"evaluations", t.evaluations},
        {"resumes", t.resumes},
        {"hangs", t.hangs},
        {"watchdog_restarts", t.watchdog_restarts},
        {"stopped_by_policy", t.stopped_by_policy},
        {"refusals_fixed", t.refusals_fixed},
        {"trained_to_end", t.trained_to_end},
        {"relaunches", t.relaunches},
        {"simulated_hours", static_cast<double>(t.virtual_ms) / 3.6e6},
        {"average_steps", per(t.steps, s.scenarios)},
        {"average_evaluations", per(t.evaluations, s.scenarios)},
        {"average_ranks", per(s.ranks, s.scenarios)},
        {"save_window_dangling", t.save_window_dangling},
        // Sums that the averages above are computed from, so `merge` can add shards exactly.
        {"ranks", s.ranks},
        {"scenarios_with_fault", s.scenarios_with_fault},
        {"checkpoints", t.checkpoints},
        {"incarnations", t.incarnations},
        {"virtual_ms", t.virtual_ms},
        {"trace_hash", s.trace_hash},
        {"scenario_digest", sim::TraceHash::to_hex(s.scenario_digest)},
    };
}

}  // namespace ckpt::cli
