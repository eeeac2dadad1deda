"""Determinism: randomness, time, pid, threads and signals, all fixed before the user's import.

Contract:
- check_env() refuses to run unless PYTHONHASHSEED is set to a decimal seed (a randomised
  hash order would change set iteration and so the requests).
- install(stream, rank, incarnation) must run BEFORE the user's module is imported (originals do
  `from uuid import uuid4` at import, binding the function). Each source draws from its own
  stream derived from CKPTSIM_STREAM, so a callback's use of `random` does not shift its uuids:
  uuid.uuid4/uuid1/getnode, os.urandom/getrandom, the `random` module state, Random() seeded
  without a value, random.SystemRandom and `secrets`.
- reseed(stream, rank, incarnation) (a zygote's child, after the fork) puts every source above,
  the uuid1 clock, the virtual pid and the clock (now 0) exactly where install(stream, rank,
  incarnation) leaves them, so install + reseed equals install with the child's identity. The
  stand-ins read this module's state at each call; only objects the user's module built at
  import time (a module-level Random(), say) keep what they drew in the zygote.
- Time is virtual: set_now_ms(ms) (from the latest message's now_ms) drives time.time/time_ns
  (a fixed epoch, WALL_EPOCH_S, plus now), monotonic/perf_counter/process_time (now), localtime,
  gmtime, ctime, strftime, datetime.now/utcnow/today; time.sleep returns at once. set_now_ms(None)
  (a call the shim runs ahead of the trainer, which has no time yet) makes the next read ask the
  clock source set by set_clock_source(fetch): the simulator answers with the time of the moment
  the trainer makes that call, which is what the call's own now_ms would have said.
- os.getpid() is 1000 + 16*incarnation + rank; os.getppid() is 1.
- threading.Thread.start, _thread.start_new_thread, signal.signal/alarm/setitimer are harness
  errors (fork, exec and subprocess are refused by the tripwire's audit hook).
"""

import _thread
import datetime as datetime_module
import hashlib
import os
import random
import signal
import socket
import threading
import time
import uuid

from . import harness
from .vpaths import StandIn

# 2023-11-14T22:13:20Z: a fixed wall-clock origin, so time.time() is neither 0 nor the host's.
WALL_EPOCH_S = 1_700_000_000

_now_ms = 0
_fetch_now = None  # set_clock_source: asks the simulator when the time is not known yet

# The per-process state the stand-ins read at each call; reseed() replaces it wholesale.
_streams = {}       # name -> random.Random
_uuid1_state = {"node": 0, "last": 0}
_identity = {"pid": 0}
_SystemRandom = None  # the stand-in class, kept so reseed() can rebuild secrets' instance


def set_now_ms(now_ms):
    global _now_ms
    _now_ms = now_ms


def set_clock_source(fetch):
    global _fetch_now
    _fetch_now = fetch


def now_ms():
    if _now_ms is None:
        if _fetch_now is None:
            harness.fail("the time is unknown and no clock source is set")
        set_now_ms(_fetch_now())
    return _now_ms


def check_env():
    value = os.environ.get("PYTHONHASHSEED")
    if value is None or not value.isdigit():
        raise SystemExit("ckptsim_shim: PYTHONHASHSEED must be set to a decimal seed (ckptsim sets 0); "
                         f"got {value!r}: a random hash order makes the run nondeterministic")


def derive(stream, name):
    digest = hashlib.sha256(f"ckptsim/{stream}/{name}".encode("ascii")).digest()
    return int.from_bytes(digest[:8], "big")


def _wall_ns():
    return WALL_EPOCH_S * 1_000_000_000 + now_ms() * 1_000_000


def _mono_ns():
    return now_ms() * 1_000_000


def install(stream, rank, incarnation):
    _install_random(_streams)
    _install_uuid(_streams)
    _install_time()
    _install_identity()
    _install_refusals()
    reseed(stream, rank, incarnation)


def reseed(stream, rank, incarnation):
    """Every seeded source as install(stream, rank, incarnation) leaves it (see the contract)."""
    global _now_ms
    _streams.clear()
    _streams.update((name, random.Random(derive(stream, name)))
                    for name in ("urandom", "uuid", "node", "clock_seq", "instances", "system"))
    random.seed(derive(stream, "random"))  # a value: the `instances` stream is not drawn
    import secrets
    # The first `system` draw is skipped: shim 0.1.0 spent it on secrets' import-time instance,
    # and the sequence a callback sees stays the same.
    _streams["system"].getrandbits(64)
    secrets._sysrand = _SystemRandom()
    _uuid1_state["node"] = _streams["node"].getrandbits(48) | (1 << 40)  # multicast bit: RFC 4122
    _uuid1_state["last"] = 0
    _identity["pid"] = 1000 + 16 * incarnation + rank
    _now_ms = 0


def _set(module, name, implementation):
    original = getattr(module, name, None)
    if original is None:
        return
    setattr(module, name, StandIn(module.__name__, name, original, implementation))


