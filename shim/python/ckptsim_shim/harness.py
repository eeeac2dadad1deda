"""Harness errors: the callback left the simulated surface.

Contract: `fail(message)` never returns. Under `serve` the protocol installs a handler that sends
`{"t":"harness_error"}` and ends the process at once (exit status 3), so no `except` clause in
user code, not even a bare one, can swallow a refusal. Without a handler (selftest, unit use) it
raises HarnessError, a BaseException, so `except Exception` in a callback does not catch it.
The stack passed to the handler starts at the call loop (protocol.Session.serve) when the failure
happens inside it: the frames above are the shim's start-up, which differs between a cold process
and a zygote's child, and never name the user's line.
"""

import os
import traceback

_LOOP_FILE = os.path.join("ckptsim_shim", "protocol.py")

# The exit status of a process that reported a harness error (any nonzero status is one).
EXIT_HARNESS_ERROR = 3


class HarnessError(BaseException):
    """The callback did something the simulator cannot answer faithfully."""


_handler = None


def set_handler(handler):
    """`handler(message, stack_text)` must not return; None restores raising HarnessError."""
    global _handler
    _handler = handler


def fail(message):
    # The stack names the caller (the user's line that left the surface), not this function.
    frames = traceback.extract_stack()[:-1]
    for index, frame in enumerate(frames):
        if frame.name == "serve" and frame.filename.endswith(_LOOP_FILE):
            frames = frames[index:]
            break
    stack = "".join(traceback.format_list(frames))
    if _handler is not None:
        _handler(message, stack)
    raise HarnessError(message)
