"""A fake simulator for the tests: it starts `python3 -m ckptsim_shim serve` with one end of a
socketpair, answers `fs` requests from ckptsim_shim.memfs (with errno injection), answers `coll`
requests from a script, and records every request and note (and, in `transcript`, every line the
shim sent). Zygote drives `serve` under CKPTSIM_ZYGOTE=1 as ckptsim does: spawn() passes a
channel socket and an output pipe with socket.send_fds and returns a ZygoteChild, a FakeSim whose
process is the forked child."""

import json
import os
import select
import signal
import socket
import subprocess
import sys
import tempfile
import time

SHIM_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if SHIM_DIR not in sys.path:  # the tests run from any folder: `unittest discover -s shim/python/tests`
    sys.path.insert(0, SHIM_DIR)

from ckptsim_shim.memfs import FsError, MemoryFs  # noqa: E402
FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")
REPO = os.path.dirname(os.path.dirname(SHIM_DIR))
ARGS = {"output_dir": "/ckptsim-vfs/run/output", "save_strategy": "steps", "save_steps": 10, "save_total_limit": 1,
        "metric_for_best_model": None, "greater_is_better": True, "load_best_model_at_end": False,
        "restore_callback_states_from_checkpoint": False, "eval_strategy": "no", "eval_steps": None,
        "logging_steps": 10, "max_steps": 100}
STATE = {"global_step": 0, "is_world_process_zero": True, "is_local_process_zero": True, "max_steps": 100,
         "epoch": 0.0}
CONTROL = {"should_training_stop": False, "should_epoch_stop": False, "should_save": False,
           "should_evaluate": False, "should_log": False}


def _environment(fd, identity, env):
    environment = dict(os.environ, CKPTSIM_FD=str(fd), CKPTSIM_PROTOCOL="2",
                       CKPTSIM_VROOT="/ckptsim-vfs", PYTHONHASHSEED="0", TZ="UTC", LANG="C.UTF-8",
                       PYTHONDONTWRITEBYTECODE="1", PYTHONPATH=SHIM_DIR)
    for name in ("CKPTSIM_RANK", "CKPTSIM_WORLD_SIZE", "CKPTSIM_INCARNATION", "CKPTSIM_STREAM", "CKPTSIM_ZYGOTE"):
        environment.pop(name, None)
    environment.update(identity)
    environment.update(env or {})
    return {k: v for k, v in environment.items() if v is not None}


def _command(target, binding):
    command = [sys.executable, "-m", "ckptsim_shim", "serve", "--path", FIXTURES]
    if binding:
        command += ["--binding", binding]
    return command + [target]


