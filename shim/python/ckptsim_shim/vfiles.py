"""Virtual file descriptors and file objects: the whole-file model.

Contract:
- A virtual fd is a number >= 2**30, never a real one. Kinds: "read" (the content is read with
  one `read_file`, then served from memory), "write" (created or truncated with
  `write_file(path, "")`; every write(2)-level write sends `write_file(path, whole content)`),
  "dir" (an fd on a directory, for fsync_dir and listdir).
- Python's own buffering sits on top, unchanged: `open()` builds io.BufferedWriter/BufferedReader
  and io.TextIOWrapper over VirtualRawFile, so "data reaches the simulator" happens exactly when
  it would reach write(2) for a real file (flush, close, a full buffer).
- fsync(fd) sends `fsync_file` (`fsync_dir` for a directory fd). It does not flush Python's
  buffer, as a real fsync cannot: a callback that forgets flush() before fsync() is simulated
  with its bug.
- Append, update ("+"), writing into an existing file without truncation, seeking a writer away
  from its end, truncate and the like are harness errors: the whole-file model cannot answer them.
"""

import errno
import io
import os

from . import harness
from .vpaths import make_stat

VFD_BASE = 1 << 30


class VirtualFd:
    def __init__(self, kind, user_path, sim_path, content=None, may_write=True):
        self.kind = kind
        self.user_path = user_path
        self.sim_path = sim_path
        self.content = content  # bytes (read, None until read), bytearray (write), None (dir)
        self.position = 0
        self.may_write = may_write


