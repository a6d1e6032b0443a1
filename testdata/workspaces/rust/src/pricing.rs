/// Money in cents.
pub type Cents = u64;

/// A discount rule.
pub struct Discount {
    pub percent: u8,
}

impl Discount {
    /// Apply the discount to a price.
    pub fn apply(&self, price: Cents) -> Cents {
        price - price * self.percent as u64 / 100
    }
}

union Bits {
    i: u32,
    f: f32,
}
