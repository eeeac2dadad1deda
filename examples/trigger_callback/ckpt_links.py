"""A Transformers output_dir as the C++ port reads and writes it: files, checkpoints, the link.

Contract: restates `policy/ports/file_system.*` (the operations, over `os`), `policy/output_dir/
checkpoint_layout.*`, `final_checkpoint_link.*` and `atomic_write.*`. Paths are plain strings
joined with exactly one '/'. Each operation is one of the simulator's file-system requests
(docs/callback-protocol.md): stat, read_file, write_file, fsync_file, fsync_dir, rename, unlink,
mkdir, remove_tree, symlink, readlink, list_dir. Failures are `OSError`s, never swallowed except
where the port treats them as "absent" or "incomplete". No threads, no subprocesses.
"""

import os
from typing import List, NamedTuple, Optional

from ckpt_eval_values import is_invalid, parse_lenient_json, probe_global_step

TRAINER_STATE_NAME = "trainer_state.json"
SIDECAR_NAME = "checkpoint_eval_state.json"
FINAL_CHECKPOINT_LINK = "final_checkpoint"
SIDECAR_TEMP_PREFIX = ".checkpoint_eval_state.json.tmp-"
# An exact name, not a prefix: the simulator recognises the link update by it.
LINK_TEMP_NAME = ".final_checkpoint.tmp"
TRIGGER_CALLBACK_CLASS = "CheckpointEvaluationTriggerCallback"

# ---- paths ----------------------------------------------------------------------------------


def _strip_trailing_slashes(path: str) -> str:
    while len(path) > 1 and path.endswith("/"):
        path = path[:-1]
    return path


def join_path(directory: str, name: str) -> str:
    if not directory:
        return name
    if not name:
        return directory
    return directory.rstrip("/") + "/" + name.lstrip("/")


def parent_path(path: str) -> str:
    path = _strip_trailing_slashes(path)
    slash = path.rfind("/")
    if slash < 0:
        return "."
    if slash == 0:
        return "/"
    return _strip_trailing_slashes(path[:slash])  # "a//b" has parent "a"


def base_name(path: str) -> str:
    path = _strip_trailing_slashes(path)
    if path == "/":
        return ""
    return path[path.rfind("/") + 1:]


# ---- the file-system operations -------------------------------------------------------------


def exists(path: str) -> bool:
    """Follows symlinks, as Path.exists()."""
    try:
        os.stat(path)
    except (OSError, ValueError):
        return False
    return True


def is_dir(path: str) -> bool:
    return os.path.isdir(path)


def is_symlink(path: str) -> bool:
    return os.path.islink(path)


def read_file(path: str) -> bytes:
    with open(path, "rb") as handle:
        return handle.read()


def fsync_path(path: str) -> None:
    # One fsync of an existing file or directory (its entries), through a read-only descriptor.
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def mkdir(path: str) -> None:
    """Creates one directory; succeeds when it already exists as a directory."""
    try:
        os.mkdir(path)
    except FileExistsError:
        if not is_dir(path):
            raise


def make_dirs(path: str) -> None:
    """mkdir -p from single mkdirs; the common case (it exists) costs one stat."""
    target = _strip_trailing_slashes(path)
    if target in ("", "/", "."):
        return
    if is_dir(target):
        return
    parent = parent_path(target)
    if parent != target:
        make_dirs(parent)
    mkdir(target)


def list_dir(path: str) -> List[str]:
    return sorted(os.listdir(path))


def remove_tree(path: str) -> None:
    """Removes a directory and everything under it; a missing path is not an error."""
    # shutil.rmtree is the one call the simulator answers as a single remove_tree request.
    import shutil

    try:
        shutil.rmtree(path)
    except FileNotFoundError:
        pass


# ---- checkpoints ------------------------------------------------------------------------------


class CheckpointEntry(NamedTuple):
    name: str
    step: int


def checkpoint_dir_name(step: int) -> str:
    return "checkpoint-%d" % step


