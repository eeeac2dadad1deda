// The distributed port (what the callback needs of torch.distributed) and its one-process
// implementation. Every rank-zero outcome goes through broadcast(), so no rank is left waiting
// on a rank that failed. The simulator provides the multi-rank implementation.
#pragma once

#include <nlohmann/json.hpp>

namespace ckpt {

// The distributed port: what the callback needs of torch.distributed. Only rank 0 touches the
// sidecar and the link, so every rank-zero outcome travels through broadcast() before any rank
// can move on; that is what keeps a rank-zero failure from stranding the others.
class Collective {
  public:
    virtual ~Collective() = default;

    virtual int rank() const = 0;
    virtual int world_size() const = 0;
    // Returns once every live rank has arrived.
    virtual void barrier() = 0;
    // Every rank passes its own `value`; every rank receives the value of rank `src`.
    virtual nlohmann::json broadcast(nlohmann::json value, int src) = 0;
};

// One process, world size 1: barrier is a no-op and broadcast returns its argument.
class SingleProcessCollective final : public Collective {
  public:
    int rank() const override { return 0; }
    int world_size() const override { return 1; }
    void barrier() override {}
    nlohmann::json broadcast(nlohmann::json value, int /*src*/) override { return value; }
};

}  // namespace ckpt
