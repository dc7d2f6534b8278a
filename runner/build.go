package runner

import (
	"fmt"

	"gcdbg/compiler"
	"gcdbg/stages"
	"gcdbg/trace"
)

// The compiled path links the renderer's output (rendered by the `kernels`
// stage into lp.Source) to the builder: one content-hashed shared object
// per program, cached in the user's cache dir.
func init() {
	BuildProgram = buildProgram
}

func buildProgram(tr *trace.Trace, u *stages.Unit, lp *stages.LoopProgram, opt Options) (*Program, error) {
	if lp.Source == nil {
		return nil, fmt.Errorf("no generated source (the kernels stage did not run)")
	}
	art, err := compiler.Build(lp.Source.Program(), opt.compilerOptions())
	if err != nil {
		return nil, err
	}
	m := art.Manifest
	cache := "miss"
	if art.Hit {
		cache = "hit"
	}
	return &Program{Manifest: &m, Library: art.Library, Cache: cache, BuildMS: float64(art.Elapsed.Microseconds()) / 1e3}, nil
}
