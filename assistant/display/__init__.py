"""The large-print, screen-reader friendly table display: a local web page with live updates."""

from assistant.display.app import DisplayServer, check_correction, create_app
from assistant.display.state import TableView

__all__ = ["DisplayServer", "TableView", "check_correction", "create_app"]
