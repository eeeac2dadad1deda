// The first exception any of several threads threw, kept for the thread that joins them: a
// worker that throws must not take the process down (a joinable std::thread, or an exception
// leaving a thread, is std::terminate), and the others stop early by asking happened().
// Depends on the standard library only.
#pragma once

#include <atomic>
#include <exception>
#include <mutex>

namespace ckpt::sim {

class FirstFailure {
  public:
    // Runs `body`; an exception it throws is kept (when it is the first) instead of escaping.
    template <class Body>
    void guard(Body&& body) noexcept {
        try {
            body();
        } catch (...) {
            const std::lock_guard lock(lock_);
            if (!failure_) {
                failure_ = std::current_exception();
            }
            happened_.store(true);
        }
    }

    bool happened() const noexcept { return happened_.load(); }

    // After every guarded thread joined: rethrows the first exception, if any.
    void rethrow_if_any() const {
        if (failure_) {
            std::rethrow_exception(failure_);
        }
    }

  private:
    std::mutex lock_;
    std::exception_ptr failure_;
    std::atomic<bool> happened_{false};
};

}  // namespace ckpt::sim
