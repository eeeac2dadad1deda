"""Interposition of os, io.open/builtins.open and shutil.rmtree for the virtual root.

Contract: after install(router, request), every call below on a path under the virtual root
becomes `fs` requests (the root stripped), and every other path, fd or call goes to the real
function unchanged. An `err` answer raises OSError(errno, os.strerror(errno), path), so
FileNotFoundError, FileExistsError etc. arise as for a real disk.

- Routed: stat, lstat, open, close, read, write, fsync, fdatasync, fstat, lseek, mkdir (so
  makedirs), rmdir, rename, replace, unlink, remove, symlink, readlink, listdir, scandir,
  access, utime (on a missing entry only), io.open/builtins.open, shutil.rmtree.
- Refused with a harness error on a virtual path or fd: chmod, chown, link, truncate, mkfifo,
  chdir, xattrs, ftruncate, dup and the other calls in _REFUSED_*.
- The stand-ins are non-descriptor callables (vpaths.StandIn); on 3.10, pathlib's
  _NormalAccessor captured the originals at import, so its class attributes are replaced too.
- rmdir has no protocol op: it is `stat` (not following), `list_dir`, then `remove_tree`.
- Notes on the simulator's answers that the shim relies on: `mkdir` of an existing entry answers
  EEXIST (os.mkdir's contract), the virtual root itself is a directory answered locally.
"""

import errno
import io
import builtins
import os
import shutil
import stat as stat_module
import sys

from . import harness
from .vfiles import FileTable, open_file
from .vpaths import StandIn, make_stat

_REFUSED_PATH = ("chmod", "lchmod", "chown", "lchown", "chflags", "lchflags", "link", "truncate",
                 "mkfifo", "mknod", "chdir", "chroot", "statvfs", "pathconf", "getxattr", "setxattr",
                 "listxattr", "removexattr")
_REFUSED_FD = ("ftruncate", "fchmod", "fchown", "fchdir", "fstatvfs", "fpathconf", "dup", "dup2",
               "set_blocking", "get_blocking", "set_inheritable", "get_inheritable", "posix_fallocate",
               "posix_fadvise", "pread", "pwrite", "preadv", "pwritev", "readv", "writev", "lockf",
               "fchmod", "fdopendir", "ttyname", "device_encoding")


def _route_fd(fd):
    return isinstance(fd, int) and not isinstance(fd, bool)


