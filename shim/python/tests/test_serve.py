"""The shim driven through `serve` by a fake simulator: handshake, file requests, errno, refusals,
protocol errors and the torch.distributed stand-in."""

import errno
import hashlib
import json
import os
import unittest

from fakesim import ARGS, CONTROL, FIXTURES, STATE, FakeSim

PROBE = "probe_callback:ProbeCallback"


class HandshakeTest(unittest.TestCase):
    def test_ready_names_class_overrides_and_sources(self):
        sim = FakeSim(PROBE)
        ready = sim.ready()
        self.assertEqual(ready["protocol"], 2)
        self.assertEqual(ready["class"], "ProbeCallback")
        self.assertEqual(ready["binding"], "ckptsim_shim.binding:Binding")
        self.assertEqual(ready["overrides"], ["on_step_end", "on_train_begin"])
        with open(os.path.join(FIXTURES, "probe_callback.py"), "rb") as handle:
            digest = hashlib.sha256(handle.read()).hexdigest()
        self.assertEqual(ready["sources"], {"probe_callback.py": "sha256:" + digest})
        self.assertEqual(sim.shutdown(), 0)

    def test_event_returns_control_and_export_state(self):
        sim = FakeSim(PROBE)
        sim.ready()
        end = sim.begin({"action": "nothing"})
        self.assertEqual(end["t"], "return")
        self.assertEqual(end["control"], dict(CONTROL, should_save=True))
        self.assertIsNone(end["policy_state"])
        # on_step_end returns None: the control it mutated is the one passed on.
        end = sim.call("on_step_end", state=dict(STATE, global_step=2), control=CONTROL)
        self.assertEqual(end["control"], dict(CONTROL, should_evaluate=True))
        exported = sim.call("export_state")
        self.assertEqual(exported["value"]["args"], {"action": "nothing", "output_dir": None})
        restored = sim.call("restore_state", saved=exported["value"])
        self.assertEqual(restored["t"], "return")
        self.assertEqual(sim.shutdown(), 0)


class AheadTest(unittest.TestCase):
    """Calls run ahead (protocol 2): in order, each with its own id and the time of the moment it
    is taken, until one changes its control."""

    @staticmethod
    def steps(*numbers):
        return [{"state": dict(STATE, global_step=n), "control": CONTROL} for n in numbers]

    def test_calls_run_ahead_until_one_changes_its_control(self):
        sim = FakeSim(PROBE)
        sim.ready()
        sim.begin({"action": "read_clock"})
        # ProbeCallback asks for an evaluation on even steps: step 4 changes its control, so step 9
        # never runs, and the next call is served as a new one.
        ends = sim.call_with_ahead("on_step_end", self.steps(3, 5, 4, 9), state=dict(STATE, global_step=1),
                                   control=CONTROL)
        self.assertEqual([end["t"] for end in ends], ["return"] * 4)
        self.assertEqual(ends[-1]["control"], dict(CONTROL, should_evaluate=True))
        first_id = ends[0]["id"]
        self.assertEqual([end["id"] for end in ends], [first_id, first_id + 1, first_id + 2, first_id + 3])
        exported = sim.call("export_state")["value"]["attributes"]["observed"]["steps_and_clock"]
        # Each call read the time of its own moment: the call's now_ms for the first, a clock
        # request for each one run ahead.
        first_ms = exported[0][1] * 1000
        self.assertEqual(exported, [[1, first_ms / 1000], [3, (first_ms + 1000) / 1000],
                                    [5, (first_ms + 2000) / 1000], [4, (first_ms + 3000) / 1000]])
        self.assertEqual([r["t"] for r in sim.requests], ["clock"] * 3)
        self.assertEqual(sim.shutdown(), 0)

    def test_a_calls_end_does_not_wait_for_the_calls_run_after_it(self):
        # The simulator times each call from its own wait: step 1's end must arrive while the call
        # run ahead after it (step 3) never ends.
        sim = FakeSim(PROBE)
        self.addCleanup(sim.process.kill)  # the spinning process must not outlive the test, pass or fail
        sim.ready()
        sim.begin({"action": "spin_at_step_3"})
        sim.send({"t": "call", "id": 50, "fn": "on_step_end", "now_ms": 1, "state": dict(STATE, global_step=1),
                  "control": CONTROL, "ahead": self.steps(3)})
        end = sim.receive()
        self.assertEqual((end["t"], end["id"]), ("return", 50))

    def test_a_malformed_ahead_is_a_harness_error(self):
        sim = FakeSim(PROBE)
        sim.ready()
        sim.begin({"action": "nothing"})
        sim.send({"t": "call", "id": 99, "fn": "on_step_end", "now_ms": 1, "state": STATE, "control": CONTROL,
                  "ahead": {"state": STATE}})
        message = sim.receive()
        self.assertEqual(message["t"], "harness_error")
        self.assertIn("ahead must be a list", message["message"])
        self.assertEqual(sim.wait(), 3)


