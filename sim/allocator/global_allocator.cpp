// The process's allocator, mimalloc (Debian's libmimalloc): linked only into the executables that
// run swarms (ckptsim and ckpt_bench), never into a library, so the test executables and the
// sanitizer builds keep the toolchain's. Linking libmimalloc replaces malloc and free for the
// whole process (the library exports them); including its header here, in exactly one file of
// each executable, also makes every replaceable operator new and delete a direct call into it,
// without the hop through libstdc++'s operator new to malloc. A scenario builds and drops
// thousands of small JSON trees, path strings and map nodes, which mimalloc serves in fewer
// instructions than jemalloc did (docs/performance.md, "Swarm, eighth session").
#include <mimalloc-new-delete.h>
