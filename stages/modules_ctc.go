package stages

import (
	"fmt"

	"gcdbg/ir"
)

// nn.CTCLoss(blank, reduction, zero_infinity) called as
// loss(log_probs, targets, input_lengths, target_lengths): ctc_loss
// (decomp_ctc.go) with the module's recorded attributes; a trace that lacks
// one is refused rather than run with a guessed default.
func init() {
	moduleRulesN["torch.nn.CTCLoss"] = func(m *ir.Module, args []ir.Arg, kw map[string]ir.Arg, p map[string]*ir.Node) (string, []ir.Arg, error) {
		var in []ir.Arg
		for i, name := range []string{"log_probs", "targets", "input_lengths", "target_lengths"} {
			a := args0(args, kw, i, name)
			if a == nil {
				return "", nil, fmt.Errorf("args: CTCLoss takes (log_probs, targets, input_lengths, target_lengths), %s missing", name)
			}
			in = append(in, a)
		}
		for _, a := range []string{"blank", "reduction", "zero_infinity"} {
			if _, ok := m.Attrs[a]; !ok {
				return "", nil, fmt.Errorf("module.attrs.%s: the trace does not record this loss module's %q; re-export with exporter/gcdbg_export.py, which records it", a, a)
			}
		}
		return "ctc_loss", append(in, attr(m, "blank", int64(0)), red(m), attr(m, "zero_infinity", false)), nil
	}
}
