"""Runs the inspector's front-end tests (``node --test tests/js``) under pytest."""
import subprocess
from pathlib import Path

from support import require_program

HERE = Path(__file__).resolve().parent


def test_renderer_node_tests():
    node = require_program("node")
    proc = subprocess.run([node, "--test", str(HERE / "js")], capture_output=True, text=True, timeout=120,
                          cwd=HERE.parent)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    assert "# fail 0" in proc.stdout and "# pass 0" not in proc.stdout
