// The distributed port (what the callback needs of torch.distributed) and its one-process
// implementation. Every rank-zero outcome goes through broadcast(), so no rank is left waiting
// on a rank that failed. The simulator provides the multi-rank implementation. Depends on
// nlohmann/json and json_teardown.hpp.
#pragma once

#include <memory>
#include <utility>

#include <nlohmann/json.hpp>

#include "policy/base/json_teardown.hpp"

namespace ckpt {

// What a rank receives from a broadcast: the root's value, read-only. Every rank reads the same
// tree; none can change what another received, as none could with torch's own copy each, and no
// rank pays for a copy (a round's payload reached every other rank as a deep copy before).
using SharedJson = std::shared_ptr<const nlohmann::json>;

// `value` as a SharedJson whose tree is freed bottom-up (json_teardown.hpp) by its last reader. The
// tree and its count are one allocation: a holder that tears the tree down as it goes, seen
// through shared_ptr's aliasing constructor as the tree alone.
inline SharedJson share_json(nlohmann::json value) {
    struct Holder {
        explicit Holder(nlohmann::json shared) : tree(std::move(shared)) {}
        Holder(const Holder&) = delete;
        Holder& operator=(const Holder&) = delete;
        ~Holder() { tear_down(tree); }
        nlohmann::json tree;
    };
    auto holder = std::make_shared<Holder>(std::move(value));
    const nlohmann::json* tree = &holder->tree;
    return SharedJson(std::move(holder), tree);
}

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
    virtual SharedJson broadcast(nlohmann::json value, int src) = 0;
};

// One process, world size 1: barrier is a no-op and broadcast returns its argument.
class SingleProcessCollective final : public Collective {
  public:
    int rank() const override { return 0; }
    int world_size() const override { return 1; }
    void barrier() override {}
    SharedJson broadcast(nlohmann::json value, int /*src*/) override { return share_json(std::move(value)); }
};

}  // namespace ckpt
