package codegraph

import "testing"

// A Cargo crate: area in three modules (geo, util, and a method of two
// types), use with a list, an alias and a glob, module paths (crate::,
// super::, a child module, the crate's own name from tests/), Self::,
// self.method, a closure, calls inside macros (assert_eq!, println!),
// recursion, a cycle, and #[test] functions in a mod tests and in tests/.
func TestRustEdges(t *testing.T) {
	x := index(t, rustWorkspace)
	same(t, "callers of geo::area", callersOf(t, x, "src/geo/mod.rs:area"), []string{
		"src/lib.rs:total -> src/geo/mod.rs:area (import)", // use geo::area
		"src/util.rs:area -> src/geo/mod.rs:area (import)", // geo::area in a closure, use crate::geo
	})
	same(t, "callers of util::area", callersOf(t, x, "src/util.rs:area"), []string{
		"src/lib.rs:total -> src/util.rs:area (import)",        // util::area: a child module
		"tests/it.rs:integration -> src/util.rs:area (import)", // use shapes::util::area
	})
	same(t, "callees of total", calleesOf(t, x, "total"), []string{
		"src/lib.rs:total -> src/geo/mod.rs:area (import)",
		"src/lib.rs:total -> src/geo/shapes.rs:Circle.new (import)", // Round::new: use …::{Circle as Round}
		"src/lib.rs:total -> src/geo/shapes.rs:Circle.area (name-only)",
		"src/lib.rs:total -> src/geo/shapes.rs:Square.area (name-only)",
		"src/lib.rs:total -> src/util.rs:area (import)",
		"src/lib.rs:total -> src/geo/shapes.rs:Circle.area (name-only)", // Square.area(): a value
		"src/lib.rs:total -> src/geo/shapes.rs:Square.area (name-only)",
	})
	same(t, "Self::", calleesOf(t, x, "Circle.new"), []string{"src/geo/shapes.rs:Circle.new -> src/geo/shapes.rs:Circle.check (exact)"})
	same(t, "self.", calleesOf(t, x, "Circle.area"), []string{"src/geo/shapes.rs:Circle.area -> src/geo/shapes.rs:Circle.scale (exact)"})
	same(t, "a child module's function", calleesOf(t, x, "src/geo/mod.rs:area"), []string{"src/geo/mod.rs:area -> src/geo/shapes.rs:unit (import)"})
	same(t, "recursion, super:: and use super::* in mod tests", callersOf(t, x, "fact"), []string{
		"src/lib.rs:fact -> src/lib.rs:fact (exact)",
		"src/lib.rs:totals -> src/lib.rs:fact (exact)",
		"src/lib.rs:helper -> src/lib.rs:fact (exact)",
	})
	same(t, "cycle", calleesOf(t, x, "ping"), []string{"src/geo/shapes.rs:ping -> src/geo/shapes.rs:pong (exact)"})
	same(t, "macro arguments", calleesOf(t, x, "integration"), []string{
		"tests/it.rs:integration -> src/util.rs:area (import)",             // assert!(area(1.0) > 0.0)
		"tests/it.rs:integration -> src/geo/shapes.rs:Circle.new (import)", // use shapes::geo::shapes::Circle
		"tests/it.rs:integration -> src/geo/shapes.rs:Circle.area (name-only)",
		"tests/it.rs:integration -> src/geo/shapes.rs:Square.area (name-only)", // println!("{}", c.area())
	})
	same(t, "tests", testsOf(t, x), []string{"src/lib.rs:totals", "tests/it.rs:integration"})
	same(t, "blast of unit", blastOf(t, x, "unit", 3), []string{
		"> src/geo/mod.rs:area import",
		"> src/geo/shapes.rs:Square.area exact",
		">> src/lib.rs:total import",
		">> src/util.rs:area import",
		">> tests/it.rs:integration name-only test", // c.area() may be Square's
		">>> src/lib.rs:totals import test",
	})
}

var rustWorkspace = map[string]string{
	"Cargo.toml": "[package]\nname = \"shapes\"\n",
	"src/lib.rs": `pub mod geo;
pub mod util;

use crate::geo::shapes::{Circle as Round, Square};
use geo::area;

pub fn total() -> f64 {
    area(1.0) + Round::new(2.0).area() + util::area(3.0) + Square.area()
}

pub fn fact(n: u64) -> u64 {
    if n == 0 { 1 } else { n * fact(n - 1) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn totals() {
        assert_eq!(total(), 3.0);
        assert!(super::fact(3) == 6);
    }

    fn helper() -> u64 { fact(1) }
}
`,
	"src/geo/mod.rs": `pub mod shapes;

pub fn area(x: f64) -> f64 {
    x * shapes::unit()
}
`,
	"src/geo/shapes.rs": `pub struct Circle { r: f64 }
pub struct Square;

impl Circle {
    pub fn new(r: f64) -> Self {
        Self::check(r);
        Circle { r }
    }
    fn check(r: f64) {}
    pub fn area(&self) -> f64 { self.scale() * self.r }
    fn scale(&self) -> f64 { 1.0 }
}

impl Square {
    pub fn area(&self) -> f64 { unit() }
}

pub fn unit() -> f64 { 1.0 }

pub fn ping(n: u32) -> u32 { if n == 0 { 0 } else { pong(n - 1) } }
pub fn pong(n: u32) -> u32 { if n == 0 { 0 } else { ping(n - 1) } }
`,
	"src/util.rs": `use crate::geo;

pub fn area(x: f64) -> f64 {
    let f = |y: f64| geo::area(y);
    f(x)
}
`,
	"tests/it.rs": `use shapes::util::area;
use shapes::geo::shapes::Circle;

#[test]
fn integration() {
    assert!(area(1.0) > 0.0);
    let c = Circle::new(1.0);
    println!("{}", c.area());
}
`,
}
