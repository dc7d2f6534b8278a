// Package conformance judges gcdbg on PyTorch's own operator tests: every
// sample of the OpInfo database (torch.testing._internal.common_methods_invocations.op_db)
// for the ops of the core ATen opset and torch.nn.functional, exported as a
// trace by export_opinfo.py and taken through `gcdbg run --json` twice —
// the pipeline's graphs under the eager interpreter (--device eager) and the
// compiled C kernels (--device cpu). A sample passes when both runs' verdict
// (`ok`, every `match` of outputs and grads against PyTorch and against
// gcdbg's eager reference) holds. See docs/conformance.md.
package conformance

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// Sample is one line of the exporter's manifest.jsonl.
type Sample struct {
	ID      string `json:"id"`
	OpInfo  string `json:"opinfo"`
	DType   string `json:"dtype,omitempty"`
	Index   int    `json:"index,omitempty"`
	Desc    string `json:"desc,omitempty"`
	Trace   string `json:"trace,omitempty"`   // file name in the export directory
	Refused string `json:"refused,omitempty"` // why the exporter did not export it
}

// Status is a sample's outcome.
type Status string

const (
	Pass    Status = "pass"    // eager and compiled results match PyTorch and the eager reference
	Wrong   Status = "wrong"   // gcdbg ran it and some output or gradient does not match
	Refused Status = "refused" // an op, argument or variant gcdbg does not take, with the reason
	Error   Status = "error"   // gcdbg failed on a sample it should take (exit 2, not a refusal)
	Panic   Status = "panic"   // an internal error: a panic in the pipeline
	Timeout Status = "timeout" // the run did not finish in time
)

// Failed reports whether s counts against gcdbg (everything but pass and refused).
func (s Status) Failed() bool { return s != Pass && s != Refused }

// Outcome is the judgement of one sample.
type Outcome struct {
	ID     string `json:"id"`
	OpInfo string `json:"opinfo"`
	DType  string `json:"dtype,omitempty"`
	Desc   string `json:"desc,omitempty"`
	Status Status `json:"status"`
	// Stage is which run decided it: "export", "eager" or "compiled".
	Stage  string `json:"stage,omitempty"`
	Reason string `json:"reason,omitempty"`
	// Commit and Date say which gcdbg judged it, when (the results store's columns).
	Commit string `json:"commit,omitempty"`
	Date   string `json:"date,omitempty"`
}

// ReadManifest reads DIR/manifest.jsonl and the shards' DIR/manifest-K-of-N.jsonl.
func ReadManifest(dir string) ([]Sample, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "manifest*.jsonl"))
	if err != nil {
		return nil, err
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("%s: no manifest.jsonl (run conformance/export_opinfo.py -o %s first)", dir, dir)
	}
	sort.Strings(paths)
	var out []Sample
	seen := map[string]bool{}
	for _, p := range paths {
		ss, err := readManifestFile(p)
		if err != nil {
			return nil, err
		}
		for _, s := range ss {
			if seen[s.ID] {
				return nil, fmt.Errorf("%s: sample %s listed twice", p, s.ID)
			}
			seen[s.ID] = true
			out = append(out, s)
		}
	}
	return out, nil
}

