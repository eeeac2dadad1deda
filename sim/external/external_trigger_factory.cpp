// Sessions by rank, and the facts every rank's calls carry.
#include "sim/external/external_trigger_factory.hpp"

#include "sim/base/rng.hpp"

namespace ckpt::sim {

using nlohmann::json;

ExternalTriggerFactory::ExternalTriggerFactory(const CallbackSpec& spec, const Scenario& scenario,
                                               SimFileSystem& fs, const VirtualClock& clock, int incarnation)
    : spec_(spec), fs_(fs), clock_(clock), seed_(scenario.seed), incarnation_(incarnation) {
    const auto& trainer = scenario.trainer;
    facts_.arguments = {{"save_steps", trainer.save_steps},
                        {"eval_strategy", std::string(kEvalStrategyNames.name(trainer.eval_strategy))},
                        {"eval_steps", trainer.eval_steps ? json(*trainer.eval_steps) : json()},
                        {"logging_steps", trainer.logging_steps},
                        {"max_steps", trainer.max_steps}};
    facts_.max_steps = trainer.max_steps;
    facts_.steps_per_epoch = trainer.steps_per_epoch;
}

CallbackSession& ExternalTriggerFactory::session_of(SimCollective& collective) {
    auto& session = sessions_[collective.rank()];
    if (!session) {
        CallbackIdentity identity;
        identity.rank = collective.rank();
        identity.world_size = collective.world_size();
        identity.incarnation = incarnation_ + 1;
        identity.stream = Rng(seed_)
                              .derive("external")
                              .derive(static_cast<std::uint64_t>(incarnation_))
                              .derive(static_cast<std::uint64_t>(identity.rank))
                              .next_u64();
        session = std::make_unique<CallbackSession>(spec_, identity, fs_, clock_);
    }
    return *session;
}

json ExternalTriggerFactory::identity() const {
    if (sessions_.empty() || !sessions_.begin()->second) {
        return nullptr;
    }
    auto ready = sessions_.begin()->second->ready();
    ready.erase("t");
    return ready;
}

std::unique_ptr<TriggerPort> ExternalTriggerFactory::build(const TriggerCallbackConfig& config,
                                                           SimCollective& collective) {
    auto trigger = std::make_unique<ExternalTrigger>(session_of(collective), collective, facts_);
    trigger->construct(config);
    return trigger;
}

std::unique_ptr<TriggerPort> ExternalTriggerFactory::rebuild(const json& saved, SimCollective& collective) {
    auto trigger = std::make_unique<ExternalTrigger>(session_of(collective), collective, facts_);
    trigger->restore(saved);
    return trigger;
}

}  // namespace ckpt::sim
