// The members of a trace's "scenario" line, written straight to text: exactly the bytes the line
// had when it was Scenario::to_json() dumped compact (nlohmann sorts an object's keys; here every
// object's keys are written in that order, and one out of order is a std::logic_error, never a
// different line). Building, dumping and freeing that tree was about 2.5% of a swarm's instructions.
// to_json stays the scenario file's form; sim/tests/world/scenario_line_test.cpp holds the two to
// the same bytes. Depends on the scenario and the trace's field writer.
#pragma once

#include "sim/scenario/scenario.hpp"
#include "sim/world/trace_fields.hpp"

namespace ckpt::sim {

TraceFields scenario_fields(const Scenario& scenario);

}  // namespace ckpt::sim
