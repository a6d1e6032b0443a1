'use strict';

const { EventEmitter } = require('events');
const fs = require('fs');

/** Cents per euro. */
const CENTS = 100;
let nextId = 1;

/**
 * A shopping cart.
 * Emits "change" when lines are added.
 */
class Cart extends EventEmitter {
  #lines = [];
  static currency = 'EUR';

  constructor(owner) {
    super();
    this.owner = owner;
    this.id = nextId++;
  }

  /** Add qty of sku at price cents. */
  add(sku, qty, price) {
    this.#lines.push({ sku, qty, price });
    this.emit('change', this);
    return this;
  }

  get total() {
    return this.#lines.reduce((s, l) => s + l.qty * l.price, 0);
  }

  static fromJSON(text) {
    const c = new Cart(JSON.parse(text).owner);
    return c;
  }
}

// format renders cents as "12.34".
function format(cents) {
  return (cents / CENTS).toFixed(2);
}

const describe = (cart) => `${cart.owner}: ${format(cart.total)}`;

async function* lines(cart) {
  yield* cart.lines;
}

process.on('exit', () => console.log('bye'));
fs.mkdirSync('/tmp/carts', { recursive: true });

module.exports = { Cart, format, describe };
