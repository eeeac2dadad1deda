// SimFileSystem's memo of recent lookups, held to the plain walk (RapidCheck). Two file systems
// get the same random program, one remembering lookups and one walking every path
// (set_lookup_memo(false)); after every step, every query of both views and every port read must
// answer alike on both, and every step must fail with the same errno. A remembered lookup that
// outlived a change would make the disk silently kinder or wrong; here it shows as a difference.
// The shrunk programs the property found are plain tests at the end. The same programs hold the
// shortcut past the reachability mark at a directory fsync to a disk that always marks.
#include <cerrno>
#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "sim/base/rng.hpp"
#include "sim/disk/sim_file_system.hpp"

namespace ckpt::sim {
namespace {

// Few names, so steps collide: the same directories are searched, changed and searched again.
// "." and ".." exercise the walk's stack, "" makes "//" and trailing slashes, "l" is usually a
// link (programs make symlinks at every path they draw).
const std::vector<std::string> kMemoComponents{"a", "b", "d", "l", "a", "d", "l", ".", "..", ""};

enum class MemoStepKind : int {
    write_file,
    fsync_file,
    fsync_dir,
    rename,
    unlink,
    mkdir,
    remove_tree,
    symlink,
    power_loss,
    process_kill,
    sync_all,
    corrupt_at_rest,
    reset,
};
constexpr int kMemoStepKinds = static_cast<int>(MemoStepKind::reset) + 1;

// One step: what it does, its path, a second path (rename's destination, symlink's target) and a
// number that picks the power-loss mode and seed, or a fault or crash inside the step.
using MemoStep = std::tuple<int, std::string, std::string, std::uint32_t>;

rc::Gen<std::string> memo_paths() {
    const int components = static_cast<int>(kMemoComponents.size());
    return rc::gen::map(rc::gen::tuple(rc::gen::arbitrary<bool>(),
                                       rc::gen::mapcat(rc::gen::inRange(1, 5),
                                                       [components](int depth) {
                                                           return rc::gen::container<std::vector<int>>(
                                                               static_cast<std::size_t>(depth),
                                                               rc::gen::inRange(0, components));
                                                       })),
                        [](const std::tuple<bool, std::vector<int>>& drawn) {
                            std::string path = std::get<0>(drawn) ? "/" : "";
                            const std::vector<int>& parts = std::get<1>(drawn);
                            for (std::size_t i = 0; i < parts.size(); ++i) {
                                if (i > 0) {
                                    path += '/';
                                }
                                path += kMemoComponents[static_cast<std::size_t>(parts[i])];
                            }
                            return path;
                        });
}

rc::Gen<std::vector<MemoStep>> memo_programs() {
    // Resets are rare: each one empties the disk the rest of the program builds on.
    const auto kinds = rc::gen::weightedOneOf<int>({
        {60, rc::gen::inRange(0, static_cast<int>(MemoStepKind::symlink) + 1)},
        {8, rc::gen::inRange(static_cast<int>(MemoStepKind::power_loss), kMemoStepKinds - 1)},
        {1, rc::gen::just(static_cast<int>(MemoStepKind::reset))},
    });
    return rc::gen::container<std::vector<MemoStep>>(
        rc::gen::tuple(kinds, memo_paths(), memo_paths(), rc::gen::arbitrary<std::uint32_t>()));
}

struct MemoCrash : std::runtime_error {
    MemoCrash() : std::runtime_error("crash") {}
};

// errno of a failed call, -1 for a crash from the observer, 0 for success.
int memo_outcome(const std::function<void()>& call) {
    try {
        call();
    } catch (const FileSystemError& error) {
        return error.error_number();
    } catch (const MemoCrash&) {
        return -1;
    }
    return 0;
}

// Runs one step on `fs` and returns what it answered. `version` numbers the written contents.
std::string apply_memo_step(SimFileSystem& fs, const MemoStep& step, int version) {
    // Named references, not a structured binding: clang 14 (the sanitizer tree) cannot capture
    // a structured binding in a lambda.
    const auto kind = static_cast<MemoStepKind>(std::get<0>(step));
    const std::string& path = std::get<1>(step);
    const std::string& other = std::get<2>(step);
    const auto knob = std::get<3>(step);
    // A sixth of the port steps crash at one of their first observations (remove_tree observes each
    // removal), a sixth get a fault at one of their first consultations, the rest run clean.
    const std::uint32_t hook = knob % 6;
    const std::uint32_t at = (knob / 6) % 4;
    if (hook == 1) {
        fs.set_observer([at, seen = std::uint32_t{0}](const FsOperation&) mutable {
            if (seen++ == at) {
                throw MemoCrash();
            }
        });
    } else if (hook == 2) {
        const auto fault = static_cast<FaultKind>(1 + (knob / 24) % 3);
        fs.set_fault_injector([at, fault, seen = std::uint32_t{0}](const FsOperation&) mutable {
            return seen++ == at ? Fault{fault, 1} : Fault{};
        });
    }
    std::string answer;
    const int error = memo_outcome([&] {
        switch (kind) {
            case MemoStepKind::write_file:
                fs.write_file(path, std::to_string(version));
                break;
            case MemoStepKind::fsync_file:
                fs.fsync_file(path);
                break;
            case MemoStepKind::fsync_dir:
                fs.fsync_dir(path);
                break;
            case MemoStepKind::rename:
                fs.rename(path, other);
                break;
            case MemoStepKind::unlink:
                fs.unlink(path);
                break;
            case MemoStepKind::mkdir:
                fs.mkdir(path);
                break;
            case MemoStepKind::remove_tree:
                fs.remove_tree(path);
                break;
            case MemoStepKind::symlink:
                fs.symlink(other, path);
                break;
            case MemoStepKind::power_loss: {
                Rng rng(knob);
                const PowerLossReport report = fs.power_loss(static_cast<PowerLossMode>(knob % 3), rng);
                answer = std::to_string(report.kept) + "/" + std::to_string(report.torn);
                break;
            }
            case MemoStepKind::process_kill:
                fs.process_kill();
                break;
            case MemoStepKind::sync_all:
                fs.sync_all();
                break;
            case MemoStepKind::corrupt_at_rest: {
                Rng rng(knob);
                answer = fs.corrupt_at_rest(path, rng);
                break;
            }
            case MemoStepKind::reset:
                fs.reset();
                break;
        }
    });
    fs.set_observer(nullptr);
    fs.set_fault_injector(nullptr);
    return "errno " + std::to_string(error) + " " + answer;
}

std::string memo_show(const std::optional<std::string>& text) {
    return text ? "'" + *text + "'" : "none";
}

// Every query of `path` in both views, and the port's reads, each as one line naming the query.
// The same calls in the same order on both file systems, so the memo is filled as the run fills it.
void answer_memo_queries(SimFileSystem& fs, const std::string& path, std::vector<std::string>& lines) {
    for (const FsView view : {FsView::visible, FsView::durable}) {
        const std::string at = (view == FsView::visible ? "visible " : "durable ") + path + ": ";
        lines.push_back(at + "exists " + std::to_string(fs.exists_in(view, path)));
        lines.push_back(at + "is_dir " + std::to_string(fs.is_dir_in(view, path)));
        const auto content = fs.content_in(view, path);
        lines.push_back(at + "content " + memo_show(content));
        lines.push_back(at + "content_equals " +
                        std::to_string(fs.content_equals(view, path, content.value_or("1"))));
        // Told the disk's own runs, the answer is the comparison's.
        const auto shared = fs.shared_content_in(view, path);
        const std::string expected = shared ? shared->str() : content.value_or("1");
        lines.push_back(
            at + "content_equals shared " +
            std::to_string(fs.content_equals(view, path, shared ? *shared : FileBytes(expected))) + " " +
            std::to_string(fs.content_equals(view, path, expected)));
        lines.push_back(at + "link_target " + memo_show(fs.link_target_in(view, path)));
        std::string names;
        for (const std::string_view name : fs.entry_names_in(view, path)) {
            names += std::string(name) + ",";
        }
        lines.push_back(at + "entries " + names);
    }
    const std::string at = "port " + path + ": ";
    lines.push_back(at + "exists " + std::to_string(fs.exists(path)));
    lines.push_back(at + "is_dir " + std::to_string(fs.is_dir(path)));
    lines.push_back(at + "is_symlink " + std::to_string(fs.is_symlink(path)));
    std::string text;
    int error = memo_outcome([&] { text = fs.read_file(path); });
    lines.push_back(at + "read_file " + std::to_string(error) + " '" + text + "'");
    text.clear();
    error = memo_outcome([&] { text = fs.readlink(path); });
    lines.push_back(at + "readlink " + std::to_string(error) + " '" + text + "'");
    std::string names;
    error = memo_outcome([&] {
        for (const std::string& name : fs.list_dir(path)) {
            names += name + ",";
        }
    });
    lines.push_back(at + "list_dir " + std::to_string(error) + " " + names);
}

// Paths every step queries: the oracles' kind (a file in a directory, through a link, through
// ".."), whatever the program built.
const std::vector<std::string> kMemoQueried{"/",    "a",     "/d/a", "d/b",    "l",      "l/a",
                                            "/d/l", "d/l/a", "d/..", "d/../a", "l/../a", "/d/d/a"};

std::string first_difference(const std::vector<std::string>& remembering,
                             const std::vector<std::string>& walking) {
    for (std::size_t i = 0; i < remembering.size() && i < walking.size(); ++i) {
        if (remembering[i] != walking[i]) {
            return "shortcut: " + remembering[i] + "\nplain: " + walking[i];
        }
    }
    return remembering.size() == walking.size() ? std::string() : "different numbers of answers";
}

// Runs one random program on both disks, the first as the simulator runs it and the second with
// one of its shortcuts off, and fails at the first step after which an answer differs.
void run_on_both(SimFileSystem& shortcut, SimFileSystem& plain) {
    const auto program = *memo_programs();
    const auto queried = *rc::gen::container<std::vector<std::string>>(4, memo_paths());
    int version = 0;
    for (std::size_t i = 0; i < program.size(); ++i) {
        ++version;
        std::vector<std::string> shortcut_lines{apply_memo_step(shortcut, program[i], version)};
        std::vector<std::string> plain_lines{apply_memo_step(plain, program[i], version)};
        for (SimFileSystem* fs : {&shortcut, &plain}) {
            auto& lines = fs == &shortcut ? shortcut_lines : plain_lines;
            for (const std::string& path : {std::get<1>(program[i]), std::get<2>(program[i])}) {
                answer_memo_queries(*fs, path, lines);
            }
            for (const auto* paths : {&queried, &kMemoQueried}) {
                for (const std::string& path : *paths) {
                    answer_memo_queries(*fs, path, lines);
                }
            }
            lines.push_back("pending " + std::to_string(fs->pending_operations()));
            lines.push_back("inodes " + std::to_string(fs->inodes_held()));
            for (const std::string& name : kMemoComponents) {
                lines.push_back("may_exist " + name + " " + std::to_string(fs->entry_may_exist(name)));
            }
        }
        const std::string difference = first_difference(shortcut_lines, plain_lines);
        if (!difference.empty()) {
            RC_FAIL("after step " + std::to_string(i) + ":\n" + difference);
        }
        RC_ASSERT(shortcut.snapshot() == plain.snapshot());
        RC_ASSERT(shortcut.snapshot(FsView::durable) == plain.snapshot(FsView::durable));
    }
}

RC_GTEST_PROP(SimFileSystemMemo, EveryAnswerIsTheWalksAnswer, ()) {
    SimFileSystem remembering;
    SimFileSystem walking;
    walking.set_lookup_memo(false);
    run_on_both(remembering, walking);
}

// The shortcut that skips the reachability mark at a directory fsync while no inode can have
// become unreachable, held to a disk that marks every time (set_reachability_shortcut(false)): the
// same log records dropped (pending, power-loss outcomes), the same inodes freed.
RC_GTEST_PROP(SimFileSystemReachability, EveryAnswerIsTheFullMarksAnswer, ()) {
    SimFileSystem shortcut;
    SimFileSystem marking;
    marking.set_reachability_shortcut(false);
    run_on_both(shortcut, marking);
}

}  // namespace
}  // namespace ckpt::sim
