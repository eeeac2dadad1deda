"""Protocol 1 framing and the call loop (docs/callback-protocol.md).

Contract:
- Channel: one JSON object per line on the socket CKPTSIM_FD, ensure_ascii and compact
  separators, at most 16 MiB per line, no NaN/Infinity (the simulator's parser refuses them).
- Session.serve(ready, dispatch): sends `ready`, then answers each `call` with exactly one
  `return` or `raise`; `shutdown` ends the process with status 0 at once, without requests.
  A call may list `ahead`: the calls of the same fn the trainer will make next if this one hands
  its control back unchanged (each entry's fields replace the call's, ids follow the call's).
  The session runs them in order right after the call, with no time known until a request or a
  clock read asks for it, and stops after the first that raises or changes its control (the
  simulator applies the same rule, and checks each against the call the trainer really makes).
  Each call's end is written as soon as the call ends, so the simulator's timeout of a call
  never includes the calls run after it.
- Session.fetch_now(): a `clock` request, for a clock read in a call run ahead.
- Session.request(t, op, fields): sends an `fs`/`coll` request during a call and blocks for its
  `ok` (returns `value`) or `err` (raises RequestError). Session.note(name, fields) sends a note.
- Anything unexpected (malformed or oversized line, EOF, an unknown `t`, an answer to another
  id, a request outside a call) is a harness error: `harness_error` is sent if the channel still
  works, and the process exits with status 3.
- Session.reopen(channel) (a zygote's child): the same session, every hook the stand-ins hold
  on it included, now talks on `channel`, in the state of a new session (ids from 1, no call).
"""

import json
import os
import socket
import sys

from . import harness

MAX_LINE = 16 * 1024 * 1024


class ProtocolError(Exception):
    """The peer broke the framing or the message order."""


class RequestError(Exception):
    """The simulator answered a request with `err`."""

    def __init__(self, errno_value, message):
        super().__init__(errno_value, message)
        self.errno = errno_value
        self.message = message


def _refuse_constant(name):
    raise ProtocolError(f"non-JSON number {name} in a message")


class Channel:
    """Line framing over a stream socket. The socket module is not interposed, so the shim's own
    traffic never meets the virtual file system or the tripwire. send(message, flush=False)
    only queues the line: the queue goes out at flush(), before the channel waits for a line (so
    the peer has everything it needs before this side blocks) or when it grows past OUT_QUEUED;
    lines always leave in order. A call's notes and end thus cost one write."""

    OUT_QUEUED = 1 << 16

    def __init__(self, fd):
        self._sock = socket.socket(fileno=fd)
        self._buffer = bytearray()
        self._out = bytearray()

    @property
    def socket(self):
        return self._sock

    def send(self, message, flush=True):
        try:
            text = json.dumps(message, ensure_ascii=True, separators=(",", ":"), allow_nan=False)
        except (TypeError, ValueError) as exc:
            raise ProtocolError(f"cannot encode a {message.get('t')!r} message as JSON: {exc}") from exc
        line = text.encode("ascii") + b"\n"
        if len(line) > MAX_LINE:
            raise ProtocolError(f"a {message.get('t')!r} message of {len(line)} bytes exceeds the 16 MiB cap")
        self._out += line
        if flush or len(self._out) > self.OUT_QUEUED:
            self.flush()

    def flush(self):
        if self._out:
            out, self._out = self._out, bytearray()
            self._sock.sendall(out)

    def receive(self):
        self.flush()
        while True:
            end = self._buffer.find(b"\n")
            if end >= 0:
                line = bytes(self._buffer[:end])
                del self._buffer[: end + 1]
                return self._parse(line)
            if len(self._buffer) > MAX_LINE:
                raise ProtocolError("an incoming line exceeds the 16 MiB cap")
            chunk = self._sock.recv(1 << 16)
            if not chunk:
                raise ProtocolError("end of file on the protocol channel")
            self._buffer += chunk

    @staticmethod
    def _parse(line):
        if len(line) > MAX_LINE:
            raise ProtocolError("an incoming line exceeds the 16 MiB cap")
        try:
            message = json.loads(line.decode("utf-8"), parse_constant=_refuse_constant)
        except (UnicodeDecodeError, ValueError) as exc:
            raise ProtocolError(f"malformed line ({exc}): {line[:200]!r}") from None
        if not isinstance(message, dict) or not isinstance(message.get("t"), str):
            raise ProtocolError(f"a message must be an object with a string 't': {line[:200]!r}")
        return message


def _is_id(value):
    return isinstance(value, int) and not isinstance(value, bool)


