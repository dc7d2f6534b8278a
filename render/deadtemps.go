package render

import (
	"regexp"
	"strings"
)

// dropDeadTemps removes the declarations `const T tN = expr;` of a kernel
// body whose temporary nothing reads. An index computed for a dimension
// whose stride folds to 0 (a slice of a size-1 input) leaves such a
// temporary, and gcc's -Wall names it (TestBuildFixturesMatchEager treats a
// warning as a defect). Temporaries are numbered once per kernel (tmp) and
// their expressions have no side effects (loads, arithmetic, pure helpers),
// so removing one changes nothing; a removal can make another dead, hence
// the loop.
func dropDeadTemps(body string) string {
	lines := strings.Split(body, "\n")
	for {
		uses := map[string]int{}
		for _, l := range lines {
			for _, t := range tempRef.FindAllString(l, -1) {
				uses[t]++
			}
		}
		kept, dropped := lines[:0:0], false
		for _, l := range lines {
			if m := tempDecl.FindStringSubmatch(l); m != nil && uses[m[1]] == 1 {
				dropped = true
				continue
			}
			kept = append(kept, l)
		}
		lines = kept
		if !dropped {
			return strings.Join(lines, "\n")
		}
	}
}

var (
	tempRef  = regexp.MustCompile(`\bt[0-9]+\b`)
	tempDecl = regexp.MustCompile(`^\s*const [A-Za-z_][A-Za-z0-9_]* (t[0-9]+) = [^;]*;(\s*//.*)?$`)
)
