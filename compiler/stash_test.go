package compiler_test

import (
	"path/filepath"
	"strings"
	"testing"
)

// In testdata/vector_reductions.json's fused row kernel, softmax's exp is
// computed once: the sum pass stashes it in softmax's output and the last
// pass reads it back (render/stash.go). log_softmax's exp is not stashed:
// its last pass needs only log(sum). TestVectorReductionsMatchPyTorch
// checks the stashed kernel's values against PyTorch's on rows with NaN,
// ±Inf and -0; TestVectorReductionsVectorize that its loops stay vector
// loops.
func TestStashSoftmaxExp(t *testing.T) {
	u := loadUnits(t, "testdata/vector_reductions.json")[0]
	src := renderLP(t, u, u.Programs[0])
	if n := strings.Count(src.Code, "stashed for the later passes"); n != 1 {
		t.Fatalf("%d stash stores, want 1 (softmax's exp):\n%s", n, src.Code)
	}
	if n := strings.Count(src.Code, "= expf("); n != 2 {
		t.Errorf("%d expf calls, want 2 (softmax's and log_softmax's, each once):\n%s", n, src.Code)
	}
}

// A stash lives in an output of the kernel's last pass until that pass
// overwrites it with its own result, so the last pass must read the
// stash back before the store. real_textcls's row kernel fuses
// cross-entropy's log_softmax and softmax (then a topk): softmax's exp
// was stashed in log_softmax's output, which the last pass writes before
// softmax's division read the stash back (the topk's values were wrong).
// For every fixture's program, each stashed buffer is read after its
// stash store before any other store to it; real_textcls's softmax exp is
// still stashed (in softmax's own output). TestBuildFixturesMatchEager
// checks the values.
func TestStashReadBeforeOverwrite(t *testing.T) {
	paths, _ := filepath.Glob("../fixtures/*.json")
	zoo, _ := filepath.Glob("../stages/testdata/*.json")
	textcls := 0
	for _, path := range append(paths, zoo...) {
		for _, u := range loadUnits(t, path) {
			for _, lp := range u.Programs {
				label := filepath.Base(path) + ":" + u.Captured.Name + "/" + lp.Role
				lines := strings.Split(renderLP(t, u, lp).Code, "\n")
				for i, l := range lines {
					if !strings.Contains(l, "stashed for the later passes") {
						continue
					}
					if filepath.Base(path) == "real_textcls.json" {
						textcls++
					}
					buf := strings.TrimSpace(l[:strings.Index(l, "[")])
					read := false
					for _, l2 := range lines[i+1:] {
						if strings.HasPrefix(l2, "}") {
							break // end of the kernel
						}
						if at := strings.Index(l2, buf+"["); at >= 0 {
							if strings.Contains(l2[:at], "=") {
								read = true
								break
							}
							if !read {
								t.Errorf("%s: %s is overwritten before its stash is read back:\n%s\n...\n%s", label, buf, l, l2)
							}
							break
						}
					}
				}
			}
		}
	}
	if textcls == 0 {
		t.Errorf("real_textcls.json: no stash (softmax's exp should be stashed in softmax's output)")
	}
}
