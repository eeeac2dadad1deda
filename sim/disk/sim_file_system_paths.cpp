// SimFileSystem's path walk: one component at a time over either view, following symlinks as
// Linux does (relative targets against the link's directory, ".." against the walk's stack, at
// most 40 hops before ELOOP). Read-only: it never counts, observes or changes anything.
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <functional>

#include <boost/container/small_vector.hpp>

#include "sim/disk/sim_file_system.hpp"

namespace ckpt::sim {

namespace {

// Linux gives up after 40 links in one walk (MAXSYMLINKS); a cycle must end in ELOOP, not hang
// the simulator.
constexpr int kMaxSymlinkHops = 40;

// What is left of `text` from its first component that names something: "" and "." components
// (empty between slashes, or a lone dot) are dropped; ".." needs the walk's directory stack and
// stays. Empty when nothing is left.
std::string_view skip_to_component(std::string_view text) noexcept {
    std::size_t at = 0;
    while (at < text.size()) {
        if (text[at] == '/') {
            ++at;
        } else if (text[at] == '.' && (at + 1 == text.size() || text[at + 1] == '/')) {
            at += 1;
        } else {
            break;
        }
    }
    return text.substr(at);
}

// Which of the 2^slot_bits remembered lookups a path goes to. Paths differ mostly in their
// middle ("checkpoint-100/..." against "checkpoint-200/..."), so every byte counts; eight at a
// time, the last word overlapping the one before when the length is not a multiple of eight.
std::size_t remembered_slot(std::string_view path, bool durable, bool follow_last,
                            unsigned slot_bits) noexcept {
    constexpr std::uint64_t kMix = 0x9E3779B97F4A7C15ULL;  // 2^64 over the golden ratio
    std::uint64_t hash = (path.size() << 2U) | (durable ? 2U : 0U) | (follow_last ? 1U : 0U);
    auto mix = [&](std::size_t at) {
        std::uint64_t word = 0;
        std::memcpy(&word, path.data() + at, sizeof word);
        hash = (hash ^ word) * kMix;
    };
    if (path.size() >= sizeof(std::uint64_t)) {
        std::size_t at = 0;
        for (; at + sizeof(std::uint64_t) < path.size(); at += sizeof(std::uint64_t)) {
            mix(at);
        }
        mix(path.size() - sizeof(std::uint64_t));
    } else {
        for (const char c : path) {
            hash = (hash ^ static_cast<unsigned char>(c)) * kMix;
        }
    }
    // A product's high bits depend on every bit of its factors; the low ones do not.
    return static_cast<std::size_t>((hash * kMix) >> (64U - slot_bits));
}

// Equality of two texts; std::string's operator== goes through an out-of-line three-way compare
// here, on the hottest line of every lookup.
bool same_text(std::string_view a, std::string_view b) noexcept {
    return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size()) == 0);
}

}  // namespace

SimFileSystem::Lookup SimFileSystem::lookup(FsView view, std::string_view path, bool follow_last,
                                            std::vector<InodeId>* ancestry) const {
    // Only rename asks for the ancestry, twice a call: not worth remembering.
    if (!lookup_memo_ || ancestry != nullptr || path.empty()) {
        return walk(view, path, follow_last, ancestry, nullptr);
    }
    std::size_t slot = 0;
    return recall(view, path, follow_last, slot);
}

SimFileSystem::Lookup SimFileSystem::recall(FsView view, std::string_view path, bool follow_last,
                                            std::size_t& slot) const {
    slot = remembered_slot(path, view == FsView::durable, follow_last, kRememberedLookupBits);
    if (const RememberedLookup& remembered = remembered_[slot];
        remembered.view == view && remembered.follow_last == follow_last &&
        same_text(remembered.path, path) && still_holds(remembered)) {
        Lookup out = remembered.result;
        if (remembered.name_in_path) {
            out.name = path.substr(remembered.name_offset, out.name.size());
        }
        return out;
    }
    Searched searched;
    Lookup out;
    if (!extend_parent(view, path, follow_last, out, searched)) {
        searched = Searched{};
        out = walk(view, path, follow_last, nullptr, &searched);
    }
    if (searched.overflow) {
        slot = kRememberedLookups;
        return out;
    }
    // Only now: extend_parent may have used this very slot for the parent.
    RememberedLookup& remembered = remembered_[slot];
    remembered.path.assign(path);
    remembered.view = view;
    remembered.follow_last = follow_last;
    remembered.made_at = change_clock_;
    remembered.result = out;
    // Whether the name is a piece of the caller's text, which the next caller will not share, or
    // of a link target, which lives as long as the remembered lookup holds. std::less gives a
    // total order even across unrelated arrays.
    const std::less<const char*> before;
    remembered.name_in_path = !out.name.empty() && !before(out.name.data(), path.data()) &&
                              !before(path.data() + path.size(), out.name.data());
    remembered.name_offset =
        remembered.name_in_path ? static_cast<std::size_t>(out.name.data() - path.data()) : 0;
    remembered.searched_count = searched.count;
    remembered.searched = searched.dirs;
    return out;
}

