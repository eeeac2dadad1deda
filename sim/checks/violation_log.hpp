// The violations a run found, in the order the checkers found them. A listener (the world's
// trace, while an incarnation runs) hears each one as it is reported.
#pragma once

#include <algorithm>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "sim/checks/property.hpp"

namespace ckpt::sim {

class ViolationLog {
  public:
    using Listener = std::function<void(const Violation&)>;

    void set_listener(Listener listener) { listener_ = std::move(listener); }

    void report(Property property, std::string message) {
        violations_.push_back({property, std::move(message)});
        if (listener_) {
            listener_(violations_.back());
        }
    }

    const std::vector<Violation>& all() const noexcept { return violations_; }
    bool violated(Property property) const noexcept {
        return std::any_of(violations_.begin(), violations_.end(),
                           [&](const Violation& v) { return v.property == property; });
    }

  private:
    std::vector<Violation> violations_;
    Listener listener_;
};

}  // namespace ckpt::sim
