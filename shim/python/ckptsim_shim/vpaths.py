"""Virtual paths: which paths belong to the simulator, and how they are named there.

Contract:
- Router.sim_path(path) returns the simulator's path ("/run/output/x") for a path under the
  virtual root (CKPTSIM_VROOT, "/ckptsim-vfs"), or None for a real path. Relative paths are real:
  the working directory can never be virtual (the root does not exist on the host and chdir into
  it is refused). A ".." that would lead into or inside the virtual root is a harness error:
  resolving it lexically could disagree with the simulator's symlinks.
- Symlink targets cross the boundary translated: an absolute target under the virtual root is
  stored as the simulator's absolute path, and readlink prefixes it back, so that both sides
  resolve the same entry. An absolute target outside the virtual root is a harness error.
- make_stat(kind, size, sim_path) builds an os.stat_result; StandIn is a callable that is not a
  descriptor, so a stand-in stored as a class attribute (3.10's pathlib._NormalAccessor) is not
  bound as a method.
"""

import os
import stat as stat_module
import zlib

from . import harness

DEFAULT_VROOT = "/ckptsim-vfs"
# A fixed device number for every virtual entry ("ck"), so os.path.samefile compares inodes.
VIRTUAL_DEV = 0x636B

_MODES = {
    "file": stat_module.S_IFREG | 0o644,
    "dir": stat_module.S_IFDIR | 0o755,
    "symlink": stat_module.S_IFLNK | 0o777,
}


class Router:
    def __init__(self, vroot=DEFAULT_VROOT):
        if not vroot.startswith("/") or vroot.rstrip("/") == "":
            raise ValueError(f"the virtual root must be an absolute path other than /: {vroot!r}")
        self.vroot = "/" + vroot.strip("/")
        self._parts = self.vroot.strip("/").split("/")

    def sim_path(self, path):
        """The simulator's path for `path` (str, bytes or PathLike), or None when it is real."""
        text = os.fspath(path)
        if isinstance(text, bytes):
            text = os.fsdecode(text)
        if not text.startswith("/"):
            return None
        parts = [p for p in text.split("/") if p not in ("", ".")]
        n = len(self._parts)
        if parts[:n] == self._parts:
            rest = parts[n:]
            if ".." in rest:
                harness.fail(f"the path {text!r} has '..' under the virtual root {self.vroot}; "
                             "lexical resolution could disagree with the simulator's symlinks")
            return "/" + "/".join(rest)
        if ".." in parts and self.is_virtual_text(os.path.normpath(text)):
            harness.fail(f"the path {text!r} leads into the virtual root {self.vroot} through '..'")
        return None

    def is_virtual_text(self, text):
        parts = [p for p in text.split("/") if p not in ("", ".")]
        return text.startswith("/") and parts[: len(self._parts)] == self._parts

    def is_virtual(self, path):
        """Like sim_path without failing: used by the tripwire on arbitrary audit arguments."""
        try:
            text = os.fspath(path)
        except TypeError:
            return False
        if isinstance(text, bytes):
            text = os.fsdecode(text)
        return self.is_virtual_text(text) or (".." in text and self.is_virtual_text(os.path.normpath(text)))

    def target_to_sim(self, target):
        """A symlink target as the simulator stores it."""
        text = os.fspath(target)
        if isinstance(text, bytes):
            text = os.fsdecode(text)
        if not text.startswith("/"):
            return text
        sim = self.sim_path(text)
        if sim is None:
            harness.fail(f"os.symlink to {text!r}: an absolute link target outside the virtual root "
                         f"{self.vroot} would leave the simulated disk")
        return sim

    def target_from_sim(self, target):
        return self.vroot + target if target.startswith("/") else target

    def to_user(self, sim_path):
        return self.vroot if sim_path == "/" else self.vroot + sim_path


def make_stat(kind, size, sim_path):
    """An os.stat_result for a virtual entry. Times are 0: the protocol's stat carries no mtime."""
    if kind not in _MODES:
        harness.fail(f"protocol: stat kind must be file, dir or symlink, got {kind!r}")
    if not isinstance(size, int) or isinstance(size, bool) or size < 0:
        harness.fail(f"protocol: stat size must be a non-negative integer, got {size!r}")
    inode = zlib.crc32(sim_path.encode("utf-8")) + 1
    fields = (_MODES[kind], inode, VIRTUAL_DEV, 1, 0, 0, size, 0, 0, 0)
    return os.stat_result(fields, {"st_atime": 0.0, "st_mtime": 0.0, "st_ctime": 0.0,
                                   "st_atime_ns": 0, "st_mtime_ns": 0, "st_ctime_ns": 0,
                                   "st_blksize": 4096, "st_blocks": (size + 511) // 512})


class StandIn:
    """A stand-in for a module function: callable, and deliberately without __get__."""

    def __init__(self, module_name, name, original, implementation):
        self.__name__ = name
        self.__qualname__ = name
        self.__module__ = module_name
        self.__doc__ = getattr(original, "__doc__", None)
        self.__wrapped__ = original
        self._implementation = implementation

    def __call__(self, *args, **kwargs):
        return self._implementation(*args, **kwargs)

    def __repr__(self):
        return f"<ckptsim_shim stand-in for {self.__module__}.{self.__name__}>"
