"""Hands the descriptors of this process's shared regions to the processes that receive its tensors.

A pickled shared storage names its region by (device, inode) and this
process's server address, never by a descriptor: a receiver that already
maps the region (it received another tensor of the same arena) needs
nothing more, and one that does not asks once, over an abstract Unix
socket (no file, so nothing is left behind by a killed process), and gets
the descriptor by SCM_RIGHTS. So the descriptors a process holds grow with
its regions, not with the tensors it sends (torch's file_descriptor
strategy dups one per storage per message, pytorch#973).

Lifetime. Each region counts, in its own header (shared by every process
mapping it), the messages naming it that were sent and not yet received:
a sender adds one per message, a receiver takes one once it maps the bytes
(without asking anyone when it maps them already). While the count is
above zero the server keeps the region mapped, so a message stays
receivable after the sender's tensor is gone (a Queue's feeder thread
drops it once pickled); at zero it lets go, and the region goes when no
storage here uses it. A message that is never received (its receiver
died) keeps its region until this process exits. Only peers with this
process's user id are served.
"""
from __future__ import annotations

import os
import secrets
import socket
import struct
import threading

from .._ffi import ffi, lib, shim
from ..errors import check

_REQUEST = struct.Struct("=QQ")  # device, inode
_PEERCRED = struct.Struct("=iii")  # pid, uid, gid
_TIMEOUT_S = 60.0
_SWEEP_S = 1.0


class _Server:
    def __init__(self):
        self.address = f"\0pytensor-fd-{os.getpid()}-{secrets.token_hex(8)}"
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.bind(self.address)
        self.sock.listen(128)
        self.sock.settimeout(_SWEEP_S)  # the thread wakes up to let go of regions no message needs
        self.lock = threading.Lock()
        self.held = {}  # (device, inode) -> a storage over the region, keeping it mapped while messages name it
        threading.Thread(target=self._serve, name="pytensor-fd-server", daemon=True).start()

    def export(self, storage, device, inode):
        """Counts one more message naming storage's region and keeps the region until it is received."""
        count = ffi.new("int64_t *")
        check(lib.lt_storage_shared_in_flight_add(count, storage._ptr, 1))
        with self.lock:
            if (device, inode) not in self.held:  # a span of no bytes: holds the region, not the sender's storage
                self.held[(device, inode)] = shim.shm_receive(-1, device, inode, 0, 0, True)
            self._sweep()

    def _sweep(self):
        count = ffi.new("int64_t *")
        for key, storage in list(self.held.items()):
            if lib.lt_storage_shared_in_flight_add(count, storage._ptr, 0) != lib.LT_OK or count[0] <= 0:
                del self.held[key]

    def _serve(self):
        while True:
            try:
                conn, _ = self.sock.accept()
            except TimeoutError:
                with self.lock:
                    self._sweep()
                continue
            except OSError:
                return
            with conn:
                try:
                    self._answer(conn)
                except OSError:
                    pass  # the asker went away: it raises on its side

    def _answer(self, conn):
        conn.settimeout(_TIMEOUT_S)
        _, uid, _ = _PEERCRED.unpack(conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, _PEERCRED.size))
        if uid != os.getuid():
            return
        key = _REQUEST.unpack(_recv_exactly(conn, _REQUEST.size))
        with self.lock:
            storage = self.held.get(key)
            if storage is None:  # not held for a message: maybe still used here
                storage = shim.shm_receive(-1, key[0], key[1], 0, 0, True)
            fd, nbytes, offset = ffi.new("int *"), ffi.new("size_t *"), ffi.new("int64_t *")
            if storage is None or lib.lt_storage_shared_fd(fd, nbytes, offset, storage._ptr) != lib.LT_OK:
                conn.sendall(b"\0")
                return
            socket.send_fds(conn, [b"\1"], [fd[0]])


def _recv_exactly(conn, n):
    data = b""
    while len(data) < n:
        chunk = conn.recv(n - len(data))
        if not chunk:
            raise OSError("the peer closed the connection")
        data += chunk
    return data


_server = None
_server_lock = threading.Lock()


def server():
    """This process's server, started on first use."""
    global _server
    with _server_lock:
        if _server is None:
            _server = _Server()
        return _server


def _forget_in_child():
    # A forked child has no server thread and must not answer as its parent: it starts its own.
    global _server, _server_lock
    old, _server, _server_lock = _server, None, threading.Lock()
    if old is not None:
        old.sock.close()
        old.held.clear()


os.register_at_fork(after_in_child=_forget_in_child)


def fetch(address, device, inode):
    """The descriptor of region (device, inode) from the process serving at address (the caller closes it)."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(_TIMEOUT_S)
        try:
            sock.connect(address)
            sock.sendall(_REQUEST.pack(device, inode))
            msg, fds, _, _ = socket.recv_fds(sock, 1, 1)
        except OSError as e:
            raise RuntimeError(f"could not fetch a shared tensor's memory (region {device}:{inode}) from the process "
                               f"that sent it: {e}. The sender must stay alive until the tensor is received, "
                               "as with torch.multiprocessing") from e
    if msg != b"\1" or not fds:
        for fd in fds:
            os.close(fd)
        raise RuntimeError(f"the process that sent a shared tensor no longer holds its memory (region "
                           f"{device}:{inode}): no message named it any more and no storage there used it")
    for extra in fds[1:]:
        os.close(extra)
    return fds[0]