func readManifestFile(path string) ([]Sample, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []Sample
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<16), 1<<24)
	for line := 1; sc.Scan(); line++ {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		var s Sample
		if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, line, err)
		}
		if s.ID == "" || s.OpInfo == "" {
			return nil, fmt.Errorf("%s:%d: a sample needs id and opinfo", path, line)
		}
		if s.Trace == "" && s.Refused == "" {
			return nil, fmt.Errorf("%s:%d: sample %s has neither trace nor refused", path, line, s.ID)
		}
		if s.Trace != "" && (strings.ContainsAny(s.Trace, `/\`) || s.Trace == ".." || s.Trace == ".") {
			return nil, fmt.Errorf("%s:%d: sample %s: trace %q must be a file name in the export directory", path, line, s.ID, s.Trace)
		}
		out = append(out, s)
	}
	return out, sc.Err()
}

// ReadIDs reads a list of sample ids, one a line; '#' starts a comment.
func ReadIDs(path string) ([]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var ids []string
	for _, ln := range strings.Split(string(data), "\n") {
		if i := strings.IndexByte(ln, '#'); i >= 0 {
			ln = ln[:i]
		}
		if ln = strings.TrimSpace(ln); ln != "" {
			ids = append(ids, ln)
		}
	}
	return ids, nil
}

// Judge runs one exported sample through `bin run --json` with the eager
// interpreter, then compiled, each within timeout.
func Judge(bin, dir string, s Sample, timeout time.Duration) Outcome {
	return JudgeBy(Process(bin), dir, s, timeout)
}

// JudgeBy is Judge with the runs of `gcdbg run` made by r.
func JudgeBy(r Runner, dir string, s Sample, timeout time.Duration) Outcome {
	o := Outcome{ID: s.ID, OpInfo: s.OpInfo, DType: s.DType, Desc: s.Desc}
	if s.Refused != "" {
		o.Status, o.Stage, o.Reason = Refused, "export", s.Refused
		return o
	}
	for _, dev := range []string{"eager", "cpu"} {
		st, why := runOnce(r, filepath.Join(dir, s.Trace), dev, timeout)
		o.Status, o.Reason = st, why
		o.Stage = map[string]string{"eager": "eager", "cpu": "compiled"}[dev]
		if st != Pass {
			return o
		}
	}
	o.Stage, o.Reason = "", ""
	return o
}

// A Runner runs `gcdbg run ARGS...` and returns its exit status and what it
// printed; timedOut when it did not finish within timeout.
type Runner interface {
	Run(args []string, timeout time.Duration) (rc int, stdout, stderr []byte, timedOut bool, err error)
}

// Process is the Runner that starts the gcdbg binary once per run.
type Process string

func (bin Process) Run(args []string, timeout time.Duration) (int, []byte, []byte, bool, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, string(bin), append([]string{"run"}, args...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if ctx.Err() == context.DeadlineExceeded {
		return 0, nil, nil, true, nil
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode(), stdout.Bytes(), stderr.Bytes(), false, nil
	}
	return 0, stdout.Bytes(), stderr.Bytes(), false, err
}

// runResult is the part of `gcdbg run --json` the harness reads.
type runResult struct {
	OK     bool   `json:"ok"`
	Error  string `json:"error"`
	Graphs []struct {
		Name    string `json:"name"`
		Outputs []struct {
			Index      int         `json:"index"`
			VsExpected *comparison `json:"vs_expected"`
			VsEager    *comparison `json:"vs_eager"`
		} `json:"outputs"`
		Grads []struct {
			Name       string      `json:"name"`
			VsExpected *comparison `json:"vs_expected"`
			VsEager    *comparison `json:"vs_eager"`
		} `json:"grads"`
		Buffers []struct {
			Name       string      `json:"name"`
			VsExpected *comparison `json:"vs_expected"`
			VsEager    *comparison `json:"vs_eager"`
		} `json:"buffers"`
	} `json:"graphs"`
}

type comparison struct {
	Match     bool    `json:"match"`
	MaxAbsErr float64 `json:"max_abs_err"`
	Why       string  `json:"why"`
}

func runOnce(r Runner, trace, device string, timeout time.Duration) (Status, string) {
	rc, stdout, stderr, timedOut, err := r.Run([]string{"--json", "--runs", "1", "--device", device, trace}, timeout)
	if timedOut {
		return Timeout, fmt.Sprintf("no result after %s", timeout)
	}
	if err != nil {
		return Error, "cannot run gcdbg: " + err.Error()
	}
	return Classify(rc, stdout, stderr)
}

// Classify turns one `gcdbg run --json` (exit status, stdout, stderr) into a
// status and a one-line reason.
func Classify(rc int, stdout, stderr []byte) (Status, string) {
	errText := string(stderr)
	if strings.Contains(errText, "internal error") || strings.Contains(errText, "panic:") ||
		strings.Contains(errText, "goroutine ") {
		return Panic, firstLine(strings.TrimPrefix(strings.TrimSpace(errText), "gcdbg run: "))
	}
	var res runResult
	jsonErr := json.Unmarshal(stdout, &res)
	switch rc {
	case 0, 1:
		if jsonErr != nil {
			return Error, fmt.Sprintf("exit %d without a readable --json result: %v", rc, jsonErr)
		}
		if rc == 0 && res.OK {
			if len(res.Graphs) == 0 {
				return Error, "ok, but no graph was compared"
			}
			return Pass, ""
		}
		if rc == 0 || res.OK {
			return Error, fmt.Sprintf("exit status %d disagrees with ok=%v", rc, res.OK)
		}
		return Wrong, mismatchReason(&res)
	case 2:
		msg := res.Error
		if msg == "" {
			msg = strings.TrimPrefix(strings.TrimSpace(errText), "gcdbg run: ")
		}
		msg = firstLine(msg)
		if IsRefusal(msg) {
			return Refused, msg
		}
		return Error, msg
	}
	return Error, fmt.Sprintf("exit status %d: %s", rc, firstLine(errText))
}

// IsRefusal reports whether a gcdbg error says it does not take an op,
// argument or feature (as opposed to failing on one it takes).
func IsRefusal(msg string) bool {
	for _, k := range []string{"unsupported", "not supported", "is not in gcdbg's canonical op set",
		"has no in-place form", "out of scope", "does not support", "not implemented",
		"has no decomposition into core ops"} {
		if strings.Contains(msg, k) {
			return true
		}
	}
	return false
}

func mismatchReason(res *runResult) string {
	var parts []string
	add := func(what string, vs string, c *comparison) {
		if c == nil || c.Match {
			return
		}
		s := fmt.Sprintf("%s vs %s: max abs err %.3g", what, vs, c.MaxAbsErr)
		if c.Why != "" {
			s += " (" + c.Why + ")"
		}
		parts = append(parts, s)
	}
	for _, g := range res.Graphs {
		for _, o := range g.Outputs {
			w := fmt.Sprintf("output %d", o.Index)
			add(w, "PyTorch", o.VsExpected)
			add(w, "eager", o.VsEager)
		}
		for _, gd := range g.Grads {
			w := "grad of " + gd.Name
			add(w, "PyTorch", gd.VsExpected)
			add(w, "eager", gd.VsEager)
		}
		for _, b := range g.Buffers {
			w := "buffer " + b.Name
			add(w, "PyTorch", b.VsExpected)
			add(w, "eager", b.VsEager)
		}
	}
	if len(parts) == 0 {
		return "not ok, but no comparison says which"
	}
	if len(parts) > 3 {
		parts = append(parts[:3], fmt.Sprintf("and %d more", len(parts)-3))
	}
	return strings.Join(parts, "; ")
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 400 {
		s = s[:397] + "..."
	}
	return s
}

// Totals counts outcomes by status.
func Totals(outs []Outcome) map[Status]int {
	t := map[Status]int{}
	for _, o := range outs {
		t[o.Status]++
	}
	return t
}

// Regressions returns the ids of passing that did not pass in outs (a listed
// sample missing from outs counts as a regression only when its OpInfo was
// run in its dtype).
func Regressions(outs []Outcome, passing []string) []string {
	ran := map[Pair]bool{}
	for _, o := range outs {
		ran[o.pair()] = true
	}
	return RegressionsIn(outs, passing, ran)
}

// RegressionsIn is Regressions where a listed sample missing from outs
// counts as a regression only when its OpInfo×dtype is in covered (the pairs
// the run exported in full).
func RegressionsIn(outs []Outcome, passing []string, covered map[Pair]bool) []string {
	byID := map[string]Outcome{}
	for _, o := range outs {
		byID[o.ID] = o
	}
	var bad []string
	for _, id := range passing {
		o, ok := byID[id]
		if !ok {
			if p, ok := idPair(id); ok && covered[p] {
				bad = append(bad, id+" (no longer exported)")
			}
			continue
		}
		if o.Status != Pass {
			bad = append(bad, fmt.Sprintf("%s: %s at %s: %s", id, o.Status, o.Stage, o.Reason))
		}
	}
	return bad
}

// PassingIDs lists the ids of passing samples, sorted.
func PassingIDs(outs []Outcome) []string {
	var ids []string
	for _, o := range outs {
		if o.Status == Pass {
			ids = append(ids, o.ID)
		}
	}
	sort.Strings(ids)
	return ids
}