class FileRequestsTest(unittest.TestCase):
    def test_atomic_persist_lands_as_requests(self):
        sim = FakeSim(PROBE)
        sim.ready()
        end = sim.begin({"action": "persist"})
        self.assertEqual(end["t"], "return", end)
        self.assertEqual(sim.ops(), ["mkdir", "stat", "write_file", "write_file", "fsync_file", "rename", "stat",
                                     "read_file"])
        temporary = sim.requests[2]["path"]
        self.assertRegex(temporary, r"^/run/output/\.sidecar\.json\.tmp-1016-[0-9a-f]{32}$")
        self.assertEqual(sim.requests[2]["data"], "")
        self.assertEqual(sim.requests[3], dict(sim.requests[3], path=temporary,
                                               data='{\n  "best": 0.5\n}\n'))
        self.assertEqual(sim.requests[5]["from"], temporary)
        self.assertEqual(sim.requests[5]["to"], "/run/output/sidecar.json")
        self.assertEqual(sim.requests[6], dict(sim.requests[6], path=temporary, follow=True))
        self.assertEqual(sim.disk.read("/run/output/sidecar.json"), b'{\n  "best": 0.5\n}\n')
        observed = sim.call("export_state")["value"]["attributes"]["observed"]
        self.assertEqual(observed["read_back"], {"best": 0.5})
        self.assertEqual(sim.shutdown(), 0)

    def test_pathlib_and_symlinks(self):
        sim = FakeSim(PROBE)
        sim.ready()
        self.assertEqual(sim.begin({"action": "pathlib"})["t"], "return")
        observed = sim.call("export_state")["value"]["attributes"]["observed"]
        self.assertEqual(observed, {"exists": True, "is_dir": True, "islink": True, "missing": False,
                                    "resolved": "/ckptsim-vfs/run/output/checkpoint-10",
                                    "realpath": "/ckptsim-vfs/run/output/checkpoint-10",
                                    "listing": ["checkpoint-10", "final_checkpoint"]})
        symlink = [r for r in sim.requests if r["op"] == "symlink"][0]
        self.assertEqual((symlink["target"], symlink["path"]), ("checkpoint-10", "/run/output/.final.tmp"))
        self.assertEqual(sim.shutdown(), 0)

    def test_injected_errno_is_a_real_oserror(self):
        sim = FakeSim(PROBE)
        sim.ready()
        sim.inject[("write_file", "/run/output/big.bin")] = errno.ENOSPC
        self.assertEqual(sim.begin({"action": "write_catching"})["t"], "return")
        observed = sim.call("export_state")["value"]["attributes"]["observed"]
        self.assertEqual(observed, {"errno": errno.ENOSPC, "type": "OSError"})
        self.assertEqual(sim.shutdown(), 0)

    def test_missing_file_raises_file_not_found_in_the_call(self):
        sim = FakeSim(PROBE)
        sim.ready()
        end = sim.begin({"action": "read_missing"})
        self.assertEqual((end["t"], end["type"], end["kind"]), ("raise", "FileNotFoundError", "other"))
        self.assertIn("No such file or directory: '/ckptsim-vfs/run/output/missing.json'", end["message"])
        self.assertEqual(sim.shutdown(), 0)


class RefusalTest(unittest.TestCase):
    def expect_harness_error(self, action, fragment, **sim_options):
        sim = FakeSim(PROBE, **sim_options)
        sim.ready()
        end = sim.begin({"action": action})
        self.assertEqual(end["t"], "harness_error", end)
        self.assertIn(fragment, end["message"])
        self.assertEqual(sim.wait(), 3)
        return end

    def test_real_write_under_the_virtual_root(self):
        self.expect_harness_error("real_bypass", "real os.mkdir on '/ckptsim-vfs/run/output/bypass' bypassed")

    def test_chmod_is_outside_the_surface(self):
        self.expect_harness_error("chmod", "os.chmod on '/ckptsim-vfs/run/output' is outside the simulated surface")

    def test_a_bare_except_cannot_swallow_a_refusal(self):
        self.expect_harness_error("swallow", "os.chmod")

    def test_append_mode(self):
        self.expect_harness_error("append", "append and update")

    def test_thread_start(self):
        end = self.expect_harness_error("thread", "threading.Thread.start")
        self.assertIn("do_thread", end["traceback"])

    def test_unknown_torch_distributed_function(self):
        self.expect_harness_error("torch_missing", "torch.distributed.all_reduce is not simulated")

    def test_missing_transformers_name_is_an_import_error_naming_it(self):
        sim = FakeSim(PROBE)
        sim.ready()
        end = sim.begin({"action": "import_missing"})
        self.assertEqual((end["t"], end["type"]), ("raise", "ImportError"))
        self.assertIn("transformers.Trainer is not simulated", end["message"])
        self.assertEqual(sim.shutdown(), 0)

    def test_virtual_io_at_import_time(self):
        sim = FakeSim("import_time_io:ImportTimeCallback")
        end = sim.receive()
        self.assertEqual(end["t"], "harness_error")
        self.assertIn("outside a call", end["message"])
        self.assertEqual(sim.wait(), 3)

    def test_hash_seed_required(self):
        sim = FakeSim(PROBE, env={"PYTHONHASHSEED": None})
        end = sim.receive()
        self.assertEqual(end["t"], "harness_error")
        self.assertIn("PYTHONHASHSEED", end["message"])
        self.assertEqual(sim.wait(), 3)