class Vfs:
    def __init__(self, router, request):
        """`request(op, fields)` makes one `fs` request; it raises protocol.RequestError for err."""
        from .protocol import RequestError
        self.router = router
        self._request = request
        self._request_error = RequestError
        self.table = FileTable(self)
        self.originals = {}

    # One request; an err answer becomes the OSError Python would raise for the user's paths.
    def fs(self, op, user_path, user_path2=None, **fields):
        try:
            return self._request(op, fields)
        except self._request_error as exc:
            if user_path2 is not None:
                raise OSError(exc.errno, os.strerror(exc.errno), _shown(user_path), None,
                              _shown(user_path2)) from None
            raise OSError(exc.errno, os.strerror(exc.errno), _shown(user_path)) from None

    def _sim(self, path, name, dir_fd=None):
        if _route_fd(path):
            return None
        sim = self.router.sim_path(path)
        if sim is not None and dir_fd is not None:
            harness.fail(f"os.{name}({_shown(path)!r}, dir_fd=...) on a virtual path is not simulated")
        return sim

    def _orig(self, name):
        return self.originals[name]

    # ---- metadata ----------------------------------------------------------------------------

    def stat(self, path, *, dir_fd=None, follow_symlinks=True):
        if self.table.is_virtual(path):
            return self.table.fstat(path)
        sim = self._sim(path, "stat", dir_fd)
        if sim is None:
            return self._orig("stat")(path, dir_fd=dir_fd, follow_symlinks=follow_symlinks)
        return self.stat_sim(sim, path, follow_symlinks)

    def stat_sim(self, sim, user_path, follow=True):
        if sim == "/":
            return make_stat("dir", 0, sim)
        info = self.fs("stat", user_path, path=sim, follow=bool(follow))
        if not isinstance(info, dict):
            harness.fail(f"protocol: stat of {sim} answered {info!r}, not an object")
        return make_stat(info.get("kind"), info.get("size"), sim)

    def lstat(self, path, *, dir_fd=None):
        if _route_fd(path):
            return self._orig("lstat")(path, dir_fd=dir_fd)
        return self.stat(path, dir_fd=dir_fd, follow_symlinks=False)

    def access(self, path, mode, *, dir_fd=None, effective_ids=False, follow_symlinks=True):
        sim = self._sim(path, "access", dir_fd)
        if sim is None:
            return self._orig("access")(path, mode, dir_fd=dir_fd, effective_ids=effective_ids,
                                        follow_symlinks=follow_symlinks)
        # The simulated disk has no permissions: an entry that exists is accessible.
        try:
            self.stat_sim(sim, path, follow_symlinks)
        except OSError:
            return False
        return True

    def utime(self, path, times=None, *, ns=None, dir_fd=None, follow_symlinks=True):
        sim = self._sim(path, "utime", dir_fd) if not self.table.is_virtual(path) else "fd"
        if sim is None:
            kwargs = {"dir_fd": dir_fd, "follow_symlinks": follow_symlinks}
            if ns is not None:
                kwargs["ns"] = ns
            return self._orig("utime")(path, times, **kwargs)
        if sim != "fd":
            self.stat_sim(sim, path, follow_symlinks)  # a missing entry fails as utime does
        harness.fail(f"os.utime on {_shown(path)!r}: modification times are not simulated")

    # ---- directories -------------------------------------------------------------------------

    def mkdir(self, path, mode=0o777, *, dir_fd=None):
        sim = self._sim(path, "mkdir", dir_fd)
        if sim is None:
            return self._orig("mkdir")(path, mode, dir_fd=dir_fd)
        if sim == "/":
            raise OSError(errno.EEXIST, os.strerror(errno.EEXIST), _shown(path))
        self.fs("mkdir", path, path=sim)

    def rmdir(self, path, *, dir_fd=None):
        sim = self._sim(path, "rmdir", dir_fd)
        if sim is None:
            return self._orig("rmdir")(path, dir_fd=dir_fd)
        if sim == "/":
            harness.fail(f"os.rmdir of the virtual root {_shown(path)!r}")
        st = self.stat_sim(sim, path, follow=False)
        if not stat_module.S_ISDIR(st.st_mode):
            raise OSError(errno.ENOTDIR, os.strerror(errno.ENOTDIR), _shown(path))
        if self._list(sim, path):
            raise OSError(errno.ENOTEMPTY, os.strerror(errno.ENOTEMPTY), _shown(path))
        self.fs("remove_tree", path, path=sim)

    def _list(self, sim, user_path):
        names = self.fs("list_dir", user_path, path=sim)
        if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
            harness.fail(f"protocol: list_dir of {sim} answered {names!r}, not a list of names")
        return names

    def listdir(self, path="."):
        if self.table.is_virtual(path):
            entry = self.table.entry(path)
            return self._list(entry.sim_path, entry.user_path)
        sim = self._sim(path, "listdir")
        if sim is None:
            return self._orig("listdir")(path)
        names = self._list(sim, path)
        return [os.fsencode(n) for n in names] if isinstance(os.fspath(path), bytes) else names

    def scandir(self, path="."):
        sim = None if self.table.is_virtual(path) else self._sim(path, "scandir")
        if sim is None and not self.table.is_virtual(path):
            return self._orig("scandir")(path)
        if sim is None:
            harness.fail("os.scandir on a virtual directory fd is not simulated; pass the path")
        text = os.fspath(path)
        return _ScandirIterator(self, text, sim, self._list(sim, path))

    # ---- entries -----------------------------------------------------------------------------

    def _two(self, name, src, dst, src_dir_fd=None, dst_dir_fd=None):
        a, b = self._sim(src, name, src_dir_fd), self._sim(dst, name, dst_dir_fd)
        if (a is None) != (b is None):
            harness.fail(f"os.{name}({_shown(src)!r}, {_shown(dst)!r}) between the virtual and the real "
                         "file system is not simulated")
        return a, b

    def rename(self, src, dst, *, src_dir_fd=None, dst_dir_fd=None, _name="rename"):
        a, b = self._two(_name, src, dst, src_dir_fd, dst_dir_fd)
        if a is None:
            return self._orig(_name)(src, dst, src_dir_fd=src_dir_fd, dst_dir_fd=dst_dir_fd)
        if "/" in (a, b):
            harness.fail(f"os.{_name} of the virtual root is not simulated")
        # os.rename and os.replace are the same call on POSIX: both replace `dst`.
        self.fs("rename", src, dst, **{"from": a, "to": b})

    def replace(self, src, dst, *, src_dir_fd=None, dst_dir_fd=None):
        return self.rename(src, dst, src_dir_fd=src_dir_fd, dst_dir_fd=dst_dir_fd, _name="replace")

    def unlink(self, path, *, dir_fd=None, _name="unlink"):
        sim = self._sim(path, _name, dir_fd)
        if sim is None:
            return self._orig(_name)(path, dir_fd=dir_fd)
        if sim == "/":
            raise OSError(errno.EISDIR, os.strerror(errno.EISDIR), _shown(path))
        self.fs("unlink", path, path=sim)

    def remove(self, path, *, dir_fd=None):
        return self.unlink(path, dir_fd=dir_fd, _name="remove")

    def symlink(self, src, dst, target_is_directory=False, *, dir_fd=None):
        sim = self._sim(dst, "symlink", dir_fd)
        if sim is None:
            return self._orig("symlink")(src, dst, target_is_directory, dir_fd=dir_fd)
        self.fs("symlink", dst, target=self.router.target_to_sim(src), path=sim)

    def readlink(self, path, *, dir_fd=None):
        sim = self._sim(path, "readlink", dir_fd)
        if sim is None:
            return self._orig("readlink")(path, dir_fd=dir_fd)
        if sim == "/":
            raise OSError(errno.EINVAL, os.strerror(errno.EINVAL), _shown(path))
        target = self.fs("readlink", path, path=sim)
        if not isinstance(target, str):
            harness.fail(f"protocol: readlink of {sim} answered {target!r}, not a string")
        target = self.router.target_from_sim(target)
        return os.fsencode(target) if isinstance(os.fspath(path), bytes) else target

    # ---- fds ---------------------------------------------------------------------------------

    def open(self, path, flags, mode=0o777, *, dir_fd=None):
        sim = self._sim(path, "open", dir_fd)
        if sim is None:
            return self._orig("open")(path, flags, mode, dir_fd=dir_fd)
        return self.table.open(_shown(path), sim, flags)

    def _fd_call(self, name, virtual):
        def call(fd, *args, **kwargs):
            if self.table.is_virtual(fd):
                return virtual(fd, *args, **kwargs)
            return self.originals[name](fd, *args, **kwargs)
        return call

    def io_open(self, file, mode="r", buffering=-1, encoding=None, errors=None, newline=None,
                closefd=True, opener=None):
        if self.table.is_virtual(file):
            return open_file(self.table, file, self.table.entry(file).user_path, None, mode, buffering,
                             encoding, errors, newline, closefd, opener)
        sim = None if isinstance(file, int) else self.router.sim_path(file) if _pathlike(file) else None
        if sim is None:
            return self.originals["io.open"](file, mode, buffering, encoding, errors, newline, closefd, opener)
        return open_file(self.table, file, _shown(file), sim, mode, buffering, encoding, errors, newline,
                         closefd, opener)

    def rmtree(self, path, ignore_errors=False, onerror=None, *, onexc=None, dir_fd=None):
        sim = None if _route_fd(path) else self.router.sim_path(path)
        if sim is None:
            kwargs = {"dir_fd": dir_fd} if dir_fd is not None else {}
            if onexc is not None:
                kwargs["onexc"] = onexc
            return self.originals["shutil.rmtree"](path, ignore_errors, onerror, **kwargs)
        if dir_fd is not None or sim == "/":
            harness.fail(f"shutil.rmtree({_shown(path)!r}) with dir_fd or on the virtual root is not simulated")
        try:
            st = self.stat_sim(sim, path, follow=False)
            if stat_module.S_ISLNK(st.st_mode):
                raise OSError("Cannot call rmtree on a symbolic link")
            if not stat_module.S_ISDIR(st.st_mode):
                raise OSError(errno.ENOTDIR, os.strerror(errno.ENOTDIR), _shown(path))
            # One request: the simulator removes the tree and observes each step itself.
            self.fs("remove_tree", path, path=sim)
        except OSError as exc:
            if ignore_errors:
                return
            if onexc is not None:
                onexc(shutil.rmtree, _shown(path), exc)
            elif onerror is not None:
                onerror(shutil.rmtree, _shown(path), sys.exc_info())
            else:
                raise

    # ---- installation ------------------------------------------------------------------------

    def install(self):
        routed = {"stat": self.stat, "lstat": self.lstat, "access": self.access, "utime": self.utime,
                  "mkdir": self.mkdir, "rmdir": self.rmdir, "listdir": self.listdir, "scandir": self.scandir,
                  "rename": self.rename, "replace": self.replace, "unlink": self.unlink,
                  "remove": self.remove, "symlink": self.symlink, "readlink": self.readlink,
                  "open": self.open}
        fd_routed = {"close": self.table.close, "read": self.table.read, "write": self.table.write,
                     "fsync": self.table.fsync, "fdatasync": self.table.fsync, "fstat": self.table.fstat,
                     "lseek": self.table.lseek, "isatty": lambda fd: False,
                     "sendfile": self._sendfile}
        replaced = {}
        for name, implementation in routed.items():
            if hasattr(os, name):
                replaced[name] = implementation
        for name, virtual in fd_routed.items():
            if hasattr(os, name):
                replaced[name] = self._fd_call(name, virtual)
        for name in _REFUSED_PATH:
            if hasattr(os, name):
                replaced[name] = self._refuse_path(name)
        for name in _REFUSED_FD:
            if hasattr(os, name) and name not in replaced:
                replaced[name] = self._fd_call(name, self._refuse_fd(name))
        stand_ins = {}
        for name, implementation in replaced.items():
            original = getattr(os, name)
            self.originals[name] = original
            stand_ins[original] = StandIn("os", name, original, implementation)
            setattr(os, name, stand_ins[original])
        for capability in ("supports_fd", "supports_dir_fd", "supports_follow_symlinks", "supports_effective_ids"):
            members = getattr(os, capability, None)
            if isinstance(members, set):
                members.update(stand_ins[f] for f in list(members) if f in stand_ins)
        self.originals["io.open"] = io.open
        opener = StandIn("io", "open", io.open, self.io_open)
        stand_ins[io.open] = opener
        io.open = opener
        builtins.open = opener
        self.originals["shutil.rmtree"] = shutil.rmtree
        rmtree = StandIn("shutil", "rmtree", shutil.rmtree, self.rmtree)
        rmtree.avoids_symlink_attacks = getattr(shutil.rmtree, "avoids_symlink_attacks", False)
        shutil.rmtree = rmtree
        _patch_pathlib_accessor(stand_ins)
        return self

    def _refuse_path(self, name):
        def refuse(*args, **kwargs):
            for value in list(args[:2]) + [kwargs.get("path"), kwargs.get("src"), kwargs.get("dst")]:
                if value is not None and (self.table.is_virtual(value) or
                                          (not _route_fd(value) and _pathlike(value) and self.router.sim_path(value))):
                    harness.fail(f"os.{name} on {_shown(value)!r} is outside the simulated surface")
            return self.originals[name](*args, **kwargs)
        return refuse

    @staticmethod
    def _refuse_fd(name):
        def refuse(fd, *args, **kwargs):
            harness.fail(f"os.{name} on a virtual file descriptor is outside the simulated surface")
        return refuse

    def _sendfile(self, out_fd, in_fd, offset, count, *args, **kwargs):
        if self.table.is_virtual(out_fd) or self.table.is_virtual(in_fd):
            # As on a kernel without sendfile for these fds: shutil then copies with read/write.
            raise OSError(errno.EINVAL, "sendfile is not simulated on a virtual file")
        return self.originals["sendfile"](out_fd, in_fd, offset, count, *args, **kwargs)