def is_leftover_temp_name(name: str) -> bool:
    """A temp file a killed writer left: what rank 0 removes in on_train_begin."""
    return name.startswith(SIDECAR_TEMP_PREFIX) or name == LINK_TEMP_NAME


def parse_checkpoint_step(name: str) -> Optional[int]:
    """The N of ^checkpoint-(\\d+)$ (ASCII digits, int64), as get_last_checkpoint reads it."""
    prefix = "checkpoint-"
    digits = name[len(prefix):]
    if not name.startswith(prefix) or not digits or not all("0" <= c <= "9" for c in digits):
        return None
    step = int(digits)
    return step if step <= 9223372036854775807 else None


def list_checkpoints(output_dir: str) -> List[CheckpointEntry]:
    """Every checkpoint-N directory under output_dir, in ascending step order."""
    if not is_dir(output_dir):
        return []
    found = []
    for name in list_dir(output_dir):
        step = parse_checkpoint_step(name)
        if step is not None and is_dir(join_path(output_dir, name)):
            found.append(CheckpointEntry(name, step))
    found.sort(key=lambda entry: entry.step)
    return found


def is_complete_checkpoint(output_dir: str, step: int) -> bool:
    """trainer_state.json parses and names step N; "the directory exists" is not a commit.

    Transformers writes that file last with a plain open(), so a crashed save leaves a directory
    that exists but is incomplete. An unreadable file is incomplete, never an error.
    """
    state_path = join_path(join_path(output_dir, checkpoint_dir_name(step)), TRAINER_STATE_NAME)
    if not exists(state_path):
        return False
    try:
        return probe_global_step(read_file(state_path)) == step
    except OSError:
        return False


def find_saved_trigger_callback(trainer_state):
    """stateful_callbacks -> CheckpointEvaluationTriggerCallback: the (first) saved state.

    Returns (found, state): `found` is False when the document has no such entry; `state` is
    the first of a list (None for an empty one).
    """
    if not isinstance(trainer_state, dict):
        return False, None
    callbacks = trainer_state.get("stateful_callbacks")
    if not isinstance(callbacks, dict) or TRIGGER_CALLBACK_CLASS not in callbacks:
        return False, None
    entry = callbacks[TRIGGER_CALLBACK_CLASS]
    if isinstance(entry, list):
        return True, (entry[0] if entry else None)
    return True, entry


def _is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def checkpoint_records_best(output_dir: str, step: int, best_score: float) -> bool:
    """Whether checkpoint-N's own trainer_state.json records this best (step N, best_score).

    A crash can send the job back and later produce another checkpoint-N: a sidecar from the
    abandoned history must not be trusted for it. True when there is nothing to compare with.
    """
    path = join_path(join_path(output_dir, checkpoint_dir_name(step)), TRAINER_STATE_NAME)
    try:
        data = read_file(path)
    except OSError:
        return False
    document = parse_lenient_json(data)
    found, saved = find_saved_trigger_callback(None if is_invalid(document) else document)
    if not found:
        return True
    attributes = saved.get("attributes") if isinstance(saved, dict) else None
    recorded = attributes.get("checkpoint_eval_state") if isinstance(attributes, dict) else None
    inner = recorded.get("state") if isinstance(recorded, dict) else None
    if not isinstance(inner, dict) or "best_step" not in inner or "best_score" not in inner:
        return True
    recorded_step, recorded_score = inner["best_step"], inner["best_score"]
    return (_is_number(recorded_step) and recorded_step == step and _is_number(recorded_score)
            and float(recorded_score) == best_score)


# ---- final_checkpoint ---------------------------------------------------------------------------


def checkpoints_pruned_by_link(checkpoints: List[CheckpointEntry], step: int,
                               max_checkpoints: int) -> List[CheckpointEntry]:
    """Of the checkpoints older than the target, all but the newest max_checkpoints - 1."""
    older = [entry for entry in checkpoints if entry.step < step]
    keep = max_checkpoints - 1 if max_checkpoints > 1 else 0
    return older[:len(older) - keep] if len(older) > keep else []


