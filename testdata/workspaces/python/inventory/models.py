"""Data types for the inventory: items and the store that holds them."""

from __future__ import annotations

import dataclasses
import functools
from typing import Iterator, Optional

LOW_STOCK = 5
_registry: dict[str, "Store"] = {}


def _log(msg):
    print(msg)


@dataclasses.dataclass(frozen=True)
class Item:
    """One product line on the shelf.

    Prices are in cents.
    """

    sku: str
    name: str
    price: int = 0
    qty: int = 0

    @property
    def value(self) -> int:
        """Total value of the stock of this line."""
        return self.price * self.qty

    def is_low(self, threshold: int = LOW_STOCK) -> bool:
        return 0 < self.qty <= threshold


class NotFound(KeyError):
    """Raised when a SKU is not in the store."""


class Store:
    """A named store with its stock."""

    kind = "retail"

    def __init__(self, name: str):
        self.name = name
        self._items: dict[str, Item] = {}
        _registry[name] = self

    def add(self, item: Item) -> None:
        """Put item on the shelf."""
        if item.sku in self._items:
            raise ValueError(f"duplicate SKU {item.sku}")
        self._items[item.sku] = item

    def get(self, sku: str) -> Item:
        try:
            return self._items[sku]
        except KeyError:
            raise NotFound(sku) from None

    def __iter__(self) -> Iterator[Item]:
        return iter(sorted(self._items.values(), key=lambda i: i.sku))

    @staticmethod
    @functools.lru_cache(maxsize=None)
    def parse_sku(text: str) -> Optional[str]:
        """Normalise a SKU typed by a human."""
        text = text.strip().lower()
        return text or None

    class Stats:
        """Counters kept per store."""

        def __init__(self):
            self.sold = 0


def find(name: str) -> Optional[Store]:
    return _registry.get(name)


async def refresh(store: Store) -> None:
    """Reload prices from the network."""
    for item in store:
        await _fetch(item.sku)
