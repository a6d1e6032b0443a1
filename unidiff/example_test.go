package unidiff_test

import (
	"fmt"

	"cchub/unidiff"
)

func ExampleParse() {
	p := unidiff.Parse(`diff --git a/greet.go b/greet.go
--- a/greet.go
+++ b/greet.go
@@ -3,2 +3,2 @@ func greet() {
-	fmt.Println("hi")
+	fmt.Println("hello")
 }
`)
	if err := p.Err(); err != nil {
		fmt.Println(err)
		return
	}
	for _, f := range p.Files {
		fmt.Println(f.Status, f.NewPath)
		for _, h := range f.Hunks {
			for _, l := range h.Lines {
				fmt.Printf("%c old=%d new=%d %s\n", l.Kind.Op(), l.Old, l.New, l.Text)
			}
		}
	}
	// Output:
	// modified greet.go
	// - old=3 new=0 	fmt.Println("hi")
	// + old=0 new=3 	fmt.Println("hello")
	//   old=4 new=4 }
}
