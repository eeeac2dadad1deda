"""ckptsim_shim: runs a user's unmodified Python callback inside the ckptsim simulator.

Contract: stdlib only, Python >= 3.10. `python3 -m ckptsim_shim serve ...` speaks protocol 2 of
docs/callback-protocol.md on the fd named by CKPTSIM_FD; every file operation under the virtual
root and every torch.distributed collective becomes a request the simulator answers.
"""

SHIM_VERSION = "0.1.0"
PROTOCOL_VERSION = 2
