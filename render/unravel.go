package render

import (
	"strings"

	"gcdbg/loopir"
)

// Unravelled variables as expressions. When a node's ranges group neither
// as the loop nest's nor by consecutive products (GroupNorm's [N, G,
// C/G*H*W] view over an [N, C, H, W] reduction nest), bind gives each of
// its variables the flat loop index divided and reduced modulo its range.
// Written as C text, an index over those variables kept a / and a % per
// dimension per element even where they cancel (x % 9216 + 9216*((x / 9216)
// % 8) + 73728*(x / 73728) is x): GroupNorm kernels ran at 0.6-0.8 GB/s.
// So bind also records each variable as a loopir expression over the loop
// variables (unravelExprs), and expr substitutes those into a whole index
// and lets loopir's algebra fold it (foldDivMod) before writing C.

// loopVarPrefix marks a loop variable inside a substituted index: the
// node's own variables (x0, r1) and the nest's loops share names.
const loopVarPrefix = "@"

// unravelExprs records, for the C text of each unravelled variable, its
// expression over the loops (names over sizes).
func (g *kernelGen) unravelExprs(ranges, loops []loopir.Expr, names []string, texts map[int]string) {
	if g.unravel == nil {
		g.unravel = map[string]loopir.Expr{}
	}
	var flat loopir.Expr = loopir.C(0)
	for j := range names {
		v := loopir.Var{Name: loopVarPrefix + names[j], Range: loops[j]}
		flat = loopir.Add(flat, loopir.Mul(append([]loopir.Expr{v}, loops[j+1:]...)...))
	}
	for i, r := range ranges {
		text, ok := texts[i]
		if !ok {
			continue
		}
		v := flat
		if rest := ranges[i+1:]; len(rest) > 0 {
			v = loopir.FloorDiv(v, loopir.Mul(rest...))
		}
		if i > 0 {
			v = loopir.Mod(v, r)
		}
		g.unravel[text] = v
	}
}

// substUnravelled rewrites e over the loop variables when it reads an
// unravelled variable (ok false when it reads none); rest is vars without
// the substituted ones, for the variables e still reads by name.
func (g *kernelGen) substUnravelled(e loopir.Expr, vars map[string]string) (folded loopir.Expr, rest map[string]string, ok bool) {
	if len(g.unravel) == 0 || vars == nil {
		return e, vars, false
	}
	text := e.String()
	m := map[string]loopir.Expr{}
	rest = map[string]string{}
	for name, v := range vars {
		if x, ok := g.unravel[v]; ok && strings.Contains(text, name) {
			m[name] = x
			continue
		}
		rest[name] = v
	}
	if len(m) == 0 {
		return e, vars, false
	}
	return loopir.Subst(e, m), rest, true
}
