package render

import (
	"sort"
	"strings"
	"testing"

	"gcdbg/ir"
)

// builtIn are the pointwise core ops the loop IR lowers without asking a
// dialect for a spelling, each with the reason.
var builtIn = map[string]string{
	"to_dtype": "a cast: the renderer writes (type)x and the float-to-int rule itself (floatToInt)",
	"clone":    "a copy: lowered to a load and a store",
}

// missing are the spellings a dialect lacks on purpose, with the reason.
var missing = map[string]map[string]string{}

// Every pointwise core op has a spelling in every dialect (a math function
// or an operator template), or a reason above why it needs none: a new
// dialect or a new core op cannot silently fall back to "has no spelling"
// at code generation time.
func TestEveryCoreOpHasASpellingInEveryDialect(t *testing.T) {
	var ops []string
	for name := range ir.CoreOps {
		if d := ir.Lookup(name); d != nil && d.Kind == ir.KindPointwise {
			ops = append(ops, strings.TrimPrefix(name, "aten."))
		}
	}
	sort.Strings(ops)
	if len(ops) < 40 {
		t.Fatalf("only %d pointwise core ops: %v", len(ops), ops)
	}
	names := make([]string, 0, len(Dialects))
	for n := range Dialects {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, dn := range names {
		d := Dialects[dn]
		for _, op := range ops {
			if _, ok := builtIn[op]; ok {
				continue
			}
			_, math := d.Math[op]
			tpl := d.Ops[op] != "" || d.Ops[op+":int"] != ""
			_, why := missing[dn][op]
			switch {
			case !math && !tpl && !why:
				t.Errorf("dialect %s: core op %s has no spelling (Math, Ops) and no reason in builtIn or missing", dn, op)
			case (math || tpl) && why:
				t.Errorf("dialect %s: core op %s is spelled now: drop its reason from missing", dn, op)
			}
		}
	}
	for op := range builtIn {
		if ir.Lookup("aten."+op) == nil || !ir.IsCore("aten."+op) {
			t.Errorf("builtIn lists %s, which is not a core op", op)
		}
	}
}