class Session:
    """One process's conversation with the simulator."""

    def __init__(self, channel, on_now_ms=None):
        self._channel = channel
        self._on_now_ms = on_now_ms
        self._next_id = 1
        self._call_id = None  # the id of the call being served, None between calls
        self._failing = False
        self.now_ms = 0

    # ---- failure and shutdown ------------------------------------------------------------

    def reopen(self, channel):
        self._channel = channel
        self._next_id = 1
        self._call_id = None
        self._failing = False
        self.now_ms = 0

    @property
    def channel(self):
        return self._channel

    def install_failure_handler(self):
        harness.set_handler(self._harness_error)

    def _harness_error(self, message, stack):
        # Re-entry (the channel itself failing while reporting) must still end the process.
        if not self._failing:
            self._failing = True
            try:
                self._channel.send({"t": "harness_error", "message": str(message)[:65536],
                                    "traceback": stack[-65536:]})
            except Exception:  # the channel is gone: the exit status still says it
                pass
        _flush_stdio()
        os._exit(harness.EXIT_HARNESS_ERROR)

    @staticmethod
    def _shutdown():
        # The protocol forbids requests after shutdown, so no finalizer or atexit handler may
        # run (they could touch the virtual disk); the simulator only needs status 0.
        _flush_stdio()
        os._exit(0)

    # ---- receiving -------------------------------------------------------------------------

    def _receive(self):
        try:
            message = self._channel.receive()
        except (ProtocolError, OSError) as exc:
            harness.fail(f"protocol: {exc}")
        if message["t"] == "shutdown":
            self._shutdown()
        if "now_ms" in message:
            now = message["now_ms"]
            if not _is_id(now):
                harness.fail(f"protocol: now_ms must be an integer, got {now!r}")
            self.now_ms = now
            if self._on_now_ms is not None:
                self._on_now_ms(now)
        return message

    def _send(self, message):
        try:
            self._channel.send(message, flush=False)  # out before this side next waits
        except (ProtocolError, OSError) as exc:
            harness.fail(f"protocol: {exc}")

    # ---- during a call -----------------------------------------------------------------------

    @property
    def in_call(self):
        return self._call_id is not None

    def request(self, t, op, fields):
        if self._call_id is None:
            harness.fail(f"{t} request {op} {fields} outside a call (at import time or between calls): "
                         "the simulator answers requests only while it waits for a call's end")
        request_id = self._next_id
        self._next_id += 1
        self._send({"t": t, "id": request_id, "op": op, **fields})
        answer = self._receive()
        kind = answer["t"]
        if kind not in ("ok", "err") or answer.get("id") != request_id:
            harness.fail(f"protocol: expected ok/err for request {request_id} ({t} {op}), got "
                         f"{kind!r} with id {answer.get('id')!r}")
        if kind == "ok":
            return answer.get("value")
        errno_value = answer.get("errno")
        if not _is_id(errno_value) or errno_value <= 0:
            harness.fail(f"protocol: err for request {request_id} has no positive integer errno: {answer!r}")
        raise RequestError(errno_value, str(answer.get("message", "")))

    def note(self, name, fields):
        if self._call_id is None:
            harness.fail(f"note {name} outside a call")
        self._send({"t": "note", "name": name, **fields})

    # ---- the loop --------------------------------------------------------------------------

    def fetch_now(self):
        self.request("clock", "now", {})  # the answer's now_ms sets the clock
        return self.now_ms

    def serve(self, ready, dispatch):
        """`dispatch(fn, message)` returns the `return` fields or the `raise` fields (with "t")."""
        self._send(ready)
        while True:
            message = self._receive()
            if message["t"] != "call":
                harness.fail(f"protocol: expected a call or shutdown, got {message['t']!r}")
            call_id, fn = message.get("id"), message.get("fn")
            if not _is_id(call_id) or not isinstance(fn, str):
                harness.fail(f"protocol: a call needs an integer id and a string fn: {message!r}")
            ahead = message.pop("ahead", [])
            if not isinstance(ahead, list) or not all(isinstance(entry, dict) for entry in ahead):
                harness.fail(f"protocol: a call's ahead must be a list of objects: {ahead!r}")
            reply = self._serve_call(call_id, fn, message, dispatch)
            for offset, entry in enumerate(ahead, start=1):
                if reply["t"] != "return" or reply.get("control") != message.get("control"):
                    break
                message = {**entry, "t": "call", "id": call_id + offset, "fn": fn}
                self.now_ms = None  # known only when the trainer makes the call: ask if read
                if self._on_now_ms is not None:
                    self._on_now_ms(None)
                reply = self._serve_call(call_id + offset, fn, message, dispatch)

    def _serve_call(self, call_id, fn, message, dispatch):
        self._call_id = call_id
        try:
            reply = dispatch(fn, message)
        finally:
            self._call_id = None
        # Out at once: the simulator times each call from its own wait, so a call's end must not
        # wait for the calls run ahead after it.
        self._send({**reply, "id": call_id})
        self._channel.flush()
        return reply


def _flush_stdio():
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:
            pass
