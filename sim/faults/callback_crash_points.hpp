// Turns rank 0's disk operations inside the callback's sidecar and link writes into the crash
// points they are (inside_link_update, between_link_and_sidecar, inside_sidecar_write) and a
// link publication, reported as events. Recognition by path is CallbackIo's.
#pragma once

#include "sim/disk/sim_file_system.hpp"
#include "sim/events/event_sink.hpp"
#include "sim/faults/callback_io.hpp"

namespace ckpt::sim {

class CallbackCrashPoints {
  public:
    explicit CallbackCrashPoints(const CallbackIo& io) : io_(io) {}

    // A new incarnation: no link published, no sidecar renamed yet.
    void reset() noexcept {
        link_published_since_sidecar_ = false;
        sidecar_renamed_ = false;
    }
    // Called before the disk applies `op`, on rank 0; `events.emit` may throw a crash.
    void observe(const FsOperation& op, const SimFileSystem& fs, EventSink& events);

  private:
    const CallbackIo& io_;
    bool link_published_since_sidecar_ = false;
    bool sidecar_renamed_ = false;
};

}  // namespace ckpt::sim
