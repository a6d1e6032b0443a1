//! A tiny shop: items, a store, and prices.

use std::collections::HashMap;
use std::fmt;

pub mod pricing;

/// The quantity at or below which an item is low.
pub const LOW_STOCK: u32 = 5;

static GREETING: &str = "welcome";

/// One product line on the shelf.
#[derive(Debug, Clone, PartialEq)]
pub struct Item {
    pub sku: String,
    pub name: String,
    pub price: u64,
    pub qty: u32,
}

/// How well stocked an item is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum State {
    InStock,
    Low,
    SoldOut,
}

/// Something that can report its stock.
pub trait Inventory {
    /// Every item, sorted by SKU.
    fn items(&self) -> Vec<&Item>;

    fn count(&self) -> usize {
        self.items().len()
    }
}

/// A named store and its stock.
pub struct Store {
    name: String,
    items: HashMap<String, Item>,
}

impl Store {
    /// An empty store called `name`.
    pub fn new(name: &str) -> Self {
        Store { name: name.to_string(), items: HashMap::new() }
    }

    /// Put an item on the shelf; false if the SKU was taken.
    pub fn add(&mut self, item: Item) -> bool {
        if self.items.contains_key(&item.sku) {
            return false;
        }
        self.items.insert(item.sku.clone(), item);
        true
    }

    pub fn state_of(item: &Item) -> State {
        match item.qty {
            0 => State::SoldOut,
            n if n <= LOW_STOCK => State::Low,
            _ => State::InStock,
        }
    }
}

impl Inventory for Store {
    fn items(&self) -> Vec<&Item> {
        let mut v: Vec<&Item> = self.items.values().collect();
        v.sort_by(|a, b| a.sku.cmp(&b.sku));
        v
    }
}

impl fmt::Display for Store {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({} items)", self.name, self.items.len())
    }
}

macro_rules! item {
    ($sku:expr, $qty:expr) => {
        Item { sku: $sku.into(), name: $sku.into(), price: 100, qty: $qty }
    };
}

type Shelf<'a> = Vec<&'a Item>;

/// Largest of two values.
pub fn max_of<T: PartialOrd>(a: T, b: T) -> T {
    if a > b { a } else { b }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn add_twice_fails() {
        let mut s = Store::new("t");
        assert!(s.add(item!("a", 1)));
        assert!(!s.add(item!("a", 1)));
    }

    #[test]
    #[should_panic]
    fn empty_name_panics() {
        let _shelf: Shelf = Vec::new();
        panic!("boom");
    }
}
