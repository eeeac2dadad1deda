#include "sim/checks/oracles.hpp"

namespace ckpt::sim {

void Oracles::on_event(const Event& event) {
    std::visit(
        [this](const auto& e) {
            stop_.on(e);
            durability_.on(e);
            commit_.on(e);
            link_.on(e);
            ranks_.on(e);
            callbacks_.on(e);
            rules_.on(e);
            liveness_.on(e);
        },
        event);
}

}  // namespace ckpt::sim
