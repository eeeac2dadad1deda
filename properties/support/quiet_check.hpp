// Runs a RapidCheck property inside a test without reporting, for tests that expect a failure
// (a mutant armed), so an expected kill never prints a reproduce line. Test-only.
#pragma once

#include <functional>
#include <rapidcheck.h>
#include <string>

namespace ckpt::properties {

// Runs a RapidCheck property from inside a test, with its own case budget, and reports nothing.
// For a test that expects a property to fail (a mutant armed): RapidCheck's normal entry points
// record every failure and print an RC_PARAMS="reproduce=..." line at exit, which would make a
// passing suite look as if it had failed.
rc::detail::TestResult check_quietly(const std::string& id, int cases, bool shrink,
                                     const std::function<void()>& property);

}  // namespace ckpt::properties
