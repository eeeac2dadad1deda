// Workers claim verdicts in order; each writes only its own slot, so no result depends on which
// thread shrank it.
#include "sim/explore/shrunk_kills.hpp"

#include <algorithm>
#include <atomic>
#include <thread>

#include "sim/base/first_failure.hpp"

namespace ckpt::sim {

std::vector<std::optional<ShrinkResult>> shrink_kills(const std::vector<MutantVerdict>& verdicts,
                                                      unsigned jobs, int max_runs) {
    std::vector<std::optional<ShrinkResult>> shrunk(verdicts.size());
    std::atomic<std::size_t> next{0};
    FirstFailure failure;
    const auto work = [&] {
        for (auto i = next++; i < verdicts.size() && !failure.happened(); i = next++) {
            const auto& verdict = verdicts[i];
            if (verdict.killed && verdict.scenario && verdict.property) {
                shrunk[i] =
                    shrink_scenario(*verdict.scenario, property_judge(*verdict.property, verdict.mutant),
                                    {.max_runs = max_runs, .on_reduction = {}});
            }
        }
    };
    std::vector<std::thread> workers;
    for (unsigned j = 1; j < std::max(1U, jobs); ++j) {
        workers.emplace_back([&] { failure.guard(work); });
    }
    failure.guard(work);
    for (auto& worker : workers) {
        worker.join();
    }
    failure.rethrow_if_any();
    return shrunk;
}

}  // namespace ckpt::sim