class FakeSim:
    def __init__(self, target, binding=None, rank=0, world_size=1, stream=7, incarnation=1, env=None, disk=None,
                 _start=True):
        self.disk = disk or MemoryFs()
        if disk is None:
            for path in ("/run", "/run/output"):
                self.disk.handle("mkdir", {"path": path})
        self.rank = rank
        self.inject = {}        # (op, path) -> errno, used once
        self.broadcasts = []    # the values answered to other ranks' broadcasts, in order
        self.requests, self.notes = [], []
        self.transcript = []    # every message the shim sent, in order
        self.now_ms = 0
        self._next_id = 1
        self._buffer = b""
        if not _start:
            return
        ours, theirs = socket.socketpair()
        identity = {"CKPTSIM_RANK": str(rank), "CKPTSIM_WORLD_SIZE": str(world_size),
                    "CKPTSIM_INCARNATION": str(incarnation), "CKPTSIM_STREAM": str(stream)}
        environment = _environment(theirs.fileno(), identity, env)
        self.output = tempfile.TemporaryFile()
        self.process = subprocess.Popen(_command(target, binding), pass_fds=[theirs.fileno()], env=environment,
                                        stdin=subprocess.DEVNULL, stdout=self.output, stderr=subprocess.STDOUT)
        theirs.close()
        self.sock = ours
        self.sock.settimeout(15)

    # ---- framing -----------------------------------------------------------------------------

    def send(self, message):
        self.sock.sendall(json.dumps(message, separators=(",", ":")).encode() + b"\n")

    def send_raw(self, data):
        self.sock.sendall(data)

    def receive(self):
        while b"\n" not in self._buffer:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise EOFError("the shim closed the channel; output:\n" + self.log())
            self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        assert line.isascii(), line
        message = json.loads(line)
        self.transcript.append(message)
        return message

    def log(self):
        self.output.seek(0)
        return self.output.read().decode(errors="replace")

    # ---- the conversation --------------------------------------------------------------------

    def ready(self):
        message = self.receive()
        assert message["t"] == "ready", message
        return message

    def call(self, fn, **fields):
        call_id = self._next_id
        self._next_id += 1
        self.now_ms += 1000
        self.send({"t": "call", "id": call_id, "fn": fn, "now_ms": self.now_ms, **fields})
        return self._serve_until_end(call_id)

    def call_with_ahead(self, fn, ahead, **fields):
        """A call with `ahead` (the fields of the calls that follow), taken as ckptsim takes them:
        each later call's moment is 1000 ms after the one before, and the takes stop after a call
        that raised or changed its control. Returns the ends, the call's first."""
        call_id = self._next_id
        self._next_id += 1 + len(ahead)
        self.now_ms += 1000
        self.send({"t": "call", "id": call_id, "fn": fn, "now_ms": self.now_ms, "ahead": ahead, **fields})
        ends = [self._serve_until_end(call_id)]
        for offset, entry in enumerate(ahead, start=1):
            sent = fields if offset == 1 else ahead[offset - 2]
            if ends[-1]["t"] != "return" or ends[-1].get("control") != sent.get("control"):
                break
            self.now_ms += 1000
            ends.append(self._serve_until_end(call_id + offset))
        return ends

    def _serve_until_end(self, call_id):
        while True:
            message = self.receive()
            kind = message["t"]
            if kind == "note":
                self.notes.append(message)
            elif kind == "fs":
                self.requests.append(message)
                self.send(self._answer_fs(message))
            elif kind == "coll":
                self.requests.append(message)
                self.send(self._answer_coll(message))
            elif kind == "clock":
                self.requests.append(message)
                self.send({"t": "ok", "id": message["id"], "value": self.now_ms, "now_ms": self.now_ms})
            else:
                if kind in ("return", "raise"):
                    assert message["id"] == call_id, message
                return message

    def _answer_fs(self, message):
        fields = {k: v for k, v in message.items() if k not in ("t", "id", "op")}
        key = (message["op"], fields.get("path", fields.get("to")))
        if key in self.inject:
            errno_value = self.inject.pop(key)
            return {"t": "err", "id": message["id"], "errno": errno_value, "message": "injected",
                    "now_ms": self.now_ms}
        try:
            value = self.disk.handle(message["op"], fields)
        except FsError as exc:
            return {"t": "err", "id": message["id"], "errno": exc.errno, "message": str(exc), "now_ms": self.now_ms}
        return {"t": "ok", "id": message["id"], "value": value, "now_ms": self.now_ms}

    def _answer_coll(self, message):
        value = None
        if message["op"] == "broadcast":
            value = message["value"] if message["src"] == self.rank else self.broadcasts.pop(0)
        return {"t": "ok", "id": message["id"], "value": value, "now_ms": self.now_ms}

    def begin(self, kwargs, **call_fields):
        assert self.call("construct", kwargs=kwargs)["t"] == "return"
        return self.call("on_train_begin", args=ARGS, state=STATE, control=CONTROL, **call_fields)

    def shutdown(self):
        self.send({"t": "shutdown"})
        return self.wait()

    def wait(self):
        try:
            return self.process.wait(timeout=15)
        finally:
            self.sock.close()
            self.output.close()

    def ops(self):
        return [r["op"] for r in self.requests]


