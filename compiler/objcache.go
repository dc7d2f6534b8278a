package compiler

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"sync"
)

// Incremental builds: a program whose whole-source entry is not in the
// cache is built from one object per group of kernels, each cached by the
// hash of its own translation unit, so a one-node edit recompiles the
// edited kernel's group (and the entry points, when their text changed)
// and links the rest.
//
// The split is computed here from what the renderer already writes: the
// manifest's KernelSpec.Line (the `// kernel N:` comment starting each
// kernel) and the `void gcdbg_seg` line starting the entry points. A
// group's unit is the prelude plus its kernels' text, each `static void
// NAME(` made an external, hidden `void NAME(`; the entry points' unit is
// the prelude, prototypes of the kernels and the entry points. The
// prelude's static helpers and its lazily loaded OpenBLAS handle
// (pthread_once + dlopen) are then per object: each object initializes its
// own copy, which dlopen makes the same library, so behaviour is unchanged.
//
// Kernels are grouped, not one unit each, because a unit's fixed cost (a
// cc1 and an assembler, the headers, the prelude's GEMM helpers compiled
// again wherever a kernel calls them) is several times a small kernel's
// own: an unrolled nn.LSTM's backward (230 kernels, T=24) took 30 s of
// CPU as 230 units against 7 s in groups of about 16 (docs/performance.md).
// Group ends are content-defined (a kernel whose head, its comments and
// signature, hashes to 0 modulo groupEvery ends its group; groupMax caps a
// run without one), so an edit of one kernel's body changes one group's
// unit, and the groups around it keep their objects.

// part is one translation unit of a split program.
type part struct {
	name string // the group's kernels ("k3_a", "k3_a..k9_b"), or "entry" for the entry points
	text string // the unit as hashed (no #line directives)
	cc   string // the unit as compiled: #line directives map it to kernel.c
}

// groupEvery is the mean number of kernels per unit (a kernel ends its
// group when its text hashes to 0 modulo groupEvery) and groupMax the
// most: larger groups cost less in all (fewer fixed costs) but more to
// rebuild after an edit, and fewer units leave cores idle.
const (
	groupEvery = 16
	groupMax   = 48
)

// endsGroup reports whether a kernel ends its group, from its head (its
// comments and signature up to the body's brace: an edit of the body's
// constants or statements keeps the groups).
func endsGroup(head string) bool {
	h := sha256.Sum256([]byte(head))
	return (uint32(h[0])|uint32(h[1])<<8|uint32(h[2])<<16|uint32(h[3])<<24)%groupEvery == 0
}

// hidden keeps the kernels out of the library's exported symbols.
const hidden = `__attribute__((visibility("hidden"))) `

// splitProgram cuts p.Code into per-kernel units and the entry points'
// unit; ok is false when the code does not have the expected shape (then
// the program is built whole).
func splitProgram(p Program) (parts []part, ok bool) {
	type kern struct {
		name string
		line int
	}
	var ks []kern
	for _, s := range p.Manifest.Steps {
		for _, k := range s.Kernels {
			if k.Line > 0 && k.Name != "" && k.Shares == "" { // a repeat's code is its function's
				ks = append(ks, kern{k.Name, k.Line})
			}
		}
	}
	if len(ks) == 0 {
		return nil, false
	}
	sort.Slice(ks, func(i, j int) bool { return ks[i].line < ks[j].line })
	lines := strings.SplitAfter(p.Code, "\n")
	entry := -1 // 0-based index of the first entry point's line
	for i := ks[len(ks)-1].line; i < len(lines); i++ {
		if strings.HasPrefix(lines[i], "void gcdbg_seg") {
			entry = i
			break
		}
	}
	if entry < 0 || ks[0].line < 2 || ks[len(ks)-1].line > entry {
		return nil, false
	}
	prelude := strings.Join(lines[:ks[0].line-1], "")
	local := localPrelude(lines[:ks[0].line-1])
	var protos strings.Builder
	var text, cc strings.Builder // the group being filled
	first, n := "", 0            // its first kernel's name, its kernels
	for i, k := range ks {
		end := entry
		if i+1 < len(ks) {
			end = ks[i+1].line - 1
		}
		if k.line-1 >= end || (i > 0 && k.line == ks[i-1].line) {
			return nil, false
		}
		body := strings.Join(lines[k.line-1:end], "")
		def := "static void " + k.name + "("
		at := strings.Index(body, def)
		brace := strings.Index(body[max(at, 0):], "{")
		if at < 0 || strings.Count(body, def) != 1 || brace < 0 {
			return nil, false
		}
		sig := body[at+len("static ") : at+brace]
		protos.WriteString(hidden + strings.TrimSpace(sig) + ";\n")
		body = body[:at] + hidden + body[at+len("static "):]
		if n == 0 {
			first = k.name
			text.WriteString(local)
			cc.WriteString("#line 1 \"kernel.c\"\n" + local)
		}
		text.WriteString(body)
		fmt.Fprintf(&cc, "#line %d \"kernel.c\"\n%s", k.line, body)
		n++
		if endsGroup(body[:strings.Index(body, "{")]) || n == groupMax || i == len(ks)-1 {
			name := first
			if n > 1 {
				name += ".." + k.name
			}
			parts = append(parts, part{name: name, text: text.String(), cc: cc.String()})
			text.Reset()
			cc.Reset()
			n = 0
		}
	}
	wrap := strings.Join(lines[entry:], "")
	parts = append(parts, part{name: "entry", text: prelude + protos.String() + wrap,
		cc: "#line 1 \"kernel.c\"\n" + prelude + protos.String() + fmt.Sprintf("#line %d \"kernel.c\"\n", entry+1) + wrap})
	return parts, true
}

