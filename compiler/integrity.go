package compiler

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// A cache that checks itself. Each entry ROOT/HASH holds lib.so and
// lib.sha256, the library's own sha256 written when it was installed; an
// entry is used only when the library hashes to it. A corrupt entry
// (empty, truncated, garbage, a library swapped for another) or an
// incomplete one (lib.so removed) is moved aside and rebuilt with a
// one-line notice. Entries are installed by renaming a finished build
// directory into place, so a reader never sees half an entry; a build
// directory is named build-PID-*, and one whose process no longer runs
// (killed mid-build) is removed by the next build. Two processes building
// the same entry both compile; the first rename wins and the other uses
// the winner's entry once it verifies.

const (
	libSumFile  = "lib.sha256"
	buildPrefix = "build-"
	trashPrefix = "trash-"
)

// codeForHash is the code as the cache key sees it: the header comment
// naming the trace and graph (render's first line) is left out, so that
// graphs with identical code share one entry (a trace of 100 identical
// one-op graphs compiles once).
func codeForHash(code string) string {
	if strings.HasPrefix(code, "/* gcdbg generated ") {
		if i := strings.Index(code, "\n"); i >= 0 && strings.HasSuffix(code[:i], "*/") {
			return code[i+1:]
		}
	}
	return code
}

// fileSum is the sha256 of a file.
func fileSum(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// checkEntry verifies the cache entry dir: "" when its library is there
// and hashes to its recorded sum, else why not. missing is true when there
// is no entry at all.
func checkEntry(dir string) (why string, missing bool) {
	if _, err := os.Lstat(dir); os.IsNotExist(err) {
		return "no entry", true
	}
	lib := filepath.Join(dir, "lib.so")
	fi, err := os.Lstat(lib)
	switch {
	case err != nil:
		return "its library is missing", false
	case !fi.Mode().IsRegular():
		return "its library is not a regular file", false
	case fi.Size() == 0:
		return "its library is empty", false
	}
	want, err := os.ReadFile(filepath.Join(dir, libSumFile))
	if err != nil {
		return "its recorded sha256 is missing", false
	}
	got, err := fileSum(lib)
	if err != nil {
		return "its library cannot be read: " + err.Error(), false
	}
	if got != strings.TrimSpace(string(want)) {
		return fmt.Sprintf("its library hashes to %.12s…, not the %.12s… recorded when it was built", got, strings.TrimSpace(string(want))), false
	}
	return "", false
}

// discard moves a broken entry aside (a rename, atomic) and removes it.
func discard(root, dir string) error {
	trash, err := os.MkdirTemp(root, trashPrefix)
	if err != nil {
		return err
	}
	dst := filepath.Join(trash, "entry")
	if err := os.Rename(dir, dst); err != nil && !os.IsNotExist(err) {
		os.RemoveAll(trash)
		return err
	}
	return os.RemoveAll(trash)
}

// install renames the finished build directory tmp to dir after recording
// its library's sha256. When another process installed dir first, its
// entry is used if it verifies; a broken one is replaced.
func install(root, tmp, dir string) error {
	sum, err := fileSum(filepath.Join(tmp, "lib.so"))
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(tmp, libSumFile), []byte(sum+"\n"), 0o600); err != nil {
		return err
	}
	for attempt := 0; ; attempt++ {
		err := os.Rename(tmp, dir)
		if err == nil {
			return nil
		}
		why, missing := checkEntry(dir)
		if why == "" {
			return nil // another process won the race with the same content
		}
		if missing || attempt > 2 {
			return err
		}
		if err := discard(root, dir); err != nil {
			return err
		}
	}
}

// sweepBuilds removes build and trash directories left in root by
// processes that no longer run (a build killed mid-way), and any older
// than a day.
func sweepBuilds(root string) {
	ents, err := os.ReadDir(root)
	if err != nil {
		return
	}
	for _, e := range ents {
		name := e.Name()
		var rest string
		switch {
		case strings.HasPrefix(name, buildPrefix):
			rest = strings.TrimPrefix(name, buildPrefix)
		case strings.HasPrefix(name, trashPrefix):
			rest = strings.TrimPrefix(name, trashPrefix)
		default:
			continue
		}
		p := filepath.Join(root, name)
		fi, err := os.Lstat(p)
		if err != nil || !fi.IsDir() {
			continue
		}
		stale := time.Since(fi.ModTime()) > 24*time.Hour
		if pidText, _, ok := strings.Cut(rest, "-"); ok {
			if pid, err := strconv.Atoi(pidText); err == nil && pid > 0 && pid != os.Getpid() {
				if syscall.Kill(pid, 0) == syscall.ESRCH {
					stale = true
				}
			}
		}
		if stale {
			_ = os.RemoveAll(p)
		}
	}
}

// flight makes concurrent Builds of one entry in this process compile it
// once: the first builds, the others wait for it.
var flight struct {
	mu sync.Mutex
	m  map[string]*sync.Mutex
}

func lockEntry(hash string) func() {
	flight.mu.Lock()
	if flight.m == nil {
		flight.m = map[string]*sync.Mutex{}
	}
	mu := flight.m[hash]
	if mu == nil {
		mu = &sync.Mutex{}
		flight.m[hash] = mu
	}
	flight.mu.Unlock()
	mu.Lock()
	return mu.Unlock
}

// CacheStats is what `gcdbg cache` shows.
type CacheStats struct {
	Root      string
	Entries   int   // compiled programs
	Objects   int   // objects of kernel groups and entry points (objcache.go)
	Leftovers int   // build or trash directories
	Bytes     int64 // everything under Root
}

// Stats measures the cache at dir ("" = the default root).
func Stats(dir string) (CacheStats, error) {
	root, err := cacheRoot(dir)
	if err != nil {
		return CacheStats{}, err
	}
	st := CacheStats{Root: root}
	ents, err := os.ReadDir(root)
	if err != nil {
		return st, err
	}
	for _, e := range ents {
		switch {
		case e.Name() == "objects":
			objs, _ := os.ReadDir(filepath.Join(root, "objects"))
			for _, o := range objs {
				if strings.HasSuffix(o.Name(), ".o") {
					st.Objects++
				}
			}
		case strings.HasPrefix(e.Name(), buildPrefix), strings.HasPrefix(e.Name(), trashPrefix):
			st.Leftovers++
		case e.IsDir() && isHash(e.Name()):
			st.Entries++
		}
	}
	_ = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if fi, err := d.Info(); err == nil {
				st.Bytes += fi.Size()
			}
		}
		return nil
	})
	return st, nil
}

func isHash(s string) bool {
	if len(s) != 64 {
		return false
	}
	for _, c := range s {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// Clear removes what the cache at dir holds: compiled programs, objects
// and leftovers; names gcdbg did not make are left alone. It returns the
// number of entries removed.
func Clear(dir string) (int, error) {
	root, err := cacheRoot(dir)
	if err != nil {
		return 0, err
	}
	ents, err := os.ReadDir(root)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, e := range ents {
		name := e.Name()
		if !(name == "objects" || isHash(name) || strings.HasPrefix(name, buildPrefix) || strings.HasPrefix(name, trashPrefix)) {
			continue
		}
		if err := os.RemoveAll(filepath.Join(root, name)); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}
