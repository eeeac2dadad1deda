// The process's operator new and delete, served by mimalloc (Debian's libmimalloc): linked only
// into the executables that run swarms (ckptsim and ckpt_bench), never into a library, so the
// tests and sanitizer builds keep the toolchain's allocator. A scenario builds and drops
// thousands of small JSON trees, path strings and map nodes; mimalloc's per-thread free lists
// serve them in fewer instructions than jemalloc did (docs/performance.md, "Swarm, eighth
// session").
// Including the header here, in exactly one file of each executable, replaces every
// replaceable form of operator new and delete with direct calls into mimalloc.
#include <mimalloc-new-delete.h>