// exportedDef is a top-level definition of an external function in the
// prelude (gcdbg_uses_blas, which the worker looks up).
var exportedDef = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_ *]*\([^;{}]*\)\s*\{\s*$`)

// localPrelude is the prelude as a kernel's unit includes it: its exported
// functions made static, so that only the entry points' unit defines them
// (one definition in the library, as in the whole program).
func localPrelude(lines []string) string {
	var b strings.Builder
	for _, l := range lines {
		if exportedDef.MatchString(l) && !strings.HasPrefix(l, "static ") {
			b.WriteString("static ")
		}
		b.WriteString(l)
	}
	return b.String()
}

// objectFlags are the compile flags of one unit: the program's flags
// without -shared, with -c; unused-function warnings are off because each
// unit carries the whole prelude but uses only some of its helpers, and
// unused-variable warnings because a lowered index may go unread (a
// slice_scatter's clamped source index when its source is broadcast): gcc
// drops the dead computation, and every other warning still fails a build
// test.
func objectFlags(flags []string) []string {
	var out []string
	for _, f := range flags {
		if f != "-shared" {
			out = append(out, f)
		}
	}
	return append(out, "-Wno-unused-function", "-Wno-unused-variable", "-c")
}

// errLink marks a failure to link the objects: the split went wrong (say
// a prelude global defined in every unit), not the program, which is then
// built whole.
var errLink = errors.New("linking the kernel groups' objects")

func objectHash(text string, t *toolchain, flags []string) string {
	h := sha256.New()
	for _, s := range []string{"gcdbg.object/1", codeForHash(text), t.path, t.version, strings.Join(flags, " ")} {
		fmt.Fprintf(h, "%d:%s\x00", len(s), s)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// buildIncremental builds p into tmp/lib.so from cached or freshly
// compiled objects (under root/objects); built and cached count them.
// The error, if any, is the first failing unit's, explained against the
// full program's lines (the units' #line directives name kernel.c).
func buildIncremental(ctx context.Context, p Program, parts []part, t *toolchain, flags, libs []string, root, tmp, label string) (warnings string, built, cached int, err error) {
	objDir := filepath.Join(root, "objects")
	if err := os.MkdirAll(objDir, 0o700); err != nil {
		return "", 0, 0, fmt.Errorf("compiler: %s: %w", label, err)
	}
	// The units are written beside tmp's kernel.c but removed before tmp
	// becomes the cache entry.
	work := filepath.Join(tmp, "units")
	if err := os.Mkdir(work, 0o700); err != nil {
		return "", 0, 0, fmt.Errorf("compiler: %s: %w", label, err)
	}
	defer os.RemoveAll(work)
	oflags := objectFlags(flags)
	objs := make([]string, len(parts))
	fresh := make([]bool, len(parts))
	outs := make([]string, len(parts))
	errs := make([]error, len(parts))
	sem := make(chan struct{}, runtime.NumCPU())
	var wg sync.WaitGroup
	for i, pt := range parts {
		objs[i] = filepath.Join(objDir, objectHash(pt.text, t, oflags)+".o")
		if _, err := os.Stat(objs[i]); err == nil {
			cached++
			continue
		}
		built++
		fresh[i] = true
		wg.Add(1)
		go func(i int, pt part) {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			src := filepath.Join(work, fmt.Sprintf("unit%d.c", i))
			obj := filepath.Join(work, fmt.Sprintf("unit%d.o", i))
			if errs[i] = os.WriteFile(src, []byte(pt.cc), 0o600); errs[i] != nil {
				return
			}
			args := append(append([]string{}, oflags...), "-o", obj, src)
			cmd := ccCommand(ctx, t.path, args...)
			cmd.Dir = work
			out, err := cmd.CombinedOutput()
			outs[i] = string(out)
			if err != nil {
				errs[i] = fmt.Errorf("compiler: %s: %s %s (unit of %s) failed: %w\n%s", label, t.path, strings.Join(args, " "), pt.name, err, explain(string(out), p))
				return
			}
			// Same content, same object: a concurrent build's rename is as good.
			errs[i] = os.Rename(obj, objs[i])
		}(i, pt)
	}
	wg.Wait()
	for i := range parts {
		if errs[i] != nil {
			return "", built, cached, errs[i]
		}
		warnings += outs[i]
	}
	args := append(append(append([]string{}, flags...), "-o", "lib.so"), objs...)
	args = append(args, libs...)
	cmd := ccCommand(ctx, t.path, args...)
	cmd.Dir = tmp
	if out, err := cmd.CombinedOutput(); err != nil {
		// A damaged cached object fails the link: drop the ones taken from
		// the cache so that the next build compiles them afresh.
		for i := range parts {
			if !fresh[i] {
				_ = os.Remove(objs[i])
			}
		}
		return "", built, cached, fmt.Errorf("compiler: %s: %w: %s %s failed: %w\n%s", label, errLink, t.path, strings.Join(args, " "), err, out)
	} else {
		warnings += string(out)
	}
	return warnings, built, cached, nil
}
