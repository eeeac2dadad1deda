// SimFileSystem's path walk: one component at a time over either view, following symlinks as
// Linux does (relative targets against the link's directory, ".." against the walk's stack, at
// most 40 hops before ELOOP). Read-only: it never counts, observes or changes anything.
#include <algorithm>
#include <cerrno>

#include <boost/container/small_vector.hpp>

#include "sim/disk/sim_file_system.hpp"

namespace ckpt::sim {

namespace {

// Linux gives up after 40 links in one walk (MAXSYMLINKS); a cycle must end in ELOOP, not hang
// the simulator.
constexpr int kMaxSymlinkHops = 40;

// Pushes the components of `text` so that the first one ends on top of the stack. "" and "."
// are dropped here; ".." needs the walk's directory stack and stays.
template <typename Stack>
void push_components(Stack& stack, std::string_view text) {
    const std::size_t base = stack.size();
    std::size_t start = 0;
    while (start <= text.size()) {
        std::size_t end = text.find('/', start);
        if (end == std::string_view::npos) {
            end = text.size();
        }
        const std::string_view component = text.substr(start, end - start);
        if (!component.empty() && component != ".") {
            stack.push_back(component);
        }
        start = end + 1;
    }
    std::reverse(stack.begin() + static_cast<std::ptrdiff_t>(base), stack.end());
}

}  // namespace

SimFileSystem::Lookup SimFileSystem::lookup(FsView view, std::string_view path, bool follow_last,
                                            std::vector<InodeId>* ancestry) const {
    Lookup out;
    if (path.empty()) {
        out.error = ENOENT;  // as POSIX: "" names nothing, not the working directory
        return out;
    }
    // The directories from the root to where the walk stands. ".." pops it, which is the
    // physical parent even when the walk arrived through a symlink, as in the kernel.
    // Every operation resolves a path, and fresh heap vectors here were a measurable share of a
    // scenario's time: reuse this thread's scratch space. lookup never re-enters itself.
    thread_local std::vector<InodeId> dirs;
    thread_local std::vector<std::string_view> todo;
    dirs.assign(1, kRoot);
    todo.clear();
    push_components(todo, path);
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
    while (!todo.empty()) {
        const std::string_view name = todo.back();
        todo.pop_back();
        if (name == "..") {
            if (dirs.size() > 1) {
                dirs.pop_back();
            }
            continue;
        }
        const Entries& here = entries(node(dirs.back()), view);
        const auto found = here.find(name);
        const bool last = todo.empty();
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
            push_components(todo, child_node.target);
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