class FileTable:
    """The open virtual fds of this process. `backend.fs(op, user_path, **fields)` makes one
    request and raises OSError (with the user's path) for an `err` answer."""

    def __init__(self, backend):
        self._backend = backend
        self._fds = {}
        self._next = VFD_BASE

    def is_virtual(self, fd):
        return isinstance(fd, int) and fd in self._fds

    def _get(self, fd, what):
        entry = self._fds.get(fd)
        if entry is None:
            raise OSError(errno.EBADF, os.strerror(errno.EBADF) + f" (virtual fd {fd} in {what})")
        return entry

    def _add(self, entry):
        fd = self._next
        self._next += 1
        self._fds[fd] = entry
        return fd

    # ---- opening ---------------------------------------------------------------------------

    def open(self, user_path, sim_path, flags, eager_read=False):
        """os.open's flags on a virtual path. `eager_read` (io.open) reads at once, so a missing
        file or a directory fails at open with one `read_file`, as Python's open does."""
        access = flags & (os.O_RDONLY | os.O_WRONLY | os.O_RDWR)
        refused = flags & (os.O_APPEND | getattr(os, "O_TMPFILE", 0) | getattr(os, "O_PATH", 0))
        if access == os.O_RDWR or refused:
            harness.fail(f"os.open({user_path!r}) with flags {flags:#o}: read-write, append, O_TMPFILE and "
                         "O_PATH are not simulated (the simulated disk has whole-file writes only)")
        if access == os.O_RDONLY:
            if flags & (os.O_CREAT | os.O_TRUNC):
                harness.fail(f"os.open({user_path!r}): O_CREAT/O_TRUNC on a read-only open are not simulated")
            if eager_read:
                data = self._read_all(user_path, sim_path)
                return self._add(VirtualFd("read", user_path, sim_path, data))
            info = self._backend.fs("stat", user_path, path=sim_path, follow=True)
            if info["kind"] == "dir":
                return self._add(VirtualFd("dir", user_path, sim_path))
            if flags & getattr(os, "O_DIRECTORY", 0):
                raise OSError(errno.ENOTDIR, os.strerror(errno.ENOTDIR), user_path)
            return self._add(VirtualFd("read", user_path, sim_path))
        # Write only.
        exists = None
        if flags & os.O_EXCL or not flags & os.O_TRUNC:
            exists = self._exists(user_path, sim_path, follow=not flags & os.O_EXCL)
        if flags & os.O_EXCL and flags & os.O_CREAT and exists:
            raise OSError(errno.EEXIST, os.strerror(errno.EEXIST), user_path)
        if exists and not flags & os.O_TRUNC:
            # touch(): the entry is opened but any write would be an in-place overwrite.
            return self._add(VirtualFd("write", user_path, sim_path, bytearray(), may_write=False))
        if exists is False and not flags & os.O_CREAT:
            raise OSError(errno.ENOENT, os.strerror(errno.ENOENT), user_path)
        self._backend.fs("write_file", user_path, path=sim_path, data="")
        return self._add(VirtualFd("write", user_path, sim_path, bytearray()))

    def _exists(self, user_path, sim_path, follow):
        try:
            self._backend.fs("stat", user_path, path=sim_path, follow=follow)
        except FileNotFoundError:
            return False
        return True

    def _read_all(self, user_path, sim_path):
        value = self._backend.fs("read_file", user_path, path=sim_path)
        data = value.get("data") if isinstance(value, dict) else None
        if not isinstance(data, str):
            harness.fail(f"protocol: read_file of {sim_path} answered without a string data: {value!r}")
        try:
            return data.encode("latin-1")
        except UnicodeEncodeError:
            harness.fail(f"protocol: read_file of {sim_path} has a code point above U+00FF")

    # ---- fd operations ---------------------------------------------------------------------

    def close(self, fd):
        self._get(fd, "os.close")
        del self._fds[fd]

    def read(self, fd, size):
        entry = self._get(fd, "os.read")
        if entry.kind == "dir":
            raise OSError(errno.EISDIR, os.strerror(errno.EISDIR), entry.user_path)
        if entry.kind != "read":
            raise OSError(errno.EBADF, os.strerror(errno.EBADF))
        if entry.content is None:
            entry.content = self._read_all(entry.user_path, entry.sim_path)
        if size < 0:
            size = len(entry.content) - entry.position
        chunk = entry.content[entry.position: entry.position + size]
        entry.position += len(chunk)
        return bytes(chunk)

    def write(self, fd, data):
        entry = self._get(fd, "os.write")
        if entry.kind != "write":
            raise OSError(errno.EBADF, os.strerror(errno.EBADF))
        if not entry.may_write:
            harness.fail(f"write into the existing file {entry.user_path!r} opened without O_TRUNC: "
                         "in-place overwrite is not simulated (whole-file model)")
        data = bytes(data)
        if not data:
            return 0
        previous = len(entry.content)
        entry.content += data
        try:
            self._backend.fs("write_file", entry.user_path, path=entry.sim_path,
                             data=entry.content.decode("latin-1"))
        except OSError:
            # As if write(2) wrote nothing; the next write sends the whole content again.
            del entry.content[previous:]
            raise
        entry.position = len(entry.content)
        return len(data)

    def fsync(self, fd):
        entry = self._get(fd, "os.fsync")
        op = "fsync_dir" if entry.kind == "dir" else "fsync_file"
        self._backend.fs(op, entry.user_path, path=entry.sim_path)

    def fstat(self, fd):
        entry = self._get(fd, "os.fstat")
        if entry.kind == "write":
            return make_stat("file", len(entry.content), entry.sim_path)
        if entry.kind == "read" and entry.content is not None:
            return make_stat("file", len(entry.content), entry.sim_path)
        info = self._backend.fs("stat", entry.user_path, path=entry.sim_path, follow=True)
        return make_stat(info["kind"], info["size"], entry.sim_path)

    def lseek(self, fd, position, how):
        entry = self._get(fd, "os.lseek")
        if entry.kind == "dir":
            return 0
        if entry.kind == "read":
            if entry.content is None:
                entry.content = self._read_all(entry.user_path, entry.sim_path)
            base = {os.SEEK_SET: 0, os.SEEK_CUR: entry.position, os.SEEK_END: len(entry.content)}.get(how)
            if base is None or base + position < 0:
                raise OSError(errno.EINVAL, os.strerror(errno.EINVAL), entry.user_path)
            entry.position = base + position
            return entry.position
        end = len(entry.content)
        target = {os.SEEK_SET: position, os.SEEK_CUR: end + position, os.SEEK_END: end + position}.get(how)
        if target != end:
            harness.fail(f"seek to {position} (whence {how}) in {entry.user_path!r} opened for writing: "
                         "seek-then-write is not simulated (whole-file model)")
        return end

    def entry(self, fd):
        return self._get(fd, "a virtual fd operation")


