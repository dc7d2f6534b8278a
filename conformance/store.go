package conformance

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
)

// The results store (conformance/results.tsv) holds the latest judgement of
// every sample any run has judged: one line per sample with the gcdbg commit
// and the time of the run that judged it. A run merges into it (MergeStore):
// the samples it judged replace theirs, and the samples of an OpInfo×dtype it
// covered that it no longer exports are dropped. docs/conformance.md and
// conformance/passing.txt are made from the whole store, so a partial run
// (--ops, --dtypes) updates its rows and leaves the others as they were, each
// saying when it was judged.

// storeColumns is the store's header line.
const storeColumns = "id\topinfo\tdtype\tstatus\tstage\treason\tcommit\tdate"

// Pair names an OpInfo in one dtype ("" for a sample without one).
type Pair struct{ OpInfo, DType string }

func (o Outcome) pair() Pair { return Pair{o.OpInfo, o.DType} }

// Store is the content of results.tsv: the PyTorch version that made every
// sample in it, and the outcomes sorted by id.
type Store struct {
	Torch string
	Outs  []Outcome
}

// ReadStore reads a results store; a missing file is an empty store.
func ReadStore(path string) (*Store, error) {
	st := &Store{}
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return st, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	seen := map[string]bool{}
	for line := 1; sc.Scan(); line++ {
		ln := sc.Text()
		if v, ok := strings.CutPrefix(ln, "# torch "); ok {
			st.Torch = strings.TrimSpace(v)
			continue
		}
		if ln == "" || strings.HasPrefix(ln, "#") || ln == storeColumns {
			continue
		}
		f := strings.Split(ln, "\t")
		if len(f) != 8 {
			return nil, fmt.Errorf("%s:%d: %d fields, want 8 (%s)", path, line, len(f), strings.ReplaceAll(storeColumns, "\t", " "))
		}
		o := Outcome{ID: f[0], OpInfo: f[1], DType: f[2], Status: Status(f[3]), Stage: f[4], Reason: f[5], Commit: f[6], Date: f[7]}
		switch o.Status {
		case Pass, Wrong, Refused, Error, Panic, Timeout:
		default:
			return nil, fmt.Errorf("%s:%d: sample %s: unknown status %q", path, line, o.ID, o.Status)
		}
		if o.ID == "" || o.OpInfo == "" {
			return nil, fmt.Errorf("%s:%d: a sample needs id and opinfo", path, line)
		}
		if seen[o.ID] {
			return nil, fmt.Errorf("%s:%d: sample %s listed twice", path, line, o.ID)
		}
		seen[o.ID] = true
		st.Outs = append(st.Outs, o)
	}
	return st, sc.Err()
}

// WriteStore writes the store atomically (a temporary file renamed over path).
func WriteStore(path string, st *Store) error {
	outs := append([]Outcome(nil), st.Outs...)
	sort.Slice(outs, func(i, j int) bool { return outs[i].ID < outs[j].ID })
	var b strings.Builder
	b.WriteString("# Conformance results store (docs/conformance.md): the latest judgement of every sample, merged by\n")
	b.WriteString("# `conformance/run.sh --merge`; docs/conformance.md and passing.txt are made from it. Do not edit by hand.\n")
	fmt.Fprintf(&b, "# torch %s\n%s\n", st.Torch, storeColumns)
	for _, o := range outs {
		f := []string{o.ID, o.OpInfo, o.DType, string(o.Status), o.Stage, StoreReason(o.Reason), o.Commit, o.Date}
		for i := range f {
			f[i] = tsvField(f[i])
		}
		b.WriteString(strings.Join(f, "\t"))
		b.WriteByte('\n')
	}
	return WriteFileAtomic(path, []byte(b.String()))
}

