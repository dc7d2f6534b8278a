package render

import (
	"strings"
	"testing"
)

// oneDNN's blocked buffers are three shared slots, not a set per call
// site: before, gcdbg_dop_make gave every conv kernel's operands their own
// aligned_alloc'ed blocked copy, kept for the process's life whether or
// not the kernel chose the primitive (the autotuner runs every candidate
// once), so a program held about one blocked copy of every convolution's
// input, weight and output. The values with the shared slots (every conv of
// three fixtures on the primitive, one after the other) are runner
// TestConvDNNLMatchesPyTorch's.
func TestConvDNNLSharesBlockedBuffers(t *testing.T) {
	p := convDNNLPrelude
	if n := strings.Count(p, "aligned_alloc("); n != 1 {
		t.Errorf("the prelude allocates blocked buffers in %d places, want 1 (gcdbg_dnn_blocked)", n)
	}
	mk := p[strings.Index(p, "static int gcdbg_dop_make("):]
	mk = mk[:strings.Index(mk, "\n}\n")]
	if strings.Contains(mk, "alloc(") || !strings.Contains(mk, "mem_create(&o->prim, prim, gcdbg_dnn.eng, NULL)") {
		t.Errorf("gcdbg_dop_make allocates a blocked buffer per call site:\n%s", mk)
	}
	run := p[strings.Index(p, "static int gcdbg_dconv_run("):]
	if !strings.Contains(run, "gcdbg_dnn_blocked(i, o->bytes)") || !strings.Contains(run, "mem_set(o->prim, bb)") {
		t.Errorf("gcdbg_dconv_run does not point the primitive's operands at the shared slots")
	}
}
