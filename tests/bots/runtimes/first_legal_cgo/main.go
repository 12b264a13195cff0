// Plays the first legal action: a Go bot using cgo (so it links libc), to check the sandbox lets one run.
// With --sizes it first says on stderr, as one JSON line, the processors Go's scheduler runs on
// (GOMAXPROCS).
package main

// #include <stdlib.h>
// #include <string.h>
import "C"

import (
	"bufio"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"unsafe"
)

// cLen measures s with C's strlen, so the binary really calls into libc.
func cLen(s string) int {
	cs := C.CString(s)
	defer C.free(unsafe.Pointer(cs))
	return int(C.strlen(cs))
}

func main() {
	if len(os.Args) > 1 && os.Args[1] == "--sizes" {
		fmt.Fprintf(os.Stderr, "{\"cpus\":%d}\n", runtime.GOMAXPROCS(0))
	}
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<24)
	for in.Scan() {
		line := in.Text()
		if strings.Contains(line, `"type":"hello"`) {
			fmt.Println(`{"type":"ready","name":"cgo"}`)
		} else if strings.Contains(line, `"type":"act"`) {
			rest := line[strings.Index(line, `"id":`)+5:]
			id, _ := strconv.Atoi(rest[:strings.IndexAny(rest, ",}")])
			legal := line[strings.Index(line, `"legal_actions":[`)+17:]
			depth, end := 0, cLen(legal)
			for i := 0; i < len(legal); i++ {
				if legal[i] == '{' {
					depth++
				}
				if legal[i] == '}' {
					depth--
					if depth == 0 {
						end = i + 1
						break
					}
				}
			}
			fmt.Printf("{\"type\":\"action\",\"id\":%d,\"action\":%s}\n", id, legal[:end])
		} else if strings.Contains(line, "match_end") {
			break
		}
	}
}
