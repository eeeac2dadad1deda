"""The distributed port over torch.distributed, and the rank-zero outcome envelope.

Contract: restates `policy/ports/collective.hpp` and `policy/ports/rank_zero_outcome.*`. Only
rank 0 touches the sidecar and the link; every rank-zero-only action runs inside
`run_on_rank_zero_and_share_outcome`, whose one broadcast carries the value or the error, so
every rank continues with the same value or raises the same `RankZeroFailure`:
"checkpoint evaluation <operation> failed on global rank zero (<type>): <message>".
torch is imported lazily; without it, or before init_process_group, the world is one process
(barrier does nothing, broadcast returns the caller's own value).
"""

from typing import Any, Callable, Dict, Optional


class RankZeroFailure(RuntimeError):
    """What every rank raises when a rank-zero-only action failed; `operation` names it."""

    def __init__(self, operation: str, message: str) -> None:
        super().__init__(message)
        self.operation = operation


def _distributed() -> Optional[Any]:
    try:
        import torch.distributed as dist
    except ImportError:
        return None
    if not dist.is_available() or not dist.is_initialized():
        return None
    return dist


def world_size() -> int:
    dist = _distributed()
    return 1 if dist is None else int(dist.get_world_size())


def rank() -> int:
    dist = _distributed()
    return 0 if dist is None else int(dist.get_rank())


def barrier() -> None:
    """Returns once every live rank has arrived."""
    dist = _distributed()
    if dist is not None:
        dist.barrier()


def broadcast(value: Any, src: int = 0) -> Any:
    """Every rank passes its own value; every rank receives rank `src`'s."""
    dist = _distributed()
    if dist is None:
        return value
    holder = [value]
    dist.broadcast_object_list(holder, src=src)
    return holder[0]


def _python_type_name(error: BaseException) -> str:
    # The port reports three kinds: its ValueError, an I/O failure, anything else.
    if isinstance(error, ValueError):
        return "ValueError"
    if isinstance(error, OSError):
        return "OSError"
    return "RuntimeError"


def run_on_rank_zero_and_share_outcome(is_rank_zero: bool, operation: str,
                                       action: Callable[[], Dict[str, Any]]) -> Dict[str, Any]:
    """Runs `action` on rank 0 and shares its outcome, success or failure, in one broadcast.

    If rank 0 raised before the next collective, every other rank would wait in it forever.
    `action` returns a mapping merged into the outcome; the received outcome is returned on
    every rank. A kill (the simulator's crash) is no exception and is never caught here.
    """
    outcome: Any = None  # the other ranks receive rank 0's
    if is_rank_zero:
        try:
            outcome = dict(action())
            outcome["ok"] = True
        except Exception as error:
            outcome = {"ok": False, "error_type": _python_type_name(error), "error": str(error)}
    received = broadcast(outcome, 0)
    ok = received.get("ok") if isinstance(received, dict) else None
    if not isinstance(ok, bool):
        raise RuntimeError("checkpoint evaluation %s did not receive a valid rank-zero outcome" % operation)
    if not ok:
        error_type = received.get("error_type", "RuntimeError")
        detail = received.get("error", "unknown error")
        raise RankZeroFailure(operation, "checkpoint evaluation %s failed on global rank zero (%s): %s"
                              % (operation, error_type, detail))
    return received
