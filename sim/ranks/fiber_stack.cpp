// The per-thread pool behind RecordingStack. Guarded stacks are mmap'd with a guard page, which
// costs system calls and fresh page faults; an exploration starts thousands of incarnations of
// up to eight ranks each, so each thread keeps the stacks it has used and hands them out again:
// a reused stack's pages are already mapped and touched.
#include "sim/ranks/fiber_stack.hpp"

#include <map>
#include <vector>

#include <boost/context/protected_fixedsize_stack.hpp>

namespace ckpt::sim::fibers {
namespace {

namespace ctx = boost::context;

class StackPool {
  public:
    StackPool() = default;
    StackPool(const StackPool&) = delete;
    StackPool& operator=(const StackPool&) = delete;
    ~StackPool() {
        for (auto& [size, stacks] : free_) {
            ctx::protected_fixedsize_stack allocator(size);
            for (auto& stack : stacks) {
                allocator.deallocate(stack);
            }
        }
    }
    ctx::stack_context take(std::size_t size) {
        auto& stacks = free_[size];
        if (stacks.empty()) {
            return ctx::protected_fixedsize_stack(size).allocate();
        }
        const auto stack = stacks.back();
        stacks.pop_back();
        return stack;
    }
    void give_back(std::size_t size, const ctx::stack_context& stack) { free_[size].push_back(stack); }

  private:
    std::map<std::size_t, std::vector<ctx::stack_context>> free_;
};

StackPool& stack_pool() {
    thread_local StackPool pool;
    return pool;
}

}  // namespace

ctx::stack_context RecordingStack::allocate() {
    ctx::stack_context stack = stack_pool().take(size_);
    *where_ = {static_cast<char*>(stack.sp) - stack.size, stack.size};
    return stack;
}

void RecordingStack::deallocate(ctx::stack_context& stack) noexcept {
    try {
        stack_pool().give_back(size_, stack);
    } catch (...) {
        ctx::protected_fixedsize_stack(size_).deallocate(stack);
    }
}

}  // namespace ckpt::sim::fibers
