"""torch.distributed stand-in: the process group is the simulator's ranks.

Contract: is_available() is True; is_initialized() is True iff the world has more than one rank
(ckptsim's world of one is a single process without a process group, so, as in torch, the
collectives then raise "not initialized"). barrier() is a `coll barrier` request;
broadcast_object_list(lst, src) is one `coll broadcast` whose value is the list, each element as
plain JSON when it survives a JSON round trip unchanged, else {"__pickle_b64__": ...}; the src rank
keeps its own objects, the others receive src's. all_gather_object is N broadcasts. Any other
function, a process group other than the default, or async_op is a harness error.
make(world, collective) reads world.rank and world.world_size at each call (a zygote's child
sets them after the fork, through standins.set_identity).
"""

import base64
import math
import pickle

from .. import harness

PICKLE_KEY = "__pickle_b64__"
_NOT_INITIALIZED = ("Default process group has not been initialized, please make sure to call "
                    "init_process_group.")


def not_simulated(name):
    harness.fail(f"{name} is not simulated by ckptsim_shim (simulated: is_available, is_initialized, "
                 "get_rank, get_world_size, barrier, broadcast_object_list, all_gather_object)")


def _json_faithful(value):
    kind = type(value)
    if value is None or kind in (bool, str):
        return True
    if kind is int:
        return -(2 ** 63) <= value < 2 ** 64
    if kind is float:
        return math.isfinite(value)
    if kind is list:
        return all(_json_faithful(v) for v in value)
    if kind is dict:
        return all(type(k) is str and k != PICKLE_KEY and _json_faithful(v) for k, v in value.items())
    return False


def encode(value):
    if _json_faithful(value):
        return value
    return {PICKLE_KEY: base64.b64encode(pickle.dumps(value, protocol=4)).decode("ascii")}


def decode(value):
    if isinstance(value, dict) and set(value) == {PICKLE_KEY}:
        return pickle.loads(base64.b64decode(value[PICKLE_KEY]))
    return value


class World:
    """The process's place in the simulated process group."""

    def __init__(self, rank, world_size):
        self.rank = rank
        self.world_size = world_size


def make(world, collective):
    def require_group(group, what):
        if world.world_size <= 1:
            raise RuntimeError(_NOT_INITIALIZED)
        if group is not None:
            harness.fail(f"torch.distributed.{what} with a process group other than the default is not simulated")

    def is_available():
        return True

    def is_initialized():
        return world.world_size > 1

    def get_rank(group=None):
        require_group(group, "get_rank")
        return world.rank

    def get_world_size(group=None):
        require_group(group, "get_world_size")
        return world.world_size

    def barrier(group=None, async_op=False, device_ids=None):
        require_group(group, "barrier")
        if async_op:
            harness.fail("torch.distributed.barrier(async_op=True) is not simulated")
        collective("barrier", {})

    def _broadcast(value, src):
        world_size = world.world_size
        if not isinstance(src, int) or not 0 <= src < world_size:
            raise ValueError(f"broadcast: src {src!r} outside a world of {world_size}")
        return collective("broadcast", {"src": src, "value": value})

    def broadcast_object_list(object_list, src=0, group=None, device=None, group_src=None):
        require_group(group, "broadcast_object_list")
        if group_src is not None:
            harness.fail("torch.distributed.broadcast_object_list(group_src=...) is not simulated")
        # Only src's objects are serialised, as in torch; the others send null.
        rank = world.rank
        mine = [encode(v) for v in object_list] if rank == src else None
        received = _broadcast(mine, src)
        if rank == src:
            return None
        if not isinstance(received, list) or len(received) != len(object_list):
            harness.fail(f"protocol: broadcast_object_list expected a list of {len(object_list)} from "
                         f"rank {src}, got {received!r}")
        for index, value in enumerate(received):
            object_list[index] = decode(value)
        return None

    def all_gather_object(object_list, obj, group=None):
        require_group(group, "all_gather_object")
        rank, world_size = world.rank, world.world_size
        if len(object_list) != world_size:
            raise ValueError(f"all_gather_object needs a list of world size {world_size}")
        for src in range(world_size):
            object_list[src] = decode(_broadcast(encode(obj) if src == rank else None, src))
        return None

    return {"is_available": is_available, "is_initialized": is_initialized, "get_rank": get_rank,
            "get_world_size": get_world_size, "barrier": barrier,
            "broadcast_object_list": broadcast_object_list, "all_gather_object": all_gather_object}
