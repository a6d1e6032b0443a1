#!/usr/bin/env python3
"""Command line for the inventory: load a CSV, print a report."""

import argparse
import csv
import logging
import sys

from .models import Item, Store

log = logging.getLogger(__name__)
logging.basicConfig(level=logging.INFO)

try:
    import colorama
except ImportError:
    colorama = None

if sys.version_info < (3, 9):
    def removeprefix(s, p):
        return s[len(p):] if s.startswith(p) else s
else:
    removeprefix = str.removeprefix


def load(path: str, store: Store) -> int:
    """Read items from a CSV file into store; return how many were read."""
    n = 0
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            store.add(Item(row["sku"], row["name"], int(row["price"]), int(row["qty"])))
            n += 1
    return n


def report(store: Store, *, low: int = 5, verbose: bool = False) -> str:
    lines = [f"Stock report for {store.name}"]
    total = 0
    for item in store:
        total += item.value
        if verbose:
            lines.append(f"{item.name:20} {item.qty:5d}")
        elif item.is_low(low):
            lines.append(f"low: {item.name}")
    while len(lines) < 3:
        lines.append("")
    try:
        lines.append(f"value: {total / 100:.2f}")
    except ZeroDivisionError:
        pass
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("csv")
    parser.add_argument("-v", "--verbose", action="store_true")
    args = parser.parse_args(argv)
    store = Store("cli")
    log.info("loaded %d items", load(args.csv, store))
    print(report(store, verbose=args.verbose))
    return 0


if __name__ == "__main__":
    sys.exit(main())
