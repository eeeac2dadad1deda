"""`python3 -m ckptsim_shim selftest`: the interposition, checked against an in-memory disk.

Contract: run() installs the virtual file system and the tripwire in this process over memfs
(no simulator, no socket), drives every routed path through pathlib, os, open, shutil and
tempfile, checks that each landed as the expected requests and that refusals are harness
errors, prints one line per check and returns 0 when all pass, 1 otherwise. It modifies the
process for good (stand-ins and an audit hook), so it runs in its own interpreter.
"""

import errno
import json
import os
import pathlib
import shutil
import tempfile

from . import tripwire
from .harness import HarnessError
from .memfs import FsError, MemoryFs
from .protocol import RequestError
from .vfs import Vfs
from .vpaths import Router

ROOT = "/ckptsim-vfs"


def _checks(disk):
    out = pathlib.Path(ROOT) / "run" / "output"

    def persist():
        out.mkdir(parents=True, exist_ok=True)
        temporary = out / ".state.json.tmp-1"
        with temporary.open("w", encoding="utf-8") as handle:
            json.dump({"a": 1}, handle)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, out / "state.json")
        assert not temporary.exists()
        assert json.loads((out / "state.json").read_text()) == {"a": 1}
        assert disk.read("/run/output/state.json") == b'{"a": 1}'

    def directories():
        (out / "checkpoint-5").mkdir()
        assert (out / "checkpoint-5").is_dir() and os.path.isdir(out / "checkpoint-5")
        assert sorted(os.listdir(out)) == ["checkpoint-5", "state.json"]
        assert sorted(e.name for e in os.scandir(out) if e.is_dir()) == ["checkpoint-5"]
        fd = os.open(out, os.O_RDONLY)
        os.fsync(fd)
        os.close(fd)
        assert disk.log[-1] == ("fsync_dir", {"path": "/run/output"})
        os.makedirs(out / "a" / "b", exist_ok=True)
        assert [w[0] for w in os.walk(out / "a")] == [f"{out}/a", f"{out}/a/b"]
        os.rmdir(out / "a" / "b")
        shutil.rmtree(out / "a")
        assert not (out / "a").exists()

    def symlinks():
        link = out / "final_checkpoint"
        os.symlink("checkpoint-5", link, target_is_directory=True)
        assert os.path.islink(link) and os.readlink(link) == "checkpoint-5"
        assert link.resolve() == out / "checkpoint-5"
        assert os.path.realpath(link) == str(out / "checkpoint-5")
        absolute = out / "absolute_link"
        os.symlink(out / "checkpoint-5", absolute)
        assert disk.log[-1][1]["target"] == "/run/output/checkpoint-5"
        assert os.readlink(absolute) == str(out / "checkpoint-5") and absolute.is_dir()
        os.unlink(absolute)
        assert not os.path.lexists(absolute)

    def errors():
        try:
            open(out / "missing.json")
        except FileNotFoundError as exc:
            assert exc.errno == errno.ENOENT and exc.filename == f"{out}/missing.json"
        else:
            raise AssertionError("no FileNotFoundError")
        try:
            os.mkdir(out)
        except FileExistsError:
            pass
        else:
            raise AssertionError("no FileExistsError")

    def modes():
        (out / "b.bin").write_bytes(bytes(range(256)))
        assert (out / "b.bin").read_bytes() == bytes(range(256)) and (out / "b.bin").stat().st_size == 256
        with open(out / "x.txt", "x") as handle:
            handle.write("ü\n")
        assert disk.read("/run/output/x.txt") == "ü\n".encode("utf-8")
        shutil.copyfile(out / "x.txt", out / "y.txt")
        assert disk.read("/run/output/y.txt") == "ü\n".encode("utf-8")
        directory = tempfile.mkdtemp(dir=out)
        assert os.path.isdir(directory)

    def refusals():
        for action in (lambda: os.chmod(out / "x.txt", 0o600), lambda: open(out / "x.txt", "a"),
                       lambda: open(out / "x.txt", "r+"), lambda: os.link(out / "x.txt", out / "z"),
                       lambda: os.truncate(out / "x.txt", 0), lambda: os.rename(out / "x.txt", "/tmp/x"),
                       lambda: __import__("posix").mkdir(f"{out}/bypass")):
            try:
                action()
            except HarnessError:
                continue
            raise AssertionError("a refused call was not a harness error")

    return [persist, directories, symlinks, errors, modes, refusals]


def run():
    disk = MemoryFs()

    def request(op, fields):
        try:
            return disk.handle(op, fields)
        except FsError as exc:
            raise RequestError(exc.errno, str(exc)) from None

    router = Router(ROOT)
    vfs = Vfs(router, request).install()
    tripwire.install(router, vfs.table)
    disk.handle("mkdir", {"path": "/run"})
    failed = 0
    for check in _checks(disk):
        try:
            check()
            print(f"ok   {check.__name__}")
        except (Exception, HarnessError) as exc:
            failed += 1
            print(f"FAIL {check.__name__}: {type(exc).__name__}: {exc}")
    try:
        vfs.originals["lstat"](ROOT)  # the real one: nothing may have reached the host
        failed += 1
        print(f"FAIL the real {ROOT} exists on this host")
    except FileNotFoundError:
        pass
    print("selftest " + ("passed" if failed == 0 else f"failed ({failed})"))
    return 0 if failed == 0 else 1
