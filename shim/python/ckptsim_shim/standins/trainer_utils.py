"""transformers.trainer_utils stand-in: checkpoint folder naming and get_last_checkpoint.

Contract: PREFIX_CHECKPOINT_DIR is "checkpoint"; get_last_checkpoint(folder) returns the
"checkpoint-<n>" directory of `folder` with the largest n (or None), as Transformers' does, through
os.listdir/os.path.isdir, so on a virtual folder it becomes list_dir and stat requests.
"""

import os
import re

__all__ = ["PREFIX_CHECKPOINT_DIR", "get_last_checkpoint", "IntervalStrategy", "SaveStrategy"]

from .training_args import IntervalStrategy, SaveStrategy  # noqa: E402 - re-exported as Transformers does

PREFIX_CHECKPOINT_DIR = "checkpoint"
_CHECKPOINT = re.compile(r"^" + PREFIX_CHECKPOINT_DIR + r"\-(\d+)$")


def get_last_checkpoint(folder):
    found = [name for name in os.listdir(folder)
             if _CHECKPOINT.search(name) is not None and os.path.isdir(os.path.join(folder, name))]
    if not found:
        return None
    return os.path.join(folder, max(found, key=lambda name: int(_CHECKPOINT.search(name).groups()[0])))
