"""Hands the descriptors of this process's shared regions to the processes that receive its tensors.

A pickled shared storage names its region by (device, inode) and this
process's server address, never by a descriptor: a receiver that already
maps the region (it received another tensor of the same arena) needs
nothing more, and one that does not asks once, over an abstract Unix
socket (no file, so nothing is left behind by a killed process), and gets
the descriptor by SCM_RIGHTS. So the descriptors a process holds grow with
its regions, not with the tensors it sends (torch's file_descriptor
strategy dups one per storage per message, pytorch#973).

Lifetime: the server keeps a duplicate of each region it has sent, so a
message stays receivable after the sender's tensor is gone (the queue's
feeder thread drops it once pickled). A duplicate is closed once some
process has fetched it since it was last sent and no storage of this
process uses the region any more. Only peers with this process's user id
are served.
"""
from __future__ import annotations

import os
import secrets
import socket
import struct
import threading

from .._ffi import shim

_REQUEST = struct.Struct("=QQ")  # device, inode
_PEERCRED = struct.Struct("=iii")  # pid, uid, gid
_TIMEOUT_S = 60.0


class _Server:
    def __init__(self):
        self.address = f"\0pytensor-fd-{os.getpid()}-{secrets.token_hex(8)}"
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.bind(self.address)
        self.sock.listen(128)
        self.lock = threading.Lock()
        self.exported = {}  # (device, inode) -> [duplicate descriptor, fetched since last sent]
        threading.Thread(target=self._serve, name="pytensor-fd-server", daemon=True).start()

    def export(self, device, inode, fd):
        """Keeps a duplicate of region (device, inode)'s descriptor fd until it is fetched and unused."""
        key = (device, inode)
        with self.lock:
            self._sweep()
            entry = self.exported.get(key)
            if entry is None:
                self.exported[key] = [os.dup(fd), False]
            else:
                entry[1] = False

    def _sweep(self):
        # A region no storage here uses any more: shm_receive(-1, ...) finds no mapping of it.
        for key, (fd, fetched) in list(self.exported.items()):
            if fetched and shim.shm_receive(-1, key[0], key[1], 0, 0, True) is None:
                os.close(fd)
                del self.exported[key]

    def _serve(self):
        while True:
            try:
                conn, _ = self.sock.accept()
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
        request = _recv_exactly(conn, _REQUEST.size)
        with self.lock:
            entry = self.exported.get(_REQUEST.unpack(request))
            if entry is None:
                conn.sendall(b"\0")
                return
            socket.send_fds(conn, [b"\1"], [entry[0]])
            entry[1] = True


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
        for fd, _ in old.exported.values():
            os.close(fd)


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
                           f"{device}:{inode}): it was already received and released there")
    for extra in fds[1:]:
        os.close(extra)
    return fds[0]
