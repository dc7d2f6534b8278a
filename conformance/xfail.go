package conformance

import (
	"bufio"
	"fmt"
	"os"
	"sort"
	"strings"
)

// Expected failures against PyTorch (conformance/xfail.tsv), as Inductor's
// test_torchinductor_opinfo.py keeps xfail lists: samples where PyTorch's
// recorded value is an artefact of its own kernels, proven inconsistent
// with itself (the same inputs give another value elsewhere in the same
// tensor), while gcdbg agrees with the float64 reference. The verdict does
// not know about them: such a sample is judged, and stored in
// results.tsv, as wrong. Only the table shows it apart, in a column
// "xfail (PyTorch)" with the reason, never as passed; a listed sample that
// passes is a stale entry and fails the run (and TestXFailEntries).

// XFailed is the table's status of a wrong sample listed in xfail.tsv. It
// is never judged and never stored.
const XFailed Status = "xfail"

// ReadXFail reads xfail.tsv: one sample id (OPINFO/DTYPE/INDEX), a tab and
// the reason with its evidence a line; '#' starts a comment line. A missing
// file is an empty list.
func ReadXFail(path string) (map[string]string, error) {
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return map[string]string{}, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string]string{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	for line := 1; sc.Scan(); line++ {
		ln := strings.TrimRight(sc.Text(), "\r")
		if strings.TrimSpace(ln) == "" || strings.HasPrefix(ln, "#") {
			continue
		}
		id, reason, ok := strings.Cut(ln, "\t")
		id, reason = strings.TrimSpace(id), strings.TrimSpace(reason)
		if !ok || reason == "" {
			return nil, fmt.Errorf("%s:%d: want a sample id, a tab and the reason", path, line)
		}
		if _, ok := idPair(id); !ok || strings.Count(id, "/") != 2 {
			return nil, fmt.Errorf("%s:%d: %q is not a sample id OPINFO/DTYPE/INDEX", path, line, id)
		}
		if _, dup := out[id]; dup {
			return nil, fmt.Errorf("%s:%d: sample %s listed twice", path, line, id)
		}
		out[id] = reason
	}
	return out, sc.Err()
}

// ApplyXFail is outs as the table shows them: a sample xf lists that was
// judged wrong becomes XFailed, with xf's reason. Everything else, a
// listed sample that passes or fails otherwise included, is left as judged.
func ApplyXFail(outs []Outcome, xf map[string]string) []Outcome {
	if len(xf) == 0 {
		return outs
	}
	res := make([]Outcome, len(outs))
	for i, o := range outs {
		if why, ok := xf[o.ID]; ok && o.Status == Wrong {
			o.Status, o.Reason = XFailed, why
		}
		res[i] = o
	}
	return res
}

// CheckXFail lists the entries of xf that outs contradict: a listed sample
// judged in outs that is not wrong (it passes: the entry is stale; or it
// fails in another way), and, when outs is complete (the whole results
// store), a listed sample outs does not have.
func CheckXFail(outs []Outcome, xf map[string]string, complete bool) []string {
	byID := map[string]Outcome{}
	for _, o := range outs {
		byID[o.ID] = o
	}
	var bad []string
	for id := range xf {
		o, ok := byID[id]
		switch {
		case !ok && complete:
			bad = append(bad, id+": no such sample (not in the results store)")
		case !ok:
		case o.Status == Pass:
			bad = append(bad, id+": passes now: a stale entry, remove it from conformance/xfail.tsv")
		case o.Status != Wrong:
			bad = append(bad, fmt.Sprintf("%s: %s at %s, not wrong against PyTorch: %s", id, o.Status, o.Stage, o.Reason))
		}
	}
	sort.Strings(bad)
	return bad
}