def _pathlike(value):
    return isinstance(value, (str, bytes, os.PathLike))


def _shown(path):
    """The path as OSError shows it: a str (bytes stay bytes), never a Path object."""
    if isinstance(path, int):
        return path
    return os.fspath(path)


def _patch_pathlib_accessor(stand_ins):
    """3.10's pathlib bound os.stat, io.open, ... into _NormalAccessor at import time."""
    import pathlib
    accessor = getattr(pathlib, "_NormalAccessor", None)
    if accessor is None:
        return
    for name, value in list(vars(accessor).items()):
        try:
            replacement = stand_ins.get(value)
        except TypeError:  # unhashable class attribute
            continue
        if replacement is not None:
            setattr(accessor, name, replacement)


class _DirEntry:
    """os.DirEntry for a virtual directory; is_dir/is_file/is_symlink cost one `stat` each
    (cached, as a real DirEntry caches), since `list_dir` answers names only."""

    def __init__(self, vfs, parent_text, parent_sim, name):
        self._vfs = vfs
        self.name = os.fsencode(name) if isinstance(parent_text, bytes) else name
        self.path = os.path.join(parent_text, self.name)
        self._sim = parent_sim.rstrip("/") + "/" + name
        self._stat = {}

    def stat(self, *, follow_symlinks=True):
        key = bool(follow_symlinks)
        if key not in self._stat:
            self._stat[key] = self._vfs.stat_sim(self._sim, self.path, follow=key)
        return self._stat[key]

    def _mode_is(self, test, follow):
        try:
            return test(self.stat(follow_symlinks=follow).st_mode)
        except FileNotFoundError:
            return False

    def is_dir(self, *, follow_symlinks=True):
        return self._mode_is(stat_module.S_ISDIR, follow_symlinks)

    def is_file(self, *, follow_symlinks=True):
        return self._mode_is(stat_module.S_ISREG, follow_symlinks)

    def is_symlink(self):
        return self._mode_is(stat_module.S_ISLNK, False)

    def is_junction(self):
        return False

    def inode(self):
        return self.stat(follow_symlinks=False).st_ino

    def __fspath__(self):
        return self.path

    def __repr__(self):
        return f"<DirEntry {self.name!r}>"


class _ScandirIterator:
    def __init__(self, vfs, parent_text, parent_sim, names):
        self._entries = iter([_DirEntry(vfs, parent_text, parent_sim, n) for n in names])

    def __iter__(self):
        return self

    def __next__(self):
        return next(self._entries)

    def close(self):
        self._entries = iter(())

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
