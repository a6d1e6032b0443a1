package codegraph

import "testing"

// A Maven layout: a class Strings in two packages, an import by name, a
// static import, a JDK import, a construction (reaching the constructor,
// from the test directory of the same package), a bare call of the
// class's own method, this.method, a static method through its class,
// area on three types and an interface, recursion, a lambda, and tests
// by @Test and by JUnit 3's naming.
func TestJavaEdges(t *testing.T) {
	x := index(t, javaWorkspace)
	const (
		util   = "src/main/java/com/acme/util/Strings.java"
		circle = "src/main/java/com/acme/app/Circle.java"
		square = "src/main/java/com/acme/app/Square.java"
		shape  = "src/main/java/com/acme/app/Shape.java"
		ctest  = "src/test/java/com/acme/app/CircleTest.java"
		legacy = "src/test/java/com/acme/app/LegacyTest.java"
	)
	same(t, "callers of util's trim", callersOf(t, x, util+":Strings.trim"), []string{
		circle + ":Circle.check -> " + util + ":Strings.trim (import)",
		util + ":Strings.join -> " + util + ":Strings.trim (exact)",
		util + ":Strings.join -> " + util + ":Strings.trim (exact)",
	})
	same(t, "text's trim, of the other package", callersOf(t, x, "src/main/java/com/acme/text/Strings.java:Strings.trim"), nil)
	same(t, "callees of label", calleesOf(t, x, "Circle.label"), []string{
		circle + ":Circle.label -> ?of ()", // java.util.List
		circle + ":Circle.label -> ?forEach ()",
		circle + ":Circle.label -> " + util + ":Strings.join (import)", // in the lambda
		circle + ":Circle.label -> " + util + ":Strings.join (import)",
	})
	same(t, "callees of scale", calleesOf(t, x, "Circle.scale"), []string{
		circle + ":Circle.scale -> " + circle + ":Circle.area (exact)",
		circle + ":Circle.scale -> " + circle + ":Circle.fact (exact)",
	})
	same(t, "constructions", callersOf(t, x, "Circle.Circle"), []string{
		square + ":Square.twice -> " + circle + ":Circle.Circle (exact)",
		ctest + ":CircleTest.area -> " + circle + ":Circle.Circle (exact)",
	})
	same(t, "callees of twice", calleesOf(t, x, "twice"), []string{
		square + ":Square.twice -> " + circle + ":Circle.Circle (exact)",
		square + ":Square.twice -> " + circle + ":Circle.area (name-only)",
		square + ":Square.twice -> " + shape + ":Shape.area (name-only)",
		square + ":Square.twice -> " + square + ":Square.area (name-only)",
		square + ":Square.twice -> " + ctest + ":CircleTest.area (name-only)",
		square + ":Square.twice -> " + square + ":Square.area (exact)", // area(): its own
	})
	same(t, "callers of fact", callersOf(t, x, "fact"), []string{
		circle + ":Circle.scale -> " + circle + ":Circle.fact (exact)",
		circle + ":Circle.fact -> " + circle + ":Circle.fact (exact)",
		legacy + ":LegacyTest.testFact -> " + circle + ":Circle.fact (exact)",
	})
	same(t, "tests", testsOf(t, x), []string{ctest + ":CircleTest.area", legacy + ":LegacyTest.testFact"})
	same(t, "blast of fact", blastOf(t, x, "fact", 3), []string{
		"> " + circle + ":Circle.scale exact",
		"> " + legacy + ":LegacyTest.testFact exact test",
		">> " + circle + ":Circle.area exact",
		">>> " + square + ":Square.twice name-only",
		">>> " + ctest + ":CircleTest.area name-only test",
	})
}

var javaWorkspace = map[string]string{
	"src/main/java/com/acme/util/Strings.java": `package com.acme.util;

public final class Strings {
    public static String trim(String s) { return s.strip(); }
    public static String join(String a, String b) { return trim(a) + trim(b); }
}
`,
	"src/main/java/com/acme/text/Strings.java": `package com.acme.text;

public class Strings {
    public static String trim(String s) { return s; }
}
`,
	"src/main/java/com/acme/app/Shape.java": `package com.acme.app;

public interface Shape {
    double area();
}
`,
	"src/main/java/com/acme/app/Circle.java": `package com.acme.app;

import com.acme.util.Strings;
import static com.acme.util.Strings.join;
import java.util.List;

public class Circle implements Shape {
    private final double r;

    public Circle(double r) { this.r = r; check(); }

    private void check() { Strings.trim("x"); }

    public double area() { return scale() * r; }

    double scale() { return this.area() > 0 ? 1 : fact(3); }

    static int fact(int n) { return n <= 1 ? 1 : n * fact(n - 1); }

    String label() {
        List.of(1).forEach(v -> join("a", "b"));
        return join("c", "d");
    }
}
`,
	"src/main/java/com/acme/app/Square.java": `package com.acme.app;

public class Square implements Shape {
    public double area() { return 1; }
    double twice() { return new Circle(2).area() + area(); }
}
`,
	"src/test/java/com/acme/app/CircleTest.java": `package com.acme.app;

import org.junit.jupiter.api.Test;

class CircleTest {
    @Test
    void area() {
        Shape s = new Circle(1);
        s.area();
    }

    void helper() {}
}
`,
	"src/test/java/com/acme/app/LegacyTest.java": `package com.acme.app;

public class LegacyTest extends junit.framework.TestCase {
    public void testFact() { Circle.fact(3); }
}
`,
}
