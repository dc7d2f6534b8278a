package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"runtime/debug"

	"gcdbg/stages"
	"gcdbg/termsafe"
)

// cmdJudge is the hidden `gcdbg __judge`: `gcdbg run` for many traces in
// one process, for the conformance harness (conformance/batch.go). Each
// request on in is one line, the JSON array of `gcdbg run` arguments; each
// answer on out is one line, judgePrefix and then the JSON object
// {"rc", "stdout", "stderr"} that the same `gcdbg run` would have exited
// with and printed. The runs share the process's start-up (package
// initialisation is most of a short run's time) and its compile worker;
// a panic that escapes a run is an internal error of that run, as in
// cmdRun, and the process goes on with the next request.
func cmdJudge(in io.Reader, out io.Writer) int {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	enc := json.NewEncoder(out)
	for sc.Scan() {
		var args []string
		if err := json.Unmarshal(sc.Bytes(), &args); err != nil {
			fmt.Fprintf(out, "%s{\"rc\": 2, \"stderr\": %q}\n", judgePrefix, "gcdbg __judge: a request is a JSON array of strings: "+err.Error())
			continue
		}
		var stdout, stderr bytes.Buffer
		rc := judgeOne(args, &stdout, &stderr)
		io.WriteString(out, judgePrefix)
		if err := enc.Encode(judgeAnswer{RC: rc, Stdout: stdout.String(), Stderr: stderr.String()}); err != nil {
			return 2
		}
	}
	return 0
}

// judgePrefix starts every answer line: anything else a run might print
// on the process's stdout is not an answer.
const judgePrefix = "gcdbg-judge: "

type judgeAnswer struct {
	RC     int    `json:"rc"`
	Stdout string `json:"stdout"`
	Stderr string `json:"stderr"`
}

func judgeOne(args []string, stdout, stderr *bytes.Buffer) (rc int) {
	defer func() {
		if r := recover(); r != nil {
			ie := &stages.InternalError{Value: r, Stack: debug.Stack()}
			fmt.Fprintln(stderr, "gcdbg run:", errText(ie))
			rc = 2
		}
	}()
	return cmdRun(args, termsafe.Writer(stdout), termsafe.Writer(stderr))
}
