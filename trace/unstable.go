package trace

import (
	"strconv"
	"strings"

	"gcdbg/ir"
)

// expectedUnstable reads expected.unstable (the exporter's, optional): the
// values PyTorch's reference run did not reproduce bit for bit when the
// producer ran it twice from the same state, keyed "outputs/<i>",
// "grads/<name>" or "buffers/<name>", each with how the runs differed.
func (d *decoder) expectedUnstable(o *object, ex *ir.Expected) *Error {
	v, ok := o.get("unstable")
	if !ok || v == nil {
		return nil
	}
	uo, ok := v.(*object)
	if !ok {
		return d.errf("expected.unstable", "unstable is %s, want an object", kind(v))
	}
	ex.Unstable = map[string]string{}
	for _, k := range uo.keys {
		f := "expected.unstable" + key(k)
		s, ok := uo.vals[k].(string)
		if !ok {
			return d.errf(f, "is %s, want a string (how the two runs differ)", kind(uo.vals[k]))
		}
		what, name, _ := strings.Cut(k, "/")
		switch what {
		case "grads", "buffers":
			if name == "" {
				return d.errf(f, "%q names no value (want grads/<name> or buffers/<name>)", k)
			}
		case "outputs":
			if i, err := strconv.Atoi(name); err != nil || i < 0 || i >= len(ex.Outputs) {
				return d.errf(f, "%q names no output of expected.outputs (%d of them)", k, len(ex.Outputs))
			}
		default:
			return d.errf(f, "%q: want outputs/<i>, grads/<name> or buffers/<name>", k)
		}
		ex.Unstable[k] = s
	}
	return nil
}
