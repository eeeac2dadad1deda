"""The zygote (fork server): one warm interpreter forks a callback process per spawn request.

Contract (CKPTSIM_ZYGOTE=1 with `serve`; same argv as a cold `serve`):
- Setup is a cold `serve`'s (environment checks, virtual file system and tripwire, determinism,
  stand-ins, sys.path, the user's module and the binding imported, source hashes), except that
  CKPTSIM_RANK, CKPTSIM_WORLD_SIZE, CKPTSIM_INCARNATION and CKPTSIM_STREAM are not read: the zygote
  runs under a placeholder identity (rank 0 of 1, incarnation 0, stream 0, pid 1000).
- CKPTSIM_FD (3 under ckptsim) is then a control socket (AF_UNIX stream), not a callback
  channel. One JSON object per line, the protocol's framing. After setup the zygote sends
  {"t":"zygote_ready","protocol":2}; a setup failure sends {"t":"harness_error",...} instead and
  exits with status 3 (an import error, an I/O at import time, a bad environment).
- Then, for each line {"t":"spawn","rank":R,"world_size":W,"incarnation":I,"stream":S} (integers;
  other fields are ignored), which must arrive with exactly two descriptors by SCM_RIGHTS in the
  same sendmsg as the line's first byte (the channel socket, then the write end of the output
  pipe), the zygote forks, closes both descriptors and answers {"t":"spawned","pid":PID}. It
  never waits for a child: SIGCHLD is SIG_IGN, so the kernel reaps them.
- End of file on the control socket (between lines) ends the zygote with status 0. A line
  without its two descriptors, a cut line at end of file, malformed JSON, another `t`, a
  non-integer field or a failed fork is a harness error: `harness_error` on the control socket,
  status 3. The zygote leaves with os._exit: no atexit handler (the user's included) runs.
- The child: its own process group (setpgid(0, 0); ckptsim kills the group), the control socket
  closed, the output pipe on 1 and 2, the channel on CKPTSIM_FD, SIGCHLD back to SIG_DFL, the
  identity variables set from the request and CKPTSIM_ZYGOTE removed from os.environ, every
  seeded source reseeded from the request's stream (determinism.reseed: random, uuid, urandom,
  secrets, the uuid1 clock, the clock, getpid() = 1000 + 16*incarnation + rank) and
  torch.distributed's rank and world size set. It then sends the same `ready` as a cold
  `serve` (sources included) and serves calls as a cold `serve` does, until `shutdown` (status
  0), a harness error (3) or SIGKILL. It leaves with os._exit and never returns into the loop.
- What a child shares with its siblings is what the user's module did AT IMPORT TIME, in the
  zygote: module-level objects (a Random() built at import, a counter, a cache) start every
  child from the zygote's values; mutations in one child never reach another. A module that
  reads the rank, the time, the environment or randomness at import time sees the placeholder
  identity, so it is not faithful here: run it with ckptsim's `--no-callback-zygote` (a cold
  process per rank and incarnation).
- Python differences left: stdout's buffer size is the one chosen for the zygote's own fd 1.
"""

import fcntl
import json
import gc
import os
import signal
import socket
import sys

from . import PROTOCOL_VERSION, determinism, harness, tripwire
from .protocol import MAX_LINE, Channel, _flush_stdio

# The identity a zygote runs its setup under: (rank, world_size, incarnation, stream).
PLACEHOLDER = (0, 1, 0, 0)
IDENTITY_VARIABLES = ("CKPTSIM_RANK", "CKPTSIM_WORLD_SIZE", "CKPTSIM_INCARNATION", "CKPTSIM_STREAM")
_SPAWN_FIELDS = ("rank", "world_size", "incarnation", "stream")


def _original(function):
    # Unwrap the shim's own stand-ins (vpaths.StandIn keeps the original as __wrapped__), in case
    # this module is imported after the interposition.
    while type(function).__name__ == "StandIn" and hasattr(function, "__wrapped__"):
        function = function.__wrapped__
    return function


# The real functions, taken before determinism and the virtual file system replace them.
_fork = _original(os.fork)
_close = _original(os.close)
_dup2 = _original(os.dup2)
_setpgid = _original(os.setpgid)
_signal = _original(signal.signal)


class _Garbage(Exception):
    """The control socket carried something other than a spawn line with its descriptors."""


def _close_all(fds):
    for fd in fds:
        try:
            _close(fd)
        except OSError:
            pass