def _install_random(streams):
    def urandom(size):
        if not isinstance(size, int) or size < 0:
            raise ValueError("negative argument not allowed")
        return streams["urandom"].randbytes(size)

    _set(os, "urandom", urandom)
    _set(os, "getrandom", lambda size, flags=0: urandom(size))
    random._urandom = os.urandom  # random.py bound it at import (SystemRandom, randbytes)

    original_seed = random.Random.seed

    def seed(self, a=None, version=2):
        # Random() and random.seed() without a value would read the OS's entropy.
        if a is None:
            a = streams["instances"].getrandbits(64)
        return original_seed(self, a, version)

    random.Random.seed = seed

    class SystemRandom(random.Random):
        """random.SystemRandom drawn from the process stream: deterministic per run."""

        def __init__(self, x=None):
            super().__init__(streams["system"].getrandbits(64))

        def seed(self, *args, **kwargs):  # as SystemRandom: reseeding is a no-op
            return None

    global _SystemRandom
    _SystemRandom = SystemRandom
    import secrets  # before the patch: its import-time instance must not draw from a stream
    random.SystemRandom = SystemRandom
    secrets.SystemRandom = SystemRandom  # secrets._sysrand is built by reseed()


def _install_uuid(streams):
    state = _uuid1_state

    def uuid4():
        return uuid.UUID(bytes=streams["uuid"].randbytes(16), version=4)

    def uuid1(node_arg=None, clock_seq=None):
        timestamp = max(_wall_ns() // 100 + 0x01B21DD213814000, state["last"] + 1)
        state["last"] = timestamp
        if clock_seq is None:
            clock_seq = streams["clock_seq"].getrandbits(14)
        return uuid.UUID(fields=(timestamp & 0xFFFFFFFF, (timestamp >> 32) & 0xFFFF,
                                 ((timestamp >> 48) & 0x0FFF) | 0x1000, ((clock_seq >> 8) & 0x3F) | 0x80,
                                 clock_seq & 0xFF, state["node"] if node_arg is None else node_arg))

    _set(uuid, "uuid4", uuid4)
    _set(uuid, "uuid1", lambda node=None, clock_seq=None: uuid1(node, clock_seq))
    _set(uuid, "getnode", lambda: state["node"])


def _install_time():
    originals = {name: getattr(time, name) for name in ("localtime", "gmtime", "ctime", "strftime", "asctime")}
    _set(time, "time", lambda: _wall_ns() / 1e9)
    _set(time, "time_ns", _wall_ns)
    for name in ("monotonic", "perf_counter", "process_time", "thread_time"):
        _set(time, name, lambda: _mono_ns() / 1e9)
        _set(time, name + "_ns", _mono_ns)
    _set(time, "clock_gettime", lambda clock: _mono_ns() / 1e9 if clock != time.CLOCK_REALTIME else _wall_ns() / 1e9)
    _set(time, "clock_gettime_ns", lambda clock: _mono_ns() if clock != time.CLOCK_REALTIME else _wall_ns())

    def sleep(seconds):
        if seconds < 0:
            raise ValueError("sleep length must be non-negative")
        # Virtual time only moves with the simulator's messages; sleeping would waste wall time.

    _set(time, "sleep", sleep)
    now = lambda: _wall_ns() / 1e9  # noqa: E731
    _set(time, "localtime", lambda secs=None: originals["localtime"](now() if secs is None else secs))
    _set(time, "gmtime", lambda secs=None: originals["gmtime"](now() if secs is None else secs))
    _set(time, "ctime", lambda secs=None: originals["ctime"](now() if secs is None else secs))
    _set(time, "asctime", lambda t=None: originals["asctime"](originals["localtime"](now()) if t is None else t))
    _set(time, "strftime",
         lambda fmt, t=None: originals["strftime"](fmt, originals["localtime"](now()) if t is None else t))

    base_datetime, base_date = datetime_module.datetime, datetime_module.date

    class datetime(base_datetime):  # noqa: N801 - the stdlib's name
        @classmethod
        def now(cls, tz=None):
            return cls.fromtimestamp(now(), tz)

        @classmethod
        def utcnow(cls):
            return cls.utcfromtimestamp(now())

        @classmethod
        def today(cls):
            return cls.fromtimestamp(now())

    class date(base_date):  # noqa: N801
        @classmethod
        def today(cls):
            return cls.fromtimestamp(now())

    datetime.__module__ = date.__module__ = "datetime"
    datetime_module.datetime = datetime
    datetime_module.date = date


def _install_identity():
    _set(os, "getpid", lambda: _identity["pid"])
    _set(os, "getppid", lambda: 1)
    _set(socket, "gethostname", lambda: "ckptsim")


def _install_refusals():
    def refuse(what):
        def refused(*args, **kwargs):
            harness.fail(f"{what}: threads, processes and signals are outside the simulated surface "
                         "(the simulator owns all scheduling)")
        return refused

    threading.Thread.start = lambda self: refuse(f"threading.Thread.start ({self.name})")()
    _set(_thread, "start_new_thread", refuse("_thread.start_new_thread"))
    _set(_thread, "start_joinable_thread", refuse("_thread.start_joinable_thread"))
    _set(os, "fork", refuse("os.fork"))
    _set(os, "forkpty", refuse("os.forkpty"))
    _set(signal, "signal", refuse("signal.signal"))
    _set(signal, "alarm", refuse("signal.alarm"))
    _set(signal, "setitimer", refuse("signal.setitimer"))
