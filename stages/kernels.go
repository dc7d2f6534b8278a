package stages

import (
	"fmt"
	"path/filepath"
	"strings"

	"gcdbg/compiler"
	"gcdbg/render"
)

// The code-generation stages: the renderer turns each compiled graph's
// fused kernels into C (render.C), and the driver that runs them.

// renderKernels renders every compiled graph of u.
func renderKernels(u *Unit) error {
	for _, lp := range u.Programs {
		if err := renderProgram(u, lp); err != nil {
			return err
		}
	}
	return nil
}

func renderProgram(u *Unit, lp *LoopProgram) error {
	if lp.Schedule == nil {
		return nil
	}
	src, err := render.Render(lp.Loops, lp.Schedule.Kernels, lp.Memory, render.C,
		render.Options{Trace: traceLabel(u), Graph: u.Captured.Name, Role: lp.Role})
	if err != nil {
		return fmt.Errorf("%s graph: %w", lp.Role, err)
	}
	lp.Source = src
	return nil
}

func traceLabel(u *Unit) string {
	if u.Trace == nil {
		return ""
	}
	if u.Trace.Path != "" {
		return filepath.Base(u.Trace.Path)
	}
	return u.Trace.Name
}

// splitSource cuts the generated file into its kernels and its driver.
func splitSource(code string) (kernels, wrapper string) {
	start := strings.Index(code, "\n// kernel ")
	end := strings.Index(code, "\nvoid gcdbg_seg")
	if end < 0 {
		end = len(code)
	}
	if start < 0 || start > end {
		start = end
	}
	return code[start:end], code[end:]
}

func printKernels(u *Unit) string {
	return printPrograms(u, "kernels", func(lp *LoopProgram) string {
		if lp.Source == nil {
			return "not rendered\n"
		}
		k, _ := splitSource(lp.Source.Code)
		return printChoices(lp.Source.Kernels) + strings.TrimLeft(k, "\n")
	})
}

func printWrapper(u *Unit) string {
	return printPrograms(u, "wrapper", func(lp *LoopProgram) string {
		if lp.Source == nil {
			return "not rendered\n"
		}
		var b strings.Builder
		m := lp.Source.Manifest
		for _, st := range m.Steps {
			if st.Kind == "fallback" {
				fmt.Fprintf(&b, "# fallback %s (node %s), writes slots %v\n", st.Op, st.IRNode, st.Writes)
				continue
			}
			names := make([]string, len(st.Kernels))
			for i, k := range st.Kernels {
				names[i] = k.Name
			}
			fmt.Fprintf(&b, "# %s: %s\n", st.Entry, strings.Join(names, ", "))
		}
		for i, buf := range m.Buffers {
			where := "own allocation"
			if buf.Arena >= 0 {
				where = fmt.Sprintf("arena+%d", buf.Arena)
			}
			fmt.Fprintf(&b, "# slot %d: %s %s %s%v, %s\n", i, buf.Kind, buf.Name, buf.DType, buf.Sizes, where)
		}
		_, w := splitSource(lp.Source.Code)
		b.WriteString(strings.TrimLeft(w, "\n"))
		return b.String()
	})
}

// printChoices says, for every kernel with alternatives, which one this
// machine's measurement chose and the timings that decided it (from the
// choice cache that `gcdbg run` fills; compiler/autotune.go), or that it
// was not measured yet.
func printChoices(ks []compiler.KernelSpec) string {
	var b strings.Builder
	progs := compiler.CachedProgramChecks(ks)
	for _, k := range ks {
		if len(k.Alternatives) < 2 {
			continue
		}
		if b.Len() == 0 {
			b.WriteString("// choices by measurement (render/choice.go, compiler/autotune.go), on this machine:\n")
		}
		if !compiler.AutotuneEnabled() {
			fmt.Fprintf(&b, "//   %s: autotuning off (GCDBG_AUTOTUNE=0): runs its default, choice 0 (%s)\n", k.Name, render.Comment(k.Alternatives[0].Label))
			continue
		}
		ds := compiler.CachedChoices(k.Key)
		if len(ds) == 0 {
			var labels []string
			for _, a := range k.Alternatives {
				labels = append(labels, fmt.Sprintf("%d %s", a.Choice, a.Label))
			}
			fmt.Fprintf(&b, "//   %s: not measured yet (gcdbg run measures): %s\n", k.Name, render.Comment(strings.Join(labels, "; ")))
			continue
		}
		for _, d := range ds {
			d.Kernel = k.Name
			if len(ds) == 1 && len(progs) == 1 {
				// The choice this program runs: its kernels' choices
				// confirmed together (compiler/autotune_program.go).
				d = progs[0].InProgram(k, d)
				d.Program = nil // printed once, below
			}
			fmt.Fprintf(&b, "//   %s\n", render.Comment(d.String()))
		}
	}
	for _, pc := range progs {
		fmt.Fprintf(&b, "//   %s\n", render.Comment(pc.String()))
	}
	if b.Len() > 0 {
		b.WriteString("\n")
	}
	return b.String()
}
