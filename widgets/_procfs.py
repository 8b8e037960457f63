"""Reading /proc for the inspector's processes strip (``_processes.py`` says what it is for).

Only processes of this user can be read; nothing here needs privileges. The
maps and smaps files are text; pagemap is binary, one little-endian 64-bit
entry per virtual page, of which only the flag bits are read (frame numbers
are zeroed for unprivileged readers, so nothing relies on them). Every read
is counted and bounded by ``Scan``: at most ``MAX_PIDS`` maps files,
``MAX_MAPS_LINES`` of their lines and ``PICTURE_PAGES`` pagemap entries a
picture, over every process; what a bound left out is kept in words.

Python, not libtensor: the questions are about addresses (a list's objects are
no storage), most of the work is parsing the kernel's text, and pagemap's flag
bytes are classified with ``bytes.translate``, so C would add a binding and no speed.
"""
from __future__ import annotations

import bisect
import mmap
import os

__all__ = ["Scan", "PAGE", "MAX_PIDS", "MAX_STATS", "MAX_MAPS_LINES", "PICTURE_PAGES"]

MAX_PIDS = 256            # /proc/PID/maps files one picture reads
MAX_STATS = 8192          # /proc/PID/stat files one picture reads to find this process's parent and descendants
MAX_MAPS_LINES = 200_000  # lines of maps one picture parses, over every process
PICTURE_PAGES = 1 << 20   # pagemap entries one picture reads, over every process (8 MiB of entries)
_CHUNK = 4096             # pagemap entries per read
PAGE = mmap.PAGESIZE