def update_final_checkpoint_link(output_dir: str, step: int, max_checkpoints: int = 1) -> None:
    """Points output_dir/final_checkpoint at checkpoint-<step>, atomically, then prunes.

    A new relative symlink under a temp name is renamed over the old one and the directory is
    fsynced, so a reader sees the old target or the new one and a power loss keeps the rename.
    Checkpoints newer than the target (a save in flight) are never touched.
    """
    link = join_path(output_dir, FINAL_CHECKPOINT_LINK)
    temp = join_path(output_dir, LINK_TEMP_NAME)
    if is_symlink(temp) or exists(temp):
        os.unlink(temp)
    os.symlink(checkpoint_dir_name(step), temp)
    os.replace(temp, link)
    fsync_path(output_dir)

    pruned = checkpoints_pruned_by_link(list_checkpoints(output_dir), step, max_checkpoints)
    if not pruned:
        return
    for entry in pruned:
        remove_tree(join_path(output_dir, entry.name))
    fsync_path(output_dir)


def final_checkpoint_step(output_dir: str) -> Optional[int]:
    """The step final_checkpoint names, if it is a link to [./]checkpoint-N (or inside output_dir)."""
    link = join_path(output_dir, FINAL_CHECKPOINT_LINK)
    if not is_symlink(link):
        return None
    target = os.readlink(link)
    while len(target) > 1 and target.endswith("/"):
        target = target[:-1]
    if target.startswith("./"):
        target = target[2:]
    if target.startswith("/"):
        if parent_path(target) != output_dir:
            return None
        target = base_name(target)
    return parse_checkpoint_step(target)


# ---- repairs and durability (rank 0, inside the callback's envelopes) --------------------------


def remove_leftover_temp_files(output_dir: str) -> None:
    """Removes the temp files killed writers left (then fsyncs the directory, if any went)."""
    if not is_dir(output_dir):
        return
    removed = False
    for name in list_dir(output_dir):
        if is_leftover_temp_name(name):
            os.unlink(join_path(output_dir, name))
            removed = True
    if removed:
        fsync_path(output_dir)


def drop_link_to_lost_checkpoint(output_dir: str) -> None:
    """Removes a final_checkpoint whose target is not a complete checkpoint.

    Transformers never fsyncs: a power loss in the save window can leave no complete target. A
    link to nothing misleads every reader, so it goes; the next commit links again.
    """
    link = join_path(output_dir, FINAL_CHECKPOINT_LINK)
    if not is_symlink(link):
        return
    step = final_checkpoint_step(output_dir)
    if step is not None and is_complete_checkpoint(output_dir, step):
        return
    os.unlink(link)
    fsync_path(output_dir)


def make_checkpoint_durable(output_dir: str, step: int) -> None:
    """fsyncs every file of checkpoint-N (other ranks' too), its directory, then output_dir.

    Transformers never fsyncs a checkpoint; the durable link may name it only after this.
    """
    directory = join_path(output_dir, checkpoint_dir_name(step))
    for name in list_dir(directory):
        path = join_path(directory, name)
        if not is_dir(path):
            fsync_path(path)
    fsync_path(directory)
    fsync_path(output_dir)


# ---- the atomic write ---------------------------------------------------------------------------


def write_file_atomically(path: str, temp_path: str, contents: bytes) -> None:
    """Replaces `path` so that a crash at any point leaves the old file or the new one.

    Temp file in the same directory, fsync, rename over `path`, then fsync the directory: the
    last step is what makes the rename itself survive a power loss. On an I/O error the temp
    file is removed and the error re-raised; a kill runs no cleanup, as the port's crash.
    """
    try:
        with open(temp_path, "wb") as handle:
            handle.write(contents)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temp_path, path)
    except Exception:
        try:
            if exists(temp_path):
                os.unlink(temp_path)
        except Exception:
            pass  # keep the original error; on_train_begin removes leftovers anyway
        raise
    fsync_path(parent_path(path))
