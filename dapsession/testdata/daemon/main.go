// Command daemon starts `sleep 300` in a session of its own (setsid), so
// out of every process group its starter knows, writes its pid to the
// file named by its argument, and waits.
package main

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"time"
)

func main() {
	d := exec.Command("sleep", "300")
	d.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := d.Start(); err != nil {
		fmt.Println(err)
		os.Exit(1)
	}
	tmp := os.Args[1] + ".tmp"
	os.WriteFile(tmp, []byte(strconv.Itoa(d.Process.Pid)), 0o644)
	os.Rename(tmp, os.Args[1]) // whole or not at all
	time.Sleep(time.Hour)
}