class Scan:
    """One picture's reading of /proc, with its counts (units a test can count, never seconds)."""

    def __init__(self):
        self.maps_read = 0       # maps files read
        self.maps_lines = 0      # their lines parsed
        self.pages_read = 0      # pagemap entries read, over every process
        self.smaps_read = 0      # smaps files read
        self.stats_read = 0      # stat files read to find the family
        self.bytes_digested = 0  # bytes of shared mappings read to say which pages were written (_written.py)
        self.left_out = set()    # what the bounds left out, in words
        self._maps = {}
        self._family = None
        self._candidates = None
        self._smaps = {}
        self._fds = {}
        self._starts = {}
        self._files = {}
        self._comms = {}

    def maps(self, pid):
        """``pid``'s mappings as ``(start, end, perms, offset, device, inode)``, or None when unreadable."""
        if pid not in self._maps:
            self._maps[pid] = self._read_maps(pid)
        return self._maps[pid]

    def maps_over(self, pid, lo, hi):
        """``pid``'s mappings meeting ``[lo, hi)``: a binary search, since maps lists them in address order."""
        vmas = self.maps(pid) or ()
        if pid not in self._starts:
            self._starts[pid] = [v[0] for v in vmas]
        k = max(0, bisect.bisect_right(self._starts[pid], lo) - 1)
        out = []
        while k < len(vmas) and vmas[k][0] < hi:
            if lo < vmas[k][1]:
                out.append(vmas[k])
            k += 1
        return out

    def maps_of_file(self, pid, device, inode):
        """``pid``'s mappings of the file ``(device, inode)`` (an index built once a picture per process)."""
        if pid not in self._files:
            index = self._files[pid] = {}
            for v in self.maps(pid) or ():
                if v[5]:
                    index.setdefault((v[4], v[5]), []).append(v)
        return self._files[pid].get((device, inode), ())

    def comm(self, pid):
        """``pid``'s command name (read once a picture), or ''."""
        if pid not in self._comms:
            try:
                with open(f"/proc/{pid}/comm", "rb") as f:
                    self._comms[pid] = f.read().decode(errors="replace").strip()
            except OSError:
                self._comms[pid] = ""
        return self._comms[pid]

    def _read_maps(self, pid):
        if self.maps_read >= MAX_PIDS or self.maps_lines >= MAX_MAPS_LINES:
            self.left_out.add("processes past the picture's bound on /proc reads")
            return None
        out = []
        try:
            with open(f"/proc/{pid}/maps", "rb") as f:
                self.maps_read += 1
                for line in f:
                    self.maps_lines += 1
                    if self.maps_lines > MAX_MAPS_LINES:
                        self.left_out.add("mappings past the picture's bound on /proc reads")
                        break
                    try:
                        out.append(_parse_vma(line))
                    except (ValueError, IndexError):
                        continue        # a line of a format this reader does not know: that mapping is left out
        except OSError:
            return None
        return out

    def family(self):
        """``{pid: relation}`` of the processes that can share this one's private pages: its parent, and
        every process started from it, children and theirs (read from /proc/PID/stat, whose fourth field is the parent)."""
        if self._family is None:
            me = os.getpid()
            parents = {pid: _known[pid][1] for pid in self.candidates()}
            rel, frontier = {os.getppid(): "parent"}, {me}
            while frontier:                         # descendants, breadth first
                nxt = {p for p, q in parents.items() if q in frontier and p not in rel and p != me}
                rel.update((p, "child") for p in nxt)
                frontier = nxt
            self._family = rel
        return self._family

    def candidates(self):
        """Pids of this user's processes, in increasing order (only they can be read). A process's owner
        and parent are read once and remembered while it is listed, so a picture reads /proc/PID/stat
        only of the processes started since the last one."""
        if self._candidates is None:
            try:
                listed = {int(n) for n in os.listdir("/proc") if n.isdigit()}
            except OSError:
                listed = set()
            for pid in set(_known) - listed:
                del _known[pid]
            for pid in sorted(listed - set(_known)):
                if self.stats_read >= MAX_STATS:
                    self.left_out.add("processes past the picture's bound on /proc reads")
                    break
                _known[pid] = _owner_and_parent(pid)
                self.stats_read += 1
            uid = os.geteuid()
            self._candidates = sorted(p for p in listed if p in _known and _known[p][0] == uid)
        return self._candidates

    def flags(self, pid, lo, hi):
        """The top byte of each pagemap entry of the pages over ``[lo, hi)`` in ``pid``, or None."""
        first, npages = lo // PAGE, (hi + PAGE - 1) // PAGE - lo // PAGE
        if self.pages_read + npages > PICTURE_PAGES:
            self.left_out.add(f"page states past {PICTURE_PAGES:,} pages a picture")
            return None
        fd = self._pagemap(pid)
        if fd is None:
            return None
        out = bytearray()
        try:
            while len(out) < npages:
                want = min(_CHUNK, npages - len(out))
                data = os.pread(fd, 8 * want, 8 * (first + len(out)))
                if len(data) < 8:
                    return None
                out += data[7::8]       # little-endian entries: the flags are each entry's last byte
        except OSError:
            return None
        self.pages_read += npages
        return bytes(out)

    def _pagemap(self, pid):
        """An open descriptor of ``pid``'s pagemap, kept for the rest of the picture (``close``), or None."""
        if pid not in self._fds:
            try:
                self._fds[pid] = os.open(f"/proc/{pid}/pagemap", os.O_RDONLY | os.O_CLOEXEC)
            except OSError:
                self._fds[pid] = None
        return self._fds[pid]

    def close(self):
        """Closes the pagemap descriptors this picture opened (also done when the scan is collected)."""
        fds, self._fds = self._fds, {}
        for fd in fds.values():
            if fd is not None:
                os.close(fd)

    __del__ = close

    def pss(self, pid, lo, hi):
        """``(pss_bytes, rss_bytes, mapped_bytes, huge_bytes)`` of ``pid``'s mappings meeting ``[lo, hi)``,
        from smaps (read once a picture per process), or Nones when it cannot be read. ``huge_bytes``:
        anonymous memory in transparent huge pages, whose pagemap flags the kernel gives per 2 MiB."""
        if pid not in self._smaps:
            self._smaps[pid] = self._read_smaps(pid)
        rows = self._smaps[pid]
        if rows is None:
            return None, None, None, None
        k = max(0, bisect.bisect_right(rows, [lo]) - 1)       # rows are in address order
        meet = []
        while k < len(rows) and rows[k][0] < hi:
            if lo < rows[k][1]:
                meet.append(rows[k])
            k += 1
        return (sum(r[2] for r in meet), sum(r[3] for r in meet), sum(r[1] - r[0] for r in meet),
                sum(r[4] for r in meet))

    def _read_smaps(self, pid):
        """``[start, end, pss_bytes, rss_bytes, huge_bytes]`` per mapping of ``pid``, or None."""
        rows = []
        try:
            with open(f"/proc/{pid}/smaps", "rb") as f:
                self.smaps_read += 1
                for line in f:
                    head = line.split(b" ", 1)[0]
                    if not head.endswith(b":"):
                        start, end = (int(x, 16) for x in head.split(b"-"))
                        rows.append([start, end, 0, 0, 0])
                    elif head in _SMAPS_FIELDS and rows:
                        rows[-1][_SMAPS_FIELDS[head]] += int(line.split()[1]) * 1024
        except (OSError, ValueError):
            return None
        return rows


_known = {}       # pid -> (owner's uid, parent pid), while /proc lists it
_SMAPS_FIELDS = {b"Pss:": 2, b"Rss:": 3, b"AnonHugePages:": 4}   # kB values kept, by their place in a row


def _owner_and_parent(pid):
    try:
        uid = os.stat(f"/proc/{pid}").st_uid
        with open(f"/proc/{pid}/stat", "rb") as f:
            stat = f.read()
        return uid, int(stat[stat.rindex(b")") + 2:].split()[1])    # after "(comm)": state, then the parent
    except (OSError, ValueError, IndexError):
        return -1, -1


def _parse_vma(line):
    f = line.split(None, 5)
    start, end = (int(x, 16) for x in f[0].split(b"-"))
    major, minor = (int(x, 16) for x in f[3].split(b":"))
    return start, end, f[1].decode(), int(f[2], 16), os.makedev(major, minor), int(f[4])
