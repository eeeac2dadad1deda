"""The audit-hook tripwire: a real operation on a virtual path, or a new process, is a bypass.

Contract: install(router) adds a sys.addaudithook hook (it cannot be removed). Once
serving_calls() was called, any real change to the host's file system (an open for writing, a
mkdir, rename, remove, ...) on any path is a harness error too: a callback may read the host but
never write it. The stand-ins never
call a real function on a virtual path, so a real `open`/`os.*` audit event naming one means some
code reached the OS without the interposition (a C extension, a function captured before
install, posix.* called directly): a harness error naming the event and the path. A real `stat`
is not audited, but the virtual root does not exist on the host, so a bypassed stat only ever
sees ENOENT. fork, exec, spawn, system and subprocess are refused here too, and mmap of a
virtual fd (the whole-file model cannot map a file). The one exception is the shim's own fork
in a zygote: `with fork_permitted(): ...` lets exactly the os.fork event through.
"""

import contextlib

import os
import sys

from . import harness

_PROCESS_EVENTS = {"os.fork", "os.forkpty", "os.system", "os.exec", "os.posix_spawn", "os.spawn",
                   "subprocess.Popen", "os.kill", "os.killpg", "pty.spawn"}

# The audit events of real file-system calls (C functions). Python-level events such as os.walk
# are not here: they run over the interposed functions.
_FS_EVENTS = {"open", "os.mkdir", "os.rename", "os.remove", "os.rmdir", "os.symlink", "os.link",
              "os.listdir", "os.scandir", "os.chmod", "os.chown", "os.truncate", "os.utime", "os.chdir",
              "os.chflags", "os.setxattr", "os.removexattr", "os.listxattr", "os.getxattr", "os.mkfifo",
              "os.mknod", "os.chroot", "os.lchmod", "os.lchown", "os.lchflags"}

# Events that change the host's file system. Once the callback is served (serving_calls()), each
# one on a real path is a write that escaped the simulation: the run's output lives only on the
# simulated disk, so a callback may read the host (imports, linecache) but never change it.
_HOST_CHANGES = _FS_EVENTS - {"open", "os.listdir", "os.scandir", "os.chdir", "os.getxattr", "os.listxattr"}
_WRITE_MODE = frozenset("wax+")
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND

_installed = False
_fork_permitted = False
_serving = False


def serving_calls():
    """From now on a real change to the host's file system is a harness error."""
    global _serving
    _serving = True


def _changes_host(event, args):
    if event in _HOST_CHANGES:
        return True
    if event != "open" or len(args) < 3:
        return False
    mode, flags = args[1], args[2]
    if isinstance(mode, str) and _WRITE_MODE.intersection(mode):
        return True
    return isinstance(flags, int) and flags & _WRITE_FLAGS != 0


@contextlib.contextmanager
def fork_permitted():
    global _fork_permitted
    _fork_permitted = True
    try:
        yield
    finally:  # runs in the parent and in the child
        _fork_permitted = False


def install(router, file_table):
    global _installed
    if _installed:
        return
    _installed = True

    def hook(event, args):
        if event == "os.fork" and _fork_permitted:
            return
        if event in _PROCESS_EVENTS:
            harness.fail(f"{event}{_short(args)}: processes and signals are outside the simulated surface")
        if event == "mmap.__new__":
            if args and file_table.is_virtual(args[0]):
                harness.fail("mmap of a virtual file is not simulated (whole-file model)")
            return
        if event not in _FS_EVENTS:
            return
        # os.symlink's first argument is the link's target, stored verbatim: only the link itself
        # (the second) is an operation on the path.
        candidates = args[1:2] if event == "os.symlink" else args
        for value in candidates:
            if isinstance(value, (str, bytes, os.PathLike)) and router.is_virtual(value):
                harness.fail(f"real {event} on {os.fspath(value)!r} bypassed the virtual file system "
                             f"(the call was not interposed)")
        if _serving and _changes_host(event, args):
            harness.fail(f"real {event}{_short(args)} would change the host's file system: a callback "
                         f"writes only to the simulated disk, under the virtual root")

    sys.addaudithook(hook)


def _short(args):
    text = repr(args)
    return text if len(text) < 200 else text[:200] + "..."
