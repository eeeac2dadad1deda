// Per-fiber exception state. The C++ runtime keeps the chain of caught exceptions and the
// uncaught count per thread, not per stack, so a fiber switch must swap them with the fiber's own
// copy (swap_eh_globals, once on each side of every switch). Depends on the C++ ABI runtime only.
#pragma once

#include <cstring>
#include <cxxabi.h>

namespace ckpt::sim::fibers {

// A rank that blocks inside a catch handler (the rank-zero error path broadcasts from one) would otherwise
// share that chain with the next rank to run, and `throw;` or the end of either handler would pop the other's
// exception. The two leading fields of __cxa_eh_globals are the same in libstdc++ and libc++abi outside the
// ARM EABI unwinder.
#if (defined(__GLIBCXX__) || defined(_LIBCPPABI_VERSION) || defined(_LIBCPP_VERSION)) && \
    !defined(__ARM_EABI_UNWINDER__)
// Raw bytes of {caughtExceptions pointer, uncaughtExceptions count}; all zero is "no exception in flight".
struct EhGlobals {
    alignas(void*) unsigned char bytes[sizeof(void*) + sizeof(unsigned int)] = {};
};

inline void swap_eh_globals(EhGlobals& saved) noexcept {
    void* live = abi::__cxa_get_globals();
    EhGlobals current;
    std::memcpy(current.bytes, live, sizeof current.bytes);
    std::memcpy(live, saved.bytes, sizeof saved.bytes);
    saved = current;
}
#else
struct EhGlobals {};
inline void swap_eh_globals(EhGlobals&) noexcept {}
#endif

}  // namespace ckpt::sim::fibers
