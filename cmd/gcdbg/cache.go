package main

import (
	"flag"
	"fmt"
	"io"

	"gcdbg/compiler"
)

// cmdCache is `gcdbg cache [clear]`: where the build cache is, how many
// compiled programs and kernel objects it holds and their size; `clear`
// removes them (files gcdbg did not make are left alone).
func cmdCache(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("cache", flag.ContinueOnError)
	dir := fs.String("dir", "", "the cache directory (default: $GCDBG_CACHE_DIR, else the user cache directory's gcdbg)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: gcdbg cache [clear] [--dir DIR]")
		fs.PrintDefaults()
		fmt.Fprintln(stderr, "The kernels' measured choices (DIR/choices/, see gcdbg help) are neither counted nor cleared; GCDBG_AUTOTUNE=0 ignores them.")
	}
	pos, err := parseFlags(fs, args, stderr)
	if err != nil {
		if err == flag.ErrHelp {
			return 0
		}
		fmt.Fprintln(stderr, "gcdbg cache:", err)
		return 2
	}
	switch {
	case len(pos) == 0:
	case len(pos) == 1 && pos[0] == "clear":
		st, err := compiler.Stats(*dir)
		if err != nil {
			fmt.Fprintln(stderr, "gcdbg cache:", err)
			return 2
		}
		if _, err := compiler.Clear(*dir); err != nil {
			fmt.Fprintln(stderr, "gcdbg cache clear:", err)
			return 2
		}
		fmt.Fprintf(stdout, "cleared %s: %d compiled programs, %d kernel objects, %s\n", st.Root, st.Entries, st.Objects, byteSize(st.Bytes))
		return 0
	default:
		fs.Usage()
		return 2
	}
	st, err := compiler.Stats(*dir)
	if err != nil {
		fmt.Fprintln(stderr, "gcdbg cache:", err)
		return 2
	}
	fmt.Fprintf(stdout, "cache %s\n  %d compiled programs, %d kernel objects, %s", st.Root, st.Entries, st.Objects, byteSize(st.Bytes))
	if st.Leftovers > 0 {
		fmt.Fprintf(stdout, ", %d unfinished build directories", st.Leftovers)
	}
	fmt.Fprintln(stdout, "\n  gcdbg cache clear removes them")
	return 0
}

func byteSize(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}
