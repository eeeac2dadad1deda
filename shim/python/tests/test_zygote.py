"""`serve` as a zygote (CKPTSIM_ZYGOTE=1, ckptsim_shim/zygote.py): a forked child answers exactly
as a cold process with the same identity; the zygote outlives a child's SIGKILL, gives each child
fresh module state, and ends with status 0 at end of file on its control socket."""

import errno
import os
import socket
import time
import unittest

from fakesim import ARGS, CONTROL, FIXTURES, STATE, FakeSim, Zygote

PROBE = "probe_callback:ProbeCallback"
IDENTITY = {"rank": 1, "world_size": 2, "incarnation": 3, "stream": 12345678901234567}


def scripted_session(sim):
    """A session touching every seeded source, the file requests, a collective, an injected
    errno and a raise; returns the full transcript (every message the shim sent)."""
    sim.ready()
    sim.broadcasts.append([{"rank": 0}, "from zero"])
    for action in ("random", "persist", "broadcast", "random", "count", "count"):
        assert sim.call("construct", kwargs={"action": action})["t"] == "return"
        sim.call("on_train_begin", args=ARGS, state=STATE, control=CONTROL)
        sim.call("export_state")
    sim.inject[("write_file", "/run/output/big.bin")] = errno.ENOSPC
    sim.call("construct", kwargs={"action": "write_catching"})
    sim.call("on_train_begin", args=ARGS, state=STATE, control=CONTROL)
    sim.call("construct", kwargs={"action": "read_missing"})
    sim.call("on_train_begin", args=ARGS, state=STATE, control=CONTROL)
    sim.call("on_step_end", state=dict(STATE, global_step=2), control=CONTROL)
    sim.call("pending_save_step")  # the default binding refuses: a harness error ends the session
    return sim.transcript


