"""The documents name real files: every ``tests/...py``, ``pytensor/...``, ``widgets/...`` or
``libtensor/...`` path the README, ARCHITECTURE.md and tests/README.md mention exists (the tests moved
into folders by layer once, and the README kept the old paths)."""
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOCS = ["README.md", "ARCHITECTURE.md", "tests/README.md"]
PATH = re.compile(r"\b(?:tests|pytensor|widgets|libtensor|examples)/[A-Za-z0-9_./-]*\.(?:py|c|h|mjs|js|md|ipynb)\b")


def test_every_path_the_documents_name_exists():
    named = {(doc, m.group(0)) for doc in DOCS for m in PATH.finditer((ROOT / doc).read_text(encoding="utf-8"))}
    assert len(named) > 20                      # the pattern does find the documents' paths
    missing = sorted((doc, p) for doc, p in named if not (ROOT / p).exists())
    assert missing == []