class _Control:
    """Reads spawn lines, each with the descriptors that came with its first byte."""

    def __init__(self, sock):
        self._sock = sock
        self._pending = bytearray()

    def read(self):
        """(message, fds), or None at end of file between lines."""
        fds = []
        line_started = bool(self._pending)
        try:
            while b"\n" not in self._pending:
                data, received, flags, _ = socket.recv_fds(self._sock, 1 << 16, 2)
                if received:
                    if line_started or fds:
                        _close_all(received)
                        raise _Garbage("descriptors arrived after the first byte of their spawn line")
                    fds = received
                if flags & getattr(socket, "MSG_CTRUNC", 0):
                    raise _Garbage("more than two descriptors came with a spawn line")
                if not data:
                    if self._pending or fds:
                        raise _Garbage("end of file inside a spawn line")
                    return None
                self._pending += data
                line_started = True
                if len(self._pending) > MAX_LINE:
                    raise _Garbage("a control line exceeds the 16 MiB cap")
            end = self._pending.index(b"\n")
            line = bytes(self._pending[:end])
            del self._pending[: end + 1]
            message = _parse_spawn(line)
            if len(fds) != 2:
                raise _Garbage(f"a spawn line came with {len(fds)} descriptors, not 2 (channel, output)")
            return message, fds
        except BaseException:
            _close_all(fds)
            raise


def _parse_spawn(line):
    try:
        message = json.loads(line.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise _Garbage(f"malformed control line ({exc}): {line[:200]!r}") from None
    if not isinstance(message, dict) or message.get("t") != "spawn":
        raise _Garbage(f"expected a spawn line on the control socket: {line[:200]!r}")
    for name in _SPAWN_FIELDS:
        value = message.get(name)
        if not isinstance(value, int) or isinstance(value, bool):
            raise _Garbage(f"spawn needs an integer {name}, got {value!r}")
    return message


def run(session, child):
    """Serve spawn requests on the session's channel (the control socket) until end of file.
    `child()` runs in each child once its descriptors and environment are in place; it must not
    return (it serves calls until the process ends). Never returns."""
    control = _Control(session.channel.socket)
    _signal(signal.SIGCHLD, signal.SIG_IGN)  # children are reaped by the kernel, never waited for
    # Everything imported so far is shared with every child: freezing it keeps the children's
    # collector from walking (and so copying) those pages after each fork.
    gc.freeze()
    _send(session, {"t": "zygote_ready", "protocol": PROTOCOL_VERSION})
    while True:
        try:
            request = control.read()
        except _Garbage as exc:
            harness.fail(f"zygote control: {exc}")
        except OSError as exc:
            harness.fail(f"zygote control: {exc}")
        if request is None:
            _flush_stdio()
            os._exit(0)
        message, (channel_fd, output_fd) = request
        _flush_stdio()  # nothing the zygote buffered may reach a child's output
        try:
            with tripwire.fork_permitted():
                pid = _fork()
        except OSError as exc:
            _close_all((channel_fd, output_fd))
            harness.fail(f"zygote: fork failed: {exc}")
        if pid == 0:
            _become_child(session, message, channel_fd, output_fd, child)
        _close_all((channel_fd, output_fd))
        _send(session, {"t": "spawned", "pid": pid})


def _send(session, message):
    try:
        session.channel.send(message)
    except OSError as exc:
        harness.fail(f"zygote control: {exc}")


def _become_child(session, message, channel_fd, output_fd, child):
    """Never returns: the child ends with os._exit whatever happens."""
    status = 3
    try:
        fd = session.channel.socket.fileno()  # CKPTSIM_FD: the channel takes the control's place
        _setpgid(0, 0)
        _signal(signal.SIGCHLD, signal.SIG_DFL)
        # Out of the way of 1, 2 and fd first, whatever numbers the descriptors arrived under.
        high_channel = fcntl.fcntl(channel_fd, fcntl.F_DUPFD, 10)
        high_output = fcntl.fcntl(output_fd, fcntl.F_DUPFD, 10)
        _close_all((channel_fd, output_fd))
        session.channel.socket.detach()
        _close(fd)
        _dup2(high_output, 1)
        _dup2(high_output, 2)
        _dup2(high_channel, fd)
        _close_all((high_channel, high_output))
        session.reopen(Channel(fd))  # from here a harness error goes to the child's channel
        if sys.stdout is not None:
            sys.stdout.reconfigure(line_buffering=os.isatty(1))
        for variable, name in zip(IDENTITY_VARIABLES, _SPAWN_FIELDS):
            os.environ[variable] = str(message[name])
        os.environ.pop("CKPTSIM_ZYGOTE", None)
        determinism.set_now_ms(0)
        child()
        status = 0  # child() returned: not expected, but the zygote's loop is no place to go back to
    except SystemExit as exc:  # as a cold process would leave with it
        code = exc.code
        if code is None or isinstance(code, int):
            status = code or 0
        else:
            sys.stderr.write(f"{code}\n")
            status = 1
    except BaseException:  # as a cold process's uncaught exception: the traceback, status 1
        try:
            sys.excepthook(*sys.exc_info())
        except BaseException:
            pass
        status = 1
    finally:
        _flush_stdio()
        os._exit(status)
