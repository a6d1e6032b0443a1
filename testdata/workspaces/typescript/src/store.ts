import { EventEmitter } from "events";
import type { Clock } from "./clock";

/** Prices are in cents. */
export type Cents = number;

/**
 * One product line on the shelf.
 * @see Store
 */
export interface Item {
  sku: string;
  name: string;
  price: Cents;
  qty: number;
  describe?(): string;
}

export enum State {
  InStock,
  Low,
  SoldOut,
}

export const LOW_STOCK = 5;
let created = 0;

function logged(target: object, key: string, desc: PropertyDescriptor) {
  return desc;
}

/** A named store and its stock. */
export class Store extends EventEmitter {
  static readonly kind = "retail";
  private items = new Map<string, Item>();

  constructor(public readonly name: string, private clock?: Clock) {
    super();
    created++;
  }

  /** Put an item on the shelf. */
  @logged
  add(item: Item): void {
    if (this.items.has(item.sku)) {
      throw new Error(`duplicate SKU ${item.sku}`);
    }
    this.items.set(item.sku, item);
    this.emit("added", item);
  }

  get size(): number {
    return this.items.size;
  }

  async *all(): AsyncGenerator<Item> {
    for (const it of this.items.values()) yield it;
  }
}

export abstract class Report<T> {
  abstract render(rows: T[]): string;
}

/** stateOf tells how well stocked an item is. */
export function stateOf(it: Item, low = LOW_STOCK): State {
  if (it.qty === 0) return State.SoldOut;
  return it.qty <= low ? State.Low : State.InStock;
}

export const total = (items: Item[]): Cents =>
  items.reduce((sum, it) => sum + it.price * it.qty, 0);

export namespace Format {
  export function money(c: Cents): string {
    return (c / 100).toFixed(2);
  }
}

export default Store;
