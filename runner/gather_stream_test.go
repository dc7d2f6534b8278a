package runner

import (
	"strings"
	"testing"
)

// Row-copy gathers with streaming stores (issue 13; render/gather_stream.go,
// testdata/models/gather_stream.py): both gathers (rows of 1 KB, and of
// 4,012 bytes that start and end off a cache line) get the streamed form
// of their row loop, with the id and the row's last element checked; and
// each form — plain or streamed, on the team or one thread — gives
// outputs that match PyTorch's and the eager interpreter's, NaN and ±Inf
// from the tables included.
func TestGatherStreamRows(t *testing.T) {
	tr, units, src := renderFirstProgram(t, "testdata/gather_stream.json") // attention_batch_test.go
	streamed := 0
	for _, k := range strings.Split(src.Code, "\n// kernel ")[1:] {
		if head := strings.SplitN(k, "\n", 3); len(head) < 3 || !strings.Contains(head[1], "index_select") {
			continue // the origins line names the gathers
		}
		if !strings.Contains(k, "gcdbg_stream_bytes(") || !strings.Contains(k, "gcdbg_stream_fence()") ||
			strings.Count(k, "\"the elements of ") != 3 {
			t.Errorf("gather kernel without the streamed row form (or its row-end check):\n%s", k)
			continue
		}
		streamed++
	}
	if streamed != 2 {
		t.Errorf("%d gathers with the streamed row form, want 2", streamed)
	}
	matchEachChoice(t, tr, units, 2, "0", "1", "4", "5")
}