// WriteFileAtomic writes a file by renaming a complete temporary file over
// it, so a reader (or `git add`) never sees half of it.
func WriteFileAtomic(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+"-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// StoreReason is the reason as the store keeps it: one line, without the
// exported trace's (temporary) path, at most 200 bytes.
func StoreReason(s string) string {
	if i := strings.Index(s, ".json: "); i >= 0 && !strings.ContainsAny(s[:i], " \t") {
		s = s[i+len(".json: "):]
	}
	s = tsvField(s)
	if len(s) > 200 {
		cut := 197
		for cut > 0 && s[cut]&0xc0 == 0x80 { // not inside a UTF-8 sequence
			cut--
		}
		s = s[:cut] + "..."
	}
	return s
}

func tsvField(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '\t' || r == '\n' || r == '\r' {
			return ' '
		}
		return r
	}, s)
}

// MergeStore returns the store with run merged in: every outcome of run
// replaces the store's of the same id, and the store's samples of a pair in
// covered that run does not hold are dropped (no longer exported).
func MergeStore(st *Store, run []Outcome, covered map[Pair]bool) *Store {
	mine := map[string]bool{}
	for _, o := range run {
		mine[o.ID] = true
	}
	out := &Store{Torch: st.Torch}
	for _, o := range st.Outs {
		if !mine[o.ID] && !covered[o.pair()] {
			out.Outs = append(out.Outs, o)
		}
	}
	out.Outs = append(out.Outs, run...)
	sort.Slice(out.Outs, func(i, j int) bool { return out.Outs[i].ID < out.Outs[j].ID })
	return out
}

// ReadCovered reads the OpInfo×dtype pairs export_opinfo.py exported in
// full (DIR/covered*.tsv: "opinfo<TAB>dtype" lines); a run of chosen
// sample ids (--ids) covers none.
func ReadCovered(dir string) (map[Pair]bool, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "covered*.tsv"))
	if err != nil {
		return nil, err
	}
	out := map[Pair]bool{}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		for i, ln := range strings.Split(string(data), "\n") {
			if ln == "" {
				continue
			}
			op, dt, ok := strings.Cut(ln, "\t")
			if !ok || op == "" {
				return nil, fmt.Errorf("%s:%d: want opinfo<TAB>dtype", p, i+1)
			}
			out[Pair{op, dt}] = true
		}
	}
	return out, nil
}

// LockStore takes an exclusive lock beside the store (path + ".lock"),
// waiting for another run's merge to finish; call the returned func to
// release it.
func LockStore(path string) (func(), error) {
	f, err := os.OpenFile(path+".lock", os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, fmt.Errorf("lock %s.lock: %w", path, err)
	}
	return func() {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}

// NewPassing is passing.txt after a merge: every id the store says passes,
// and every id listed before (a sample that stopped passing stays listed, so
// the check keeps failing until it is fixed) — except, with accept, the
// listed ids of the pairs this run covered or the ids it judged that do not
// pass now.
func NewPassing(st *Store, old []string, run []Outcome, covered map[Pair]bool, accept bool) []string {
	keep := map[string]bool{}
	for _, o := range st.Outs {
		if o.Status == Pass {
			keep[o.ID] = true
		}
	}
	judged := map[string]bool{}
	for _, o := range run {
		judged[o.ID] = true
	}
	for _, id := range old {
		if keep[id] {
			continue
		}
		if accept {
			if judged[id] {
				continue
			}
			if p, ok := idPair(id); ok && covered[p] {
				continue
			}
		}
		keep[id] = true
	}
	ids := make([]string, 0, len(keep))
	for id := range keep {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

// idPair is the OpInfo and dtype of a sample id OPINFO/DTYPE/INDEX.
func idPair(id string) (Pair, bool) {
	i := strings.LastIndexByte(id, '/')
	if i < 0 {
		return Pair{}, false
	}
	op, dt, ok := strings.Cut(id[:i], "/")
	if !ok {
		return Pair{id[:i], ""}, true
	}
	return Pair{op, dt}, true
}

// WritePassing writes passing.txt.
func WritePassing(path string, ids []string) error {
	text := "# Sample ids that pass conformance (docs/conformance.md); `make conformance` fails when one stops passing.\n" +
		"# Made from conformance/results.tsv by `conformance/run.sh --merge`; an id that stops passing stays listed\n" +
		"# until it passes again or a run with --update accepts it.\n" + strings.Join(ids, "\n") + "\n"
	return WriteFileAtomic(path, []byte(text))
}