class VirtualRawFile(io.RawIOBase):
    """The raw layer of a virtual file, over one virtual fd (FileIO's place in Python's stack)."""

    def __init__(self, table, fd, name, mode, closefd=True):
        super().__init__()
        self._table = table
        self._fd = fd
        self._closefd = closefd
        self._kind = table.entry(fd).kind
        self.name = name
        self.mode = mode

    def readable(self):
        return self._kind == "read"

    def writable(self):
        return self._kind == "write"

    def seekable(self):
        return True

    def fileno(self):
        return self._fd

    def isatty(self):
        return False

    def readinto(self, buffer):
        data = self._table.read(self._fd, len(buffer))
        buffer[: len(data)] = data
        return len(data)

    def write(self, data):
        return self._table.write(self._fd, data)

    def seek(self, position, whence=os.SEEK_SET):
        return self._table.lseek(self._fd, position, whence)

    def tell(self):
        return self._table.lseek(self._fd, 0, os.SEEK_CUR)

    def truncate(self, size=None):
        harness.fail(f"truncate on {self.name!r} is not simulated (whole-file model)")

    def close(self):
        if self.closed:
            return
        try:
            super().close()
        finally:
            if self._closefd and self._table.is_virtual(self._fd):
                self._table.close(self._fd)

    def __repr__(self):
        return f"<ckptsim_shim virtual file {self.name!r} mode={self.mode!r}>"


def parse_open_mode(mode):
    """io.open's validation of `mode`, with the same messages; returns (kind, binary)."""
    if not isinstance(mode, str):
        raise TypeError(f"invalid mode: {mode!r}")
    modes = set(mode)
    if modes - set("axrwb+t") or len(mode) > len(modes):
        raise ValueError(f"invalid mode: {mode!r}")
    kinds = [k for k in "xrwa" if k in modes]
    if "t" in modes and "b" in modes:
        raise ValueError("can't have text and binary mode at once")
    if len(kinds) != 1:
        raise ValueError("must have exactly one of create/read/write/append mode")
    return kinds[0], "+" in modes, "b" in modes


def open_file(table, file, user_path, sim_path, mode="r", buffering=-1, encoding=None, errors=None,
              newline=None, closefd=True, opener=None):
    """io.open for a virtual path (sim_path set) or an already open virtual fd (`file` an int)."""
    kind, update, binary = parse_open_mode(mode)
    if binary and encoding is not None:
        raise ValueError("binary mode doesn't take an encoding argument")
    if binary and errors is not None:
        raise ValueError("binary mode doesn't take an errors argument")
    if binary and newline is not None:
        raise ValueError("binary mode doesn't take a newline argument")
    if kind == "a" or update:
        harness.fail(f"open({user_path!r}, {mode!r}): append and update ('+') modes are not simulated "
                     "(the simulated disk has whole-file writes only)")
    if isinstance(file, int):
        fd = file
    else:
        if not closefd:
            raise ValueError("Cannot use closefd=False with file name")
        flags = {"r": os.O_RDONLY, "w": os.O_WRONLY | os.O_CREAT | os.O_TRUNC,
                 "x": os.O_WRONLY | os.O_CREAT | os.O_EXCL}[kind] | getattr(os, "O_CLOEXEC", 0)
        if opener is None:
            fd = table.open(user_path, sim_path, flags, eager_read=True)
        else:
            fd = opener(file, flags)
            if not table.is_virtual(fd):
                harness.fail(f"open({user_path!r}) with an opener that returned a real fd {fd!r} "
                             "for a virtual path")
    entry = table.entry(fd)
    if entry.kind == "dir":
        raise OSError(errno.EISDIR, os.strerror(errno.EISDIR), user_path)
    if (entry.kind == "read") != (kind == "r"):
        raise OSError(errno.EBADF, f"virtual fd {fd} is not open for mode {mode!r}", user_path)
    raw = VirtualRawFile(table, fd, user_path if isinstance(user_path, (str, bytes)) else fd,
                         "rb" if kind == "r" else kind + "b", closefd)
    line_buffering = False
    if buffering == 1 or (buffering < 0 and raw.isatty()):
        buffering, line_buffering = -1, True
    if buffering < 0:
        buffering = io.DEFAULT_BUFFER_SIZE
    if buffering == 0:
        if binary:
            return raw
        raise ValueError("can't have unbuffered text I/O")
    buffer = io.BufferedReader(raw, buffering) if kind == "r" else io.BufferedWriter(raw, buffering)
    if binary:
        return buffer
    text = io.TextIOWrapper(buffer, encoding, errors, newline, line_buffering)
    text.mode = mode
    return text
