// The rank scheduler: collectives agree across world sizes, the interleaving is a function of the
// chooser alone, and dead, failed or finished ranks turn waiting collectives into reported hangs.
#include "sim/ranks/rank_scheduler.hpp"

#include <chrono>
#include <cstdint>
#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "sim/ranks/sim_collective.hpp"

namespace ckpt::sim {
namespace {

using ::testing::HasSubstr;
using Kind = RankOutcome::Kind;

// A self-contained seeded chooser, so these tests do not depend on the simulator's PRNG.
RankScheduler::Chooser seeded_chooser(std::uint64_t seed) {
    return [state = seed](std::span<const int> runnable) mutable {
        state += 0x9e3779b97f4a7c15ULL;
        std::uint64_t z = state;
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        z ^= z >> 31;
        return static_cast<std::size_t>(z % runnable.size());
    };
}

// Counts destructions, to prove that abandoned rank stacks are unwound.
struct Guard {
    int* destroyed;
    ~Guard() { ++*destroyed; }
};

TEST(RankScheduler, EveryWorldSizeAgreesOnBarriersAndBroadcasts) {
    for (int world = 1; world <= kMaxRanks; ++world) {
        RankScheduler scheduler({.world_size = world}, seeded_chooser(7));
        std::vector<std::vector<int>> received(static_cast<std::size_t>(world));
        const RunResult result = scheduler.run([&](int rank) {
            SimCollective comm(scheduler, rank);
            for (int round = 0; round < 10; ++round) {
                comm.barrier();
                const int src = round % world;
                const SharedJson shared =
                    comm.broadcast(nlohmann::json{{"from", rank}, {"round", round}}, src);
                const nlohmann::json& got = *shared;
                EXPECT_EQ(got.at("round").get<int>(), round);
                received[static_cast<std::size_t>(rank)].push_back(got.at("from").get<int>());
            }
        });
        ASSERT_TRUE(result.all_finished()) << result.describe();
        EXPECT_FALSE(result.hung());
        EXPECT_EQ(scheduler.stats().collectives, 20u) << "world " << world;
        for (int rank = 0; rank < world; ++rank) {
            EXPECT_EQ(received[static_cast<std::size_t>(rank)], received[0]) << "world " << world;
        }
        for (int round = 0; round < 10; ++round) {
            EXPECT_EQ(received[0][static_cast<std::size_t>(round)], round % world);
        }
    }
}

// A broadcast delivers one tree, read-only, to every rank: the root's value itself, neither copied
// per rank nor freed while a rank still holds it.
TEST(RankScheduler, EveryRankOfABroadcastReadsTheRootsOneTree) {
    RankScheduler scheduler({.world_size = 3}, seeded_chooser(11));
    std::vector<SharedJson> received(3);
    const RunResult result = scheduler.run([&](int rank) {
        SimCollective comm(scheduler, rank);
        received[static_cast<std::size_t>(rank)] = comm.broadcast(
            rank == 1 ? nlohmann::json{{"from", 1}, {"items", {1, 2, 3}}} : nlohmann::json(), 1);
    });
    ASSERT_TRUE(result.all_finished()) << result.describe();
    for (const auto& value : received) {
        ASSERT_NE(value, nullptr);
        EXPECT_EQ(value.get(), received[0].get());
        EXPECT_EQ(*value, (nlohmann::json{{"from", 1}, {"items", {1, 2, 3}}}));
    }
    EXPECT_EQ(received[0].use_count(), 3);
}

TEST(RankScheduler, WorldOfOneNeverSwitchesInsideCollectives) {
    RankScheduler scheduler({.world_size = 1});
    scheduler.run([&](int rank) {
        SimCollective comm(scheduler, rank);
        for (int i = 0; i < 1000; ++i) {
            comm.barrier();
            EXPECT_EQ(*comm.broadcast(i, 0), i);
        }
    });
    EXPECT_EQ(scheduler.stats().collectives, 2000u);
    EXPECT_EQ(scheduler.stats().context_switches, 2u);  // into the rank once, and back when it ends
}

std::vector<int> interleaving(std::uint64_t seed) {
    std::vector<int> order;
    RankScheduler scheduler({.world_size = 4}, seeded_chooser(seed));
    scheduler.run([&](int rank) {
        SimCollective comm(scheduler, rank);
        for (int i = 0; i < 20; ++i) {
            order.push_back(rank);
            comm.barrier();
        }
        order.push_back(rank);
    });
    return order;
}

TEST(RankScheduler, InterleavingIsAFunctionOfTheChooser) {
    EXPECT_EQ(interleaving(1), interleaving(1));
    EXPECT_EQ(interleaving(2), interleaving(2));
    EXPECT_NE(interleaving(1), interleaving(2));

    // Without a chooser the lowest runnable rank always runs: rank order within every phase.
    std::vector<int> order;
    RankScheduler scheduler({.world_size = 3});
    scheduler.run([&](int rank) {
        SimCollective comm(scheduler, rank);
        order.push_back(rank);
        comm.barrier();
        order.push_back(rank);
    });
    EXPECT_EQ(order, (std::vector<int>{0, 1, 2, 0, 1, 2}));
}

TEST(RankScheduler, DeadRankIsReportedAsAHangWithEveryWaitingPoint) {
    RankScheduler scheduler({.world_size = 3}, seeded_chooser(3));
    const RunResult result = scheduler.run([&](int rank) {
        SimCollective comm(scheduler, rank);
        comm.set_waiting_point("on_evaluate");
        comm.barrier();
        if (rank == 2) {
            scheduler.kill_rank(2);
        }
        comm.set_waiting_point("on_save");
        comm.barrier();
    });
    ASSERT_TRUE(result.hung());
    EXPECT_THAT(result.hang, HasSubstr("barrier #1 can never complete"));
    EXPECT_THAT(result.hang, HasSubstr("rank 2 is dead"));
    EXPECT_EQ(result.ranks[2].kind, Kind::dead);
    EXPECT_EQ(result.ranks[2].collectives, 1u);
    for (int rank : {0, 1}) {
        const RankOutcome& outcome = result.ranks[static_cast<std::size_t>(rank)];
        ASSERT_EQ(outcome.kind, Kind::hung);
        ASSERT_TRUE(outcome.waiting.has_value());
        EXPECT_EQ(outcome.waiting->kind, CollectiveKind::barrier);
        EXPECT_EQ(outcome.waiting->sequence, 1u);
        EXPECT_STREQ(outcome.waiting->label, "on_save");
    }
    EXPECT_THAT(result.describe(), HasSubstr("rank 0: hung in barrier #1 at \"on_save\""));
}

// P6's excuse is exact: a death explains a hang only when every rank the collective waits on is
// dead. A rank that finished without entering is a bug, whoever died beside it.
TEST(RankScheduler, HangAwaitsADeadRankOnlyWhenNoLiveRankIsMissing) {
    RankScheduler only_dead({.world_size = 3}, seeded_chooser(5));
    const RunResult excused = only_dead.run([&](int rank) {
        if (rank == 2) {
            only_dead.kill_rank(2);
        }
        SimCollective(only_dead, rank).barrier();
    });
    ASSERT_TRUE(excused.hung());
    EXPECT_TRUE(excused.hang_awaits_dead_rank);

    RankScheduler dead_and_finished({.world_size = 3}, seeded_chooser(5));
    const RunResult not_excused = dead_and_finished.run([&](int rank) {
        if (rank == 2) {
            dead_and_finished.kill_rank(2);
        }
        if (rank == 0) {
            SimCollective(dead_and_finished, rank).barrier();
        }
    });
    ASSERT_TRUE(not_excused.hung());
    EXPECT_EQ(not_excused.ranks[1].kind, Kind::finished);
    EXPECT_EQ(not_excused.ranks[2].kind, Kind::dead);
    EXPECT_FALSE(not_excused.hang_awaits_dead_rank);
}

TEST(RankScheduler, KillingABlockedRankWithdrawsItFromTheCollective) {
    int destroyed = 0;
    RankScheduler scheduler({.world_size = 3});  // lowest first: ranks 0 and 1 wait before rank 2 runs
    const RunResult result = scheduler.run([&](int rank) {
        Guard guard{&destroyed};
        SimCollective comm(scheduler, rank);
        if (rank == 2) {
            EXPECT_TRUE(scheduler.is_alive(1));
            scheduler.kill_rank(1);
            EXPECT_FALSE(scheduler.is_alive(1));
        }
        comm.barrier();
    });
    ASSERT_TRUE(result.hung()) << result.describe();
    EXPECT_EQ(result.ranks[1].kind, Kind::dead);
    EXPECT_EQ(result.ranks[0].kind, Kind::hung);
    EXPECT_EQ(result.ranks[2].kind, Kind::hung);
    EXPECT_EQ(destroyed, 3);
}

TEST(RankScheduler, RankKilledBeforeTheRunNeverStarts) {
    RankScheduler scheduler({.world_size = 2});
    scheduler.kill_rank(1);
    std::vector<int> started;
    const RunResult result = scheduler.run([&](int rank) {
        started.push_back(rank);
        SimCollective(scheduler, rank).barrier();
    });
    EXPECT_EQ(started, std::vector<int>{0});
    EXPECT_TRUE(result.hung());
    EXPECT_EQ(result.ranks[1].kind, Kind::dead);
}

TEST(RankScheduler, RankZeroThrowingBeforeTheBroadcastStrandsTheOthers) {
    // The bug the seed's design guards against: rank 0 raises instead of broadcasting its outcome.
    RankScheduler scheduler({.world_size = 4}, seeded_chooser(11));
    const RunResult result = scheduler.run([&](int rank) {
        SimCollective comm(scheduler, rank);
        comm.set_waiting_point("on_save.outcome");
        if (rank == 0) {
            throw std::runtime_error("ENOSPC writing the sidecar");
        }
        comm.broadcast(nullptr, 0);
    });
    ASSERT_TRUE(result.hung());
    EXPECT_THAT(result.hang, HasSubstr("broadcast(src 0) #0 can never complete"));
    EXPECT_THAT(result.hang, HasSubstr("rank 0 (the root) failed: ENOSPC writing the sidecar"));
    EXPECT_EQ(result.ranks[0].kind, Kind::failed);
    EXPECT_THROW(std::rethrow_exception(result.ranks[0].error), std::runtime_error);
    for (int rank = 1; rank < 4; ++rank) {
        const RankOutcome& outcome = result.ranks[static_cast<std::size_t>(rank)];
        ASSERT_EQ(outcome.kind, Kind::hung);
        EXPECT_EQ(outcome.waiting->kind, CollectiveKind::broadcast);
        EXPECT_EQ(outcome.waiting->src, 0);
        EXPECT_STREQ(outcome.waiting->label, "on_save.outcome");
    }
}

TEST(RankScheduler, MismatchedCollectivesHang) {
    RankScheduler scheduler({.world_size = 2}, seeded_chooser(5));
    const RunResult result = scheduler.run([&](int rank) {
        SimCollective comm(scheduler, rank);
        comm.barrier();
        if (rank == 0) {
            comm.barrier();
        } else {
            comm.broadcast(1, 0);
        }
    });
    ASSERT_TRUE(result.hung());
    EXPECT_THAT(result.hang, HasSubstr("mismatch"));
    EXPECT_EQ(result.ranks[0].waiting->kind, CollectiveKind::barrier);
    EXPECT_EQ(result.ranks[1].waiting->kind, CollectiveKind::broadcast);
    EXPECT_EQ(result.ranks[0].waiting->sequence, 1u);
    EXPECT_EQ(result.ranks[1].waiting->sequence, 1u);
}

TEST(RankScheduler, BroadcastsFromDifferentRootsMismatch) {
    RankScheduler scheduler({.world_size = 2});
    const RunResult result =
        scheduler.run([&](int rank) { SimCollective(scheduler, rank).broadcast(rank, rank); });
    ASSERT_TRUE(result.hung());
    EXPECT_THAT(result.hang, HasSubstr("mismatch"));
}

TEST(RankScheduler, FinishedRankStrandsTheOthers) {
    RankScheduler scheduler({.world_size = 2});
    const RunResult result = scheduler.run([&](int rank) {
        if (rank == 0) {
            SimCollective(scheduler, rank).barrier();
        }
    });
    ASSERT_TRUE(result.hung());
    EXPECT_THAT(result.hang, HasSubstr("rank 1 finished"));
    EXPECT_EQ(result.ranks[1].kind, Kind::finished);
}

TEST(RankScheduler, WatchdogTurnsAHangIntoAJobCrash) {
    int destroyed = 0;
    RankScheduler scheduler({.world_size = 3, .watchdog = true});
    try {
        scheduler.run([&](int rank) {
            Guard guard{&destroyed};
            SimCollective comm(scheduler, rank);
            if (rank == 1) {
                throw RankDied("SIGKILL");
            }
            comm.barrier();
        });
        FAIL() << "expected a watchdog timeout";
    } catch (const WatchdogTimeout& timeout) {
        EXPECT_THAT(timeout.reason(), HasSubstr("watchdog timeout"));
        EXPECT_THAT(timeout.reason(), HasSubstr("rank 1 is dead"));
        EXPECT_EQ(timeout.result().ranks[1].kind, Kind::dead);
        EXPECT_EQ(timeout.result().ranks[1].message, "SIGKILL");
        EXPECT_EQ(timeout.result().ranks[0].kind, Kind::hung);
    }
    EXPECT_EQ(destroyed, 3);
}

TEST(RankScheduler, JobCrashUnwindsEveryRankAndPropagates) {
    int destroyed = 0;
    int started = 0;
    RankScheduler scheduler({.world_size = 4}, seeded_chooser(9));
    EXPECT_THROW(scheduler.run([&](int rank) {
        Guard guard{&destroyed};
        ++started;
        SimCollective comm(scheduler, rank);
        comm.barrier();
        if (rank == 2) {
            throw JobCrash("power loss");
        }
        comm.barrier();
    }),
                 JobCrash);
    EXPECT_EQ(started, 4);
    EXPECT_EQ(destroyed, 4);
}

TEST(RankScheduler, UnhandledExceptionsAreReportedPerRank) {
    RankScheduler scheduler({.world_size = 3});
    const RunResult result = scheduler.run([&](int rank) {
        SimCollective(scheduler, rank).barrier();
        if (rank == 1) {
            throw std::logic_error("bad state");
        }
        if (rank == 2) {
            throw 42;
        }
    });
    EXPECT_FALSE(result.hung());
    EXPECT_EQ(result.ranks[0].kind, Kind::finished);
    EXPECT_EQ(result.ranks[1].kind, Kind::failed);
    EXPECT_EQ(result.ranks[1].message, "bad state");
    EXPECT_EQ(result.ranks[2].kind, Kind::failed);
    EXPECT_EQ(result.ranks[2].message, "unknown exception");
    EXPECT_THROW(std::rethrow_exception(result.ranks[2].error), int);
}

TEST(RankScheduler, RanksBlockedInsideCatchHandlersKeepTheirOwnException) {
    // The rank-zero error path broadcasts from inside a handler; with several ranks in handlers at once, each
    // `throw;` must still rethrow its own exception.
    RankScheduler scheduler({.world_size = 3}, seeded_chooser(13));
    const RunResult result = scheduler.run([&](int rank) {
        SimCollective comm(scheduler, rank);
        try {
            throw std::runtime_error("error of rank " + std::to_string(rank));
        } catch (const std::exception&) {
            comm.barrier();
            EXPECT_EQ(std::uncaught_exceptions(), 0);
            comm.broadcast(rank, 0);
            throw;
        }
    });
    for (int rank = 0; rank < 3; ++rank) {
        EXPECT_EQ(result.ranks[static_cast<std::size_t>(rank)].message,
                  "error of rank " + std::to_string(rank));
    }
}

TEST(RankScheduler, MisuseIsRejected) {
    EXPECT_THROW(RankScheduler({.world_size = 0}), std::invalid_argument);
    EXPECT_THROW(RankScheduler({.world_size = kMaxRanks + 1}), std::invalid_argument);

    RankScheduler scheduler({.world_size = 2}, [](std::span<const int> runnable) { return runnable.size(); });
    int destroyed = 0;
    EXPECT_THROW(scheduler.run([&](int rank) {
        Guard guard{&destroyed};
        SimCollective comm(scheduler, rank);
        comm.barrier();
    }),
                 std::out_of_range);
    EXPECT_EQ(destroyed, 0);  // the bad choice came before any rank ran
    EXPECT_THROW(scheduler.run([](int) {}), std::logic_error);

    RankScheduler bad_root({.world_size = 2});
    const RunResult result = bad_root.run([&](int rank) { SimCollective(bad_root, rank).broadcast(0, 5); });
    EXPECT_EQ(result.ranks[0].kind, Kind::failed);
    EXPECT_THAT(result.ranks[0].message, HasSubstr("src 5"));
}

// Nanoseconds for every rank of `scheduler` to pass `barriers` barriers.
double barrier_run_ns(RankScheduler& scheduler, int barriers) {
    using Clock = std::chrono::steady_clock;
    const auto start = Clock::now();
    scheduler.run([&](int rank) {
        SimCollective comm(scheduler, rank);
        for (int i = 0; i < barriers; ++i) {
            comm.barrier();
        }
    });
    return std::chrono::duration<double, std::nano>(Clock::now() - start).count();
}

// Not a timed assertion: prints the cost of the fiber machinery for the lead to read.
TEST(RankScheduler, ReportsSwitchCost) {
    constexpr int kBarriers = 200000;
    RankScheduler scheduler({.world_size = 2});
    const double ns = barrier_run_ns(scheduler, kBarriers);
    const auto switches = static_cast<double>(scheduler.stats().context_switches);

    constexpr int kLocal = 5000000;
    RankScheduler single({.world_size = 1});
    const double single_ns = barrier_run_ns(single, kLocal);

    std::cout << "[ switch cost ] 2 ranks: " << ns / switches << " ns per context switch, " << ns / kBarriers
              << " ns per barrier; 1 rank: " << single_ns / kLocal << " ns per barrier\n";
    EXPECT_EQ(scheduler.stats().collectives, static_cast<std::uint64_t>(kBarriers));
}

}  // namespace
}  // namespace ckpt::sim
