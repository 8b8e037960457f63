"""The badges of a region: who owns its bytes (provenance) and the counters that keep them alive."""
from __future__ import annotations

__all__ = ["badges", "lifetime_badges"]


def badges(src):
    """Provenance / lifetime badges for one source, as ``{"kind", "text", "title"}`` dicts."""
    prov, label = src["provenance"], src["label"]
    out = []
    if src["kind"] == "storage":
        text = {
            "owned": "owned by pytensor",
            "numpy": "NumPy",
            "buffer": f"{label or 'buffer'}" + (" (read-only)" if src["readonly"] else ""),
            "file": f"file {label}".strip(),
            "dlpack": (label if label.lower().startswith("dlpack") else f"DLPack {label}".strip())
            + (f" on {src['device']}" if src["device"] else ""),
            "foreign": label or "foreign",
            "torch": "torch storage",
        }.get(prov, prov)
        out.append({"kind": prov, "text": text,
                    "title": f"{src['type']} at this address; provenance {prov}" + (f", {label}" if label else "")})
    else:
        text = {"buffer": label + (" (read-only)" if src["readonly"] else ""),
                "file": f"file {label}" if label != src["type"] else f"{label} (mapped file)",
                "dlpack": f"DLPack {label}"}.get(prov, label)
        title = f"owner object: {src['type']}"
        if src["type"] == "PyCapsule":
            title += " (a DLPack capsule: it keeps the producer's memory alive for as long as this array lives)"
        out.append({"kind": prov, "text": text, "title": title})
    return out


def lifetime_badges(sources):
    """C refcount and write-counter badges (one number per pytensor storage), and the lock."""
    out = []
    storages = [s for s in sources if s["kind"] == "storage"]
    if len(storages) > 1:
        out.append({"kind": "storages", "text": f"{len(storages)} storages",
                    "title": "; ".join(f"{s['type']} over bytes [{s['byte_offset']}, {s['byte_offset'] + s['nbytes']})"
                                       for s in storages)})
    refs = [s["refcount"] for s in storages if s.get("refcount") is not None]
    if refs:
        out.append({"kind": "refs", "text": "refs " + "+".join(map(str, refs)),
                    "title": "libtensor reference count of each storage: Python wrappers, DLPack exports, "
                             "C users"})
    versions = [s["version"] for s in storages if s.get("version") is not None]
    files = {tuple(s["identity"][:2]) if s.get("identity") else None for s in storages}
    if len(versions) > 1 and len(versions) == len(storages) and len(files) == 1 and None not in files:
        # several mappings of one file: a write through any of them is a write into these bytes
        out.append({"kind": "version", "text": f"writes {sum(versions)}",
                    "title": f"writes through pytensor into these file bytes, through any of its {len(versions)} "
                             f"mappings (each storage's write counter: {'+'.join(map(str, versions))})"})
    elif versions:
        out.append({"kind": "version", "text": "writes " + "+".join(map(str, versions)),
                    "title": "each storage's write counter, bumped by every write through pytensor"})
    if sources and all(s["readonly"] for s in sources):
        out.append({"kind": "lock", "text": "read-only", "title": "writes through any alias are refused"})
    return out