class ZygoteTest(unittest.TestCase):
    def setUp(self):
        self.zygote = Zygote(PROBE)
        self.addCleanup(self.zygote.kill)
        self.zygote.ready()

    def test_a_child_answers_as_a_cold_process(self):
        cold = FakeSim(PROBE, **IDENTITY)
        cold_transcript = scripted_session(cold)
        self.assertEqual(cold.wait(), 3)  # the final harness error
        child = self.zygote.spawn(**IDENTITY)
        child_transcript = scripted_session(child)
        child.wait()
        self.assertEqual(len(child_transcript), len(cold_transcript))
        for index, (got, expected) in enumerate(zip(child_transcript, cold_transcript)):
            self.assertEqual(got, expected, f"message {index}")
        # The script did reach what it claims to cover.
        kinds = [m["t"] for m in cold_transcript]
        self.assertEqual(kinds[0], "ready")
        self.assertIn("probe_callback.py", cold_transcript[0]["sources"])
        self.assertEqual(kinds[-1], "harness_error")
        observed = [m["value"]["attributes"]["observed"] for m in cold_transcript
                    if m["t"] == "return" and isinstance(m.get("value"), dict) and "attributes" in m["value"]]
        first = observed[0]
        self.assertEqual(first["pid"], 1000 + 16 * 3 + 1)
        self.assertEqual(first["world"], [1, 2])
        self.assertEqual(first["env"], {"CKPTSIM_RANK": "1", "CKPTSIM_WORLD_SIZE": "2", "CKPTSIM_INCARNATION": "3",
                                        "CKPTSIM_STREAM": str(IDENTITY["stream"]), "CKPTSIM_ZYGOTE": None})
        self.assertNotEqual(observed[0]["uuids"], observed[3]["uuids"])  # the streams advanced
        self.assertEqual([o.get("calls") for o in observed[4:]], [1, 2])
        self.assertTrue(any(m["t"] == "fs" and m["op"] == "write_file" for m in cold_transcript))
        self.assertTrue(any(m["t"] == "coll" and m["op"] == "broadcast" for m in cold_transcript))
        self.assertTrue(any(m["t"] == "raise" and m["type"] == "FileNotFoundError" for m in cold_transcript))

    def test_children_differ_by_identity_and_print_to_their_own_pipe(self):
        first = self.zygote.spawn(rank=0, world_size=2, incarnation=1, stream=5)
        second = self.zygote.spawn(rank=1, world_size=2, incarnation=1, stream=6)  # both alive at once
        values = []
        for child in (first, second):
            child.ready()
            self.assertEqual(child.begin({"action": "random"})["t"], "return")
            values.append(child.call("export_state")["value"]["attributes"]["observed"])
        self.assertEqual([v["pid"] for v in values], [1016, 1017])
        self.assertNotEqual(values[0]["uuids"], values[1]["uuids"])
        for child in (first, second):
            self.assertEqual(os.getpgid(child.pid), child.pid)
            child.send({"t": "shutdown"})
            child.wait()
            self.assertEqual(child.log(), "")

    def test_the_zygote_survives_a_child_killed_mid_call(self):
        victim = self.zygote.spawn(**IDENTITY)
        victim.ready()
        victim.call("construct", kwargs={"action": "persist"})
        victim.now_ms += 1000
        victim.send({"t": "call", "id": 99, "fn": "on_train_begin", "now_ms": victim.now_ms, "args": ARGS,
                     "state": STATE, "control": CONTROL})
        request = victim.receive()
        self.assertEqual((request["t"], request["op"]), ("fs", "mkdir"))  # left unanswered
        self.assertEqual(os.getpgid(victim.pid), victim.pid)  # its own group: ckptsim kills the group
        victim.kill_group()
        victim.wait()  # the pid vanishes: the zygote's SIGCHLD is SIG_IGN, no zombie is left
        self.assertIsNone(self.zygote.process.poll())
        child = self.zygote.spawn(**IDENTITY)
        child.ready()
        self.assertEqual(child.begin({"action": "persist"})["t"], "return")
        self.assertEqual(child.ops()[0], "mkdir")
        child.send({"t": "shutdown"})
        child.wait()

    def test_each_child_starts_from_the_module_state_of_the_import(self):
        counts = []
        for _ in range(2):
            child = self.zygote.spawn()
            child.ready()
            for _ in range(2):
                child.call("construct", kwargs={"action": "count"})
                child.call("on_train_begin", args=ARGS, state=STATE, control=CONTROL)
                counts.append(child.call("export_state")["value"]["attributes"]["observed"]["calls"])
            child.send({"t": "shutdown"})
            child.wait()
        self.assertEqual(counts, [1, 2, 1, 2])

    def test_end_of_file_ends_the_zygote_with_status_0(self):
        child = self.zygote.spawn()
        child.ready()
        self.assertEqual(self.zygote.close(), 0)
        # A live child outlives its zygote and still serves.
        self.assertEqual(child.begin({"action": "nothing"})["t"], "return")
        child.send({"t": "shutdown"})
        child.wait()

    def test_a_line_without_descriptors_is_a_harness_error(self):
        self.zygote.send_line({"t": "spawn", "rank": 0, "world_size": 1, "incarnation": 1, "stream": 1})
        end = self.zygote.receive()
        self.assertEqual(end["t"], "harness_error")
        self.assertIn("0 descriptors", end["message"])
        self.assertEqual(self.zygote.process.wait(timeout=15), 3)

    def test_a_malformed_spawn_closes_its_descriptors_and_is_a_harness_error(self):
        ours, theirs = socket.socketpair()
        self.zygote.send_line({"t": "spawn", "rank": "zero", "world_size": 1, "incarnation": 1, "stream": 1},
                              fds=(theirs.fileno(), theirs.fileno()))
        theirs.close()
        end = self.zygote.receive()
        self.assertEqual(end["t"], "harness_error")
        self.assertIn("integer rank", end["message"])
        self.assertEqual(self.zygote.process.wait(timeout=15), 3)
        ours.settimeout(15)
        self.assertEqual(ours.recv(1), b"")  # no copy of the channel survives anywhere
        ours.close()

    def test_a_bad_identity_is_the_childs_harness_error_as_in_a_cold_process(self):
        child = self.zygote.spawn(rank=2, world_size=2)
        end = child.receive()
        self.assertEqual(end["t"], "harness_error")
        self.assertIn("CKPTSIM_RANK 2 outside a world of 2", end["message"])
        child.wait()
        child = self.zygote.spawn()
        self.assertEqual(child.ready()["class"], "ProbeCallback")
        self.assertEqual(child.shutdown(), None)


class ZygoteSetupTest(unittest.TestCase):
    def test_no_identity_needed_and_spawning_is_fast(self):
        zygote = Zygote(PROBE)
        self.addCleanup(zygote.kill)
        zygote.ready()
        started = time.monotonic()
        child = zygote.spawn()
        child.ready()
        elapsed = time.monotonic() - started
        child.send({"t": "shutdown"})
        child.wait()
        self.assertLess(elapsed, 2.0)  # a fork, not an interpreter start (typically ~5 ms)

    def test_an_import_failure_is_reported_on_the_control_socket(self):
        zygote = Zygote("no_such_module:Nothing")
        self.addCleanup(zygote.kill)
        end = zygote.receive()
        self.assertEqual(end["t"], "harness_error")
        self.assertIn("No module named 'no_such_module'", end["message"])
        self.assertEqual(zygote.process.wait(timeout=15), 3)

    def test_io_at_import_time_is_refused_in_the_zygote_too(self):
        zygote = Zygote("import_time_io:ImportTimeCallback")
        self.addCleanup(zygote.kill)
        end = zygote.receive()
        self.assertEqual(end["t"], "harness_error")
        self.assertIn("outside a call", end["message"])
        self.assertEqual(zygote.process.wait(timeout=15), 3)
        self.assertTrue(os.path.isdir(FIXTURES))


if __name__ == "__main__":
    unittest.main()