// The walk of "dir/name" searches exactly what the walk of "dir" (links followed) searches, then
// `name` in the directory that one ends at: the same directory stack, whatever links or ".." the
// prefix holds. Only a last component that is itself a link to follow needs the stack, so those,
// and every prefix that does not end at a directory (an error of the whole walk), are walked.
bool SimFileSystem::extend_parent(FsView view, std::string_view path, bool follow_last, Lookup& out,
                                  Searched& searched) const {
    const std::size_t cut = path.rfind('/');
    if (cut == std::string_view::npos || cut == 0) {
        return false;  // no directory part, or the root's, which recall cannot resolve ("")
    }
    const std::string_view name = path.substr(cut + 1);
    if (name.empty() || name == "." || name == "..") {
        return false;
    }
    std::size_t parent_slot = 0;
    const Lookup parent = recall(view, path.substr(0, cut), true, parent_slot);
    if (parent_slot == kRememberedLookups || parent.error != 0 || parent.inode == kNoInode ||
        node(parent.inode).kind != EntryKind::directory) {
        return false;
    }
    const RememberedLookup& remembered = remembered_[parent_slot];
    if (remembered.searched_count == kMaxSearched) {
        return false;  // no room to remember one more search
    }
    const Entries& here = entries(node(parent.inode), view);
    const auto found = here.find(name);
    const InodeId inode = found == here.end() ? kNoInode : found->second;
    if (inode != kNoInode && follow_last && node(inode).kind == EntryKind::symlink) {
        return false;
    }
    searched.dirs = remembered.searched;
    searched.count = remembered.searched_count;
    searched.dirs[searched.count++] = parent.inode;
    out = Lookup{};
    out.parent = parent.inode;
    out.name = name;
    out.inode = inode;
    return true;
}

bool SimFileSystem::still_holds(const RememberedLookup& remembered) const noexcept {
    if (remembered.made_at < forget_before_) {
        return false;
    }
    const auto view = static_cast<std::size_t>(remembered.view);
    for (std::size_t i = 0; i < remembered.searched_count; ++i) {
        if (node(remembered.searched[i]).name_dropped_at[view] > remembered.made_at) {
            return false;
        }
    }
    // Every search but the last found its name; the last missed when the walk ended on a name
    // that is absent, as a result or as ENOENT.
    const Lookup& result = remembered.result;
    const bool last_missed = result.inode == kNoInode && (result.error == 0 || result.error == ENOENT);
    return !last_missed || remembered.searched_count == 0 ||
           node(remembered.searched[remembered.searched_count - 1U]).name_added_at[view] <=
               remembered.made_at;
}

SimFileSystem::Lookup SimFileSystem::walk(FsView view, std::string_view path, bool follow_last,
                                          std::vector<InodeId>* ancestry, Searched* searched) const {
    Lookup out;
    if (path.empty()) {
        out.error = ENOENT;  // as POSIX: "" names nothing, not the working directory
        return out;
    }
    // The directories from the root to where the walk stands. ".." pops it, which is the
    // physical parent even when the walk arrived through a symlink, as in the kernel.
    // Every operation resolves a path, so the walk allocates nothing in the common case: the
    // components are read in place, one text at a time. `text` is what is left of the text being
    // read, always starting at a component; following a link suspends it below the target's
    // text, and it resumes once the target is used up.
    boost::container::small_vector<InodeId, 16> dirs{kRoot};
    boost::container::small_vector<std::string_view, 4> suspended;
    std::string_view text = skip_to_component(path);
    int hops = 0;
    auto finish = [&](InodeId parent, std::string_view name, InodeId inode) {
        out.parent = parent;
        out.name = name;
        out.inode = inode;
        if (ancestry != nullptr) {
            ancestry->assign(dirs.begin(), dirs.end());
        }
        return out;
    };
    // Resumes suspended texts until one has a component left; `text` is empty only when none has.
    auto resume = [&] {
        while (text.empty() && !suspended.empty()) {
            text = suspended.back();
            suspended.pop_back();
        }
    };
    while (!text.empty()) {
        const std::string_view name = text.substr(0, text.find('/'));
        text = skip_to_component(text.substr(name.size()));
        resume();
        if (name == "..") {
            if (dirs.size() > 1) {
                dirs.pop_back();
            }
            continue;
        }
        if (searched != nullptr) {
            if (searched->count == kMaxSearched) {
                searched->overflow = true;
            } else {
                searched->dirs[searched->count++] = dirs.back();
            }
        }
        const Entries& here = entries(node(dirs.back()), view);
        const auto found = here.find(name);
        const bool last = text.empty();
        if (found == here.end()) {
            if (!last) {
                out.error = ENOENT;
                return out;
            }
            return finish(dirs.back(), name, kNoInode);
        }
        const InodeId child = found->second;
        const Inode& child_node = node(child);
        if (child_node.kind == EntryKind::symlink && (follow_last || !last)) {
            if (++hops > kMaxSymlinkHops) {
                out.error = ELOOP;
                return out;
            }
            // A relative target continues from the link's own directory, which is where the
            // walk stands; an absolute one restarts at the root.
            if (child_node.target.front() == '/') {
                dirs.resize(1);
            }
            if (!text.empty()) {
                suspended.push_back(text);
            }
            text = skip_to_component(child_node.target);
            resume();
            continue;
        }
        if (last) {
            return finish(dirs.back(), name, child);
        }
        if (child_node.kind != EntryKind::directory) {
            out.error = ENOTDIR;
            return out;
        }
        dirs.push_back(child);
    }
    return finish(kNoInode, {}, dirs.back());
}

}  // namespace ckpt::sim
