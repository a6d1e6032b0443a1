package proc_test

import (
	"bufio"
	"context"
	"fmt"
	"io"

	"cchub/proc"
)

// A conversation with a child: it is stopped when its input ends, and
// its last words are at hand if it dies.
func ExampleCmd_Start() {
	c := proc.Command("sh", "-c", `while read line; do echo "got $line"; done; echo bye >&2`)
	stderr := proc.NewTail(100)
	c.Stderr = stderr
	in, _ := c.StdinPipe()
	out, _ := c.StdoutPipe()
	defer out.Close()
	p, err := c.Start(context.Background())
	if err != nil {
		fmt.Println(err)
		return
	}
	io.WriteString(in, "hello\n")
	line, _ := bufio.NewReader(out).ReadString('\n')
	fmt.Print(line)
	in.Close()
	fmt.Println(p.Wait(), stderr)
	// Output:
	// got hello
	// <nil> bye
}

func ExampleTail() {
	t := proc.NewTail(8)
	fmt.Fprint(t, "panic: ")
	fmt.Fprint(t, "nil map\n")
	fmt.Printf("%q %q\n", t.String(), t.Bytes())
	// Output: "…nil map\n" "nil map\n"
}