class Zygote:
    """`serve` under CKPTSIM_ZYGOTE=1 on a control socketpair, without the identity variables."""

    def __init__(self, target, binding=None, env=None):
        self.target, self.binding = target, binding
        ours, theirs = socket.socketpair()
        environment = _environment(theirs.fileno(), {"CKPTSIM_ZYGOTE": "1"}, env)
        self.output = tempfile.TemporaryFile()
        self.process = subprocess.Popen(_command(target, binding), pass_fds=[theirs.fileno()], env=environment,
                                        stdin=subprocess.DEVNULL, stdout=self.output, stderr=subprocess.STDOUT)
        theirs.close()
        self.control = ours
        self.control.settimeout(15)
        self._buffer = b""

    def receive(self):
        while b"\n" not in self._buffer:
            chunk = self.control.recv(65536)
            if not chunk:
                raise EOFError("the zygote closed the control socket; output:\n" + self.log())
            self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        return json.loads(line)

    def ready(self):
        message = self.receive()
        assert message == {"t": "zygote_ready", "protocol": 2}, message
        return message

    def send_line(self, message, fds=()):
        line = json.dumps(message, separators=(",", ":")).encode() + b"\n"
        if fds:
            socket.send_fds(self.control, [line], list(fds))
        else:
            self.control.sendall(line)

    def spawn(self, rank=0, world_size=1, incarnation=1, stream=7, disk=None):
        """One child, as ckptsim asks for it: the line and both descriptors in one sendmsg."""
        ours, theirs = socket.socketpair()
        read_end, write_end = os.pipe()
        try:
            self.send_line({"t": "spawn", "rank": rank, "world_size": world_size, "incarnation": incarnation,
                            "stream": stream}, fds=(theirs.fileno(), write_end))
        finally:
            theirs.close()
            os.close(write_end)
        reply = self.receive()
        assert reply["t"] == "spawned" and isinstance(reply["pid"], int), reply
        return ZygoteChild(ours, read_end, reply["pid"], rank=rank, disk=disk)

    def close(self):
        """End of file on the control socket; the zygote's exit status."""
        self.control.close()
        try:
            return self.process.wait(timeout=15)
        finally:
            self.output.close()

    def kill(self):
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        self.control.close()
        self.output.close()

    def log(self):
        self.output.seek(0)
        return self.output.read().decode(errors="replace")


class ZygoteChild(FakeSim):
    """The conversation with a forked child. Its exit status is the zygote's to ignore, so wait()
    returns None once the channel and the output pipe are closed and the pid is gone."""

    def __init__(self, sock, output_fd, pid, rank=0, disk=None):
        super().__init__(None, rank=rank, disk=disk, _start=False)
        self.sock = sock
        self.sock.settimeout(15)
        self.pid = pid
        self._output_fd = output_fd
        self._output = b""

    def log(self):
        if self._output_fd is None:
            return self._output.decode(errors="replace")
        os.set_blocking(self._output_fd, False)
        try:
            while True:
                chunk = os.read(self._output_fd, 65536)
                if not chunk:
                    break
                self._output += chunk
        except BlockingIOError:
            pass
        return self._output.decode(errors="replace")

    def alive(self):
        try:
            os.kill(self.pid, 0)
        except ProcessLookupError:
            return False
        return True

    def kill_group(self):
        os.killpg(self.pid, signal.SIGKILL)

    def wait(self):
        deadline = time.monotonic() + 15
        try:
            while self.alive():
                assert time.monotonic() < deadline, f"child {self.pid} did not end"
                time.sleep(0.01)
            while True:  # end of file once the child is gone, unless a copy leaked somewhere
                remaining = deadline - time.monotonic()
                assert remaining > 0 and select.select([self._output_fd], [], [], remaining)[0], \
                    f"the output pipe of child {self.pid} is still open elsewhere"
                chunk = os.read(self._output_fd, 65536)
                if not chunk:
                    return None
                self._output += chunk
        finally:
            self.sock.close()
            os.close(self._output_fd)
            self._output_fd = None
