"""Fixtures the inspector's Python-side tests share: the live widget's packages, and what the widget
hands to the comm, caught where ipywidgets would send it (no front end needed)."""
import pytest

from support import require_module


@pytest.fixture(scope="module")
def widget_packages():
    """anywidget and ipywidgets, which the live widget needs: its module skips without them (fails
    under CI). A module asks for it with ``pytestmark = pytest.mark.usefixtures("widget_packages")``."""
    require_module("anywidget")
    require_module("ipywidgets")


def _caught(monkeypatch, method):
    """Every call of ``Inspector.<method>(msg, buffers=None)``, as ``(msg, buffers)``, instead of sending it."""
    from pytensor.widgets import Inspector
    out = []
    monkeypatch.setattr(Inspector, method, lambda self, msg, buffers=None: out.append((msg, buffers)))
    return out


@pytest.fixture
def sent(monkeypatch):
    """Custom messages the widget sends to the front end, each as ``(content, buffers)``."""
    return _caught(monkeypatch, "send")


@pytest.fixture
def updates(monkeypatch):
    """Every state update the widget sends (what the comm would carry), each as ``(message, buffers)``."""
    return _caught(monkeypatch, "_send")
