"""Child-process bodies for tests/interop/test_multiprocessing.py.

They live in their own module, importable by name from tests/ (pytest's
pythonpath), because spawn and forkserver children import the function they
run, and test modules under --import-mode=importlib are not importable.
"""
TIMEOUT_S = 120


def child_write_and_return(q_in, q_out):
    t = q_in.get(timeout=TIMEOUT_S)
    t[1] = 99  # in place, in the child
    q_out.put((t, tuple(t.untyped_storage().identity()), t.is_shared()))


def child_views(q_in, q_out):
    x, y, z = q_in.get(timeout=TIMEOUT_S)  # one message
    w = q_in.get(timeout=TIMEOUT_S)  # another message, a view of the same storage
    s = x.untyped_storage()
    q_out.put((y.untyped_storage() is s, z.untyped_storage() is s, w.untyped_storage() is s,
               y.storage_offset(), z.stride(), w.tolist()))


def child_arg(t, done):
    t.fill_(5)
    done.set()


def child_describe(q_in, q_out):
    t = q_in.get(timeout=TIMEOUT_S)
    s = t.untyped_storage()
    ident = s.identity()
    q_out.put((s.provenance, s.mapped_file, s.is_readonly(), tuple(ident) if ident else None, t.tolist()))
    t_writable = not s.is_readonly()
    if t_writable:
        t[0] = 77
    q_out.put(t_writable)


def child_echo_counting_descriptors(q_in, q_out):
    import os
    while (t := q_in.get(timeout=TIMEOUT_S)) is not None:
        q_out.put(t)
        del t
        q_out.put(len(os.listdir("/proc/self/fd")))


def child_pipe_write(conn):
    t = conn.recv()
    t.fill_(3)
    conn.send(t.is_shared())
