// Where reporters send events. The simulation is the one implementation: it fans each event
// out to its sinks in a fixed order and then executes any fault the plan made due, so `emit`
// may throw (a simulated crash, a killed rank) after every sink has seen the event.
#pragma once

#include "sim/events/event.hpp"

namespace ckpt::sim {

class EventSink {
  public:
    virtual void emit(const Event& event) = 0;

  protected:
    ~EventSink() = default;
};

}  // namespace ckpt::sim