class ProtocolErrorTest(unittest.TestCase):
    def test_garbage_line_exits_nonzero(self):
        sim = FakeSim(PROBE)
        sim.ready()
        sim.send_raw(b"this is not json\n")
        end = sim.receive()
        self.assertEqual(end["t"], "harness_error")
        self.assertIn("malformed line", end["message"])
        self.assertNotEqual(sim.wait(), 0)

    def test_unknown_message_type(self):
        sim = FakeSim(PROBE)
        sim.ready()
        sim.send({"t": "bogus"})
        self.assertEqual(sim.receive()["t"], "harness_error")
        self.assertNotEqual(sim.wait(), 0)

    def test_end_of_file_exits_nonzero(self):
        sim = FakeSim(PROBE)
        sim.ready()
        sim.sock.shutdown(2)
        self.assertNotEqual(sim.wait(), 0)

    def test_malformed_call_fields(self):
        sim = FakeSim(PROBE)
        sim.ready()
        end = sim.call("on_train_begin", args=dict(ARGS, surprise=1), state=STATE, control=CONTROL)
        self.assertEqual(end["t"], "harness_error")
        self.assertIn("surprise", end["message"])
        self.assertNotEqual(sim.wait(), 0)


class DeterminismTest(unittest.TestCase):
    def observe(self, stream):
        sim = FakeSim(PROBE, stream=stream, rank=1, world_size=2, incarnation=2)
        sim.ready()
        self.assertEqual(sim.begin({"action": "random"})["t"], "return")
        observed = sim.call("export_state")["value"]["attributes"]["observed"]
        self.assertEqual(sim.shutdown(), 0)
        return observed

    def test_same_stream_same_values(self):
        first, second, other = self.observe(11), self.observe(11), self.observe(12)
        self.assertEqual(first, second)
        self.assertNotEqual(first["uuids"], other["uuids"])
        self.assertEqual(first["pid"], 1000 + 16 * 2 + 1)
        self.assertEqual(first["time"], 1_700_000_000 + 2.0)  # now_ms of the on_train_begin call
        self.assertEqual(first["monotonic"], 2.0)


class DistributedTest(unittest.TestCase):
    def test_rank_zero_sends_its_list(self):
        sim = FakeSim(PROBE, rank=0, world_size=2)
        sim.ready()
        self.assertEqual(sim.begin({"action": "broadcast"})["t"], "return")
        broadcast, barrier = sim.requests
        self.assertEqual(broadcast["op"], "broadcast")
        self.assertEqual(broadcast["src"], 0)
        self.assertEqual(broadcast["value"][0], {"rank": 0})
        self.assertEqual(list(broadcast["value"][1]), ["__pickle_b64__"])  # a tuple is not JSON
        self.assertEqual(barrier["op"], "barrier")
        self.assertEqual(sim.shutdown(), 0)

    def test_other_rank_receives(self):
        sim = FakeSim(PROBE, rank=1, world_size=2)
        sim.ready()
        sim.broadcasts.append([{"rank": 0}, "from zero"])
        self.assertEqual(sim.begin({"action": "broadcast"})["t"], "return")
        self.assertIsNone(sim.requests[0]["value"])
        observed = sim.call("export_state")["value"]["attributes"]["observed"]
        self.assertEqual(observed, {"initialized": True, "payload": "[{'rank': 0}, 'from zero']"})
        self.assertEqual(sim.shutdown(), 0)

    def test_world_of_one_is_not_initialized(self):
        sim = FakeSim(PROBE)
        sim.ready()
        end = sim.begin({"action": "broadcast"})
        self.assertEqual((end["t"], end["type"]), ("raise", "RuntimeError"))
        self.assertIn("not been initialized", end["message"])
        self.assertEqual(sim.requests, [])
        self.assertEqual(sim.shutdown(), 0)


if __name__ == "__main__":
    unittest.main()
