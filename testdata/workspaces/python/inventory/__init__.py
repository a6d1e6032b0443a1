"""A tiny inventory package used by cchub's tests."""

from .models import Item, Store

__all__ = ["Item", "Store"]
__version__ = "0.3.1"
