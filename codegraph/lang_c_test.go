package codegraph

import "testing"

// A C workspace: add declared in a header and defined in one source file,
// a static add of the same name in another, a header's inline function,
// an include found beside the file and one found under include/, a call
// through a function pointer, recursion, and a test_ function.
func TestCEdges(t *testing.T) {
	x := index(t, cWorkspace)
	same(t, "callers of mathx.add", callersOf(t, x, "src/mathx.c:add"), []string{
		"src/main.c:main -> src/mathx.c:add (import)", // declared in mathx.h
		"src/mathx.c:twice -> src/mathx.c:add (exact)",
		"tests/test_math.c:test_add -> src/mathx.c:add (import)",
	})
	same(t, "the static add", callersOf(t, x, "src/other.c:add"), []string{"src/other.c:other -> src/other.c:add (exact)"})
	same(t, "callees of main", calleesOf(t, x, "main"), []string{
		"src/main.c:main -> ?printf ()",
		"src/main.c:main -> src/mathx.c:add (import)",
		"src/main.c:main -> src/mathx.c:twice (import)",
		"src/main.c:main -> include/mathx.h:sq (import)", // defined in the header
		"src/main.c:main -> src/main.c:fact (exact)",
		"src/main.c:main -> ?run ()", // o.run(): a function pointer
	})
	same(t, "recursion", callersOf(t, x, "fact"), []string{
		"src/main.c:fact -> src/main.c:fact (exact)",
		"src/main.c:main -> src/main.c:fact (exact)",
	})
	var defined []string
	syms, _ := x.Symbols("add")
	for _, d := range syms {
		defined = append(defined, d.Path+":"+d.Qual())
	}
	same(t, "add is defined, not declared", defined, []string{"src/mathx.c:add", "src/other.c:add"})
	same(t, "tests", testsOf(t, x), []string{"tests/test_math.c:test_add"})
	same(t, "blast of add", blastOf(t, x, "src/mathx.c:add", 2), []string{
		"> src/main.c:main import",
		"> src/mathx.c:twice exact",
		"> tests/test_math.c:test_add import test",
	})
}

// A C++ workspace: a namespace's function declared in a header and
// defined in a source file, a class declared in the header with its
// methods defined out of class (Box::size), a pure virtual method, a
// constructor (Box(w), new geo::Box(3)), a static method (geo::Box::make),
// an operator, this->, x.m() and p->m(), a lambda, std::, recursion, and
// a GoogleTest TEST.
func TestCppEdges(t *testing.T) {
	x := index(t, cppWorkspace)
	same(t, "callees of main", calleesOf(t, x, "main"), []string{
		"main.cpp:main -> shapes.cpp:Box.make (import)",
		"main.cpp:main -> shapes.cpp:Box.Box (import)",
		"main.cpp:main -> shapes.cpp:Box.size (name-only)",
		"main.cpp:main -> shapes.cpp:Box.size (name-only)",
		"main.cpp:main -> shapes.cpp:area (import)", // in the lambda
		"main.cpp:main -> ?sort ()",
		"main.cpp:main -> ?f ()",
		"main.cpp:main -> main.cpp:fact (exact)",
	})
	same(t, "callees of Box.size", calleesOf(t, x, "Box.size"), []string{
		"shapes.cpp:Box.size -> shapes.hpp:Box.width (exact)",
		"shapes.cpp:Box.size -> shapes.cpp:area (exact)",
	})
	same(t, "a constructor from a static method", calleesOf(t, x, "make"), []string{"shapes.cpp:Box.make -> shapes.cpp:Box.Box (exact)"})
	same(t, "an operator", calleesOf(t, x, "Box.operator<"), []string{
		"shapes.cpp:Box.operator< -> shapes.cpp:Box.size (exact)", // size(): this one's
		"shapes.cpp:Box.operator< -> shapes.cpp:Box.size (name-only)",
	})
	same(t, "recursion", callersOf(t, x, "fact"), []string{
		"main.cpp:fact -> main.cpp:fact (exact)",
		"main.cpp:main -> main.cpp:fact (exact)",
	})
	syms, _ := x.Symbols("size")
	if len(syms) != 1 || syms[0].Path != "shapes.cpp" || syms[0].Qual() != "Box.size" {
		t.Errorf("size is defined once, in shapes.cpp (its declarations and Shape's pure virtual are not definitions): %+v", syms)
	}
	same(t, "tests", testsOf(t, x), []string{"test/shapes_test.cpp:TEST(Box, Size)"})
	same(t, "blast of area", blastOf(t, x, "area", 2), []string{
		"> main.cpp:main import",
		"> shapes.cpp:Box.size exact",
		">> shapes.cpp:Box.operator< exact",
		">> test/shapes_test.cpp:TEST(Box, Size) name-only test",
	})
}

var cWorkspace = map[string]string{
	"include/mathx.h": `#ifndef MATHX_H
#define MATHX_H

int add(int a, int b);
int twice(int x);

static inline int sq(int x) { return x * x; }

#endif
`,
	"src/mathx.c": `#include "mathx.h"

int add(int a, int b) { return a + b; }

int twice(int x) { return add(x, x); }

static int helper(void) { return sq(2); }
`,
	"src/other.c": `static int add(int a, int b) { return a - b; }

int other(void) { return add(1, 2); }
`,
	"src/main.c": `#include "mathx.h"
#include <stdio.h>

struct ops { int (*run)(void); };

int fact(int n) { return n <= 1 ? 1 : n * fact(n - 1); }

int main(void) {
    struct ops o;
    printf("%d", add(1, 2) + twice(3) + sq(4) + fact(5));
    return o.run();
}
`,
	"tests/test_math.c": `#include "../include/mathx.h"
#include <assert.h>

void test_add(void) { assert(add(1, 2) == 3); }
`,
}

var cppWorkspace = map[string]string{
	"shapes.hpp": `#pragma once

namespace geo {
int area(int w);

class Shape {
public:
  virtual int size() const = 0;
};

class Box : public Shape {
public:
  explicit Box(int w);
  int size() const override;
  int width() const { return w_; }
  static Box make(int w);

private:
  int w_;
};
}
`,
	"shapes.cpp": `#include "shapes.hpp"

namespace geo {
int area(int w) { return w * w; }

Box::Box(int w) : w_(w) {}

int Box::size() const { return this->width() * area(1); }

Box Box::make(int w) { return Box(w); }

bool Box::operator<(const Box& o) const { return size() < o.size(); }
}
`,
	"main.cpp": `#include "shapes.hpp"
#include <algorithm>

int fact(int n) { return n <= 1 ? 1 : n * fact(n - 1); }

int main() {
  geo::Box b = geo::Box::make(2);
  auto p = new geo::Box(3);
  int s = b.size() + p->size();
  auto f = [&](int x) { return geo::area(x); };
  std::sort(&s, &s);
  return f(s) + fact(3);
}
`,
	"test/shapes_test.cpp": `#include "../shapes.hpp"
#include <gtest/gtest.h>

TEST(Box, Size) { EXPECT_EQ(geo::Box::make(1).size(), 1); }
`,
}
