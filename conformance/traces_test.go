package conformance

import (
	"path/filepath"
	"testing"

	"gcdbg/runner"
	"gcdbg/trace"
)

// Edge-shape samples PyTorch exported once (conformance/export_opinfo.py
// --ids, PyTorch 1.13), committed so they run without torch: each through
// the pipeline's graphs under the eager interpreter and through the compiled
// kernels, outputs and gradients against PyTorch's.
//   - cos/float32/1, nn.functional.linear/float32/1: [1, 0, 3] inputs with grad
//     (failed in the min-cut partition: a zero-byte primal could not be saved)
//   - amax/float32/1: a 0-d input, dim=0, keepdim=True (panicked in stages.amaxGrad)
//   - max.reduction_with_dim/float32/1 and /2: values and indices (2 outputs; 0-d)
//   - prod/float32/12: zeros in the input (the grad was NaN)
//   - sum/int32/1: a 0-d int32 sum to int64 with dim=0, keepdim=True
//   - add.inplace/float32/0: x = t0.clone(); x.add_(t1) on 0-d tensors with grad
//   - add.inplace/int64/1: t0.add_(t1) on the input, which is returned (a write-back)
//   - add.out/float32/1, add.out/float32/8: torch.add(t0, t1, out=t2), the buffer an input;
//     /8 has zero elements
//   - max.reduction_with_dim.out/float32/2: torch.max(t0, 0, out=(t1, t2)) of a 0-d tensor
//   - constant_pad_nd/int64/7, constant_pad_nd/bool/7 (manifest_pad.jsonl): an empty
//     [0, 3, 3] input padded by 1 in every dim is all the pad value (the eager
//     interpreter's tensor.Pad returned zeros for an empty input)
//   - bfloat16 (manifest_bf16.jsonl), where gcdbg computed otherwise than PyTorch's kernels:
//     nn.functional.poisson_nll_loss/bfloat16/12 (full=True, a target of exactly 0: PyTorch's
//     gradient there is NaN, 0 * log(0), gcdbg's safe-where decomposition gave -0.22);
//     nn.functional.triplet_margin_loss/bfloat16/5 (the norm rounded x*x, the sum and the sqrt
//     to bfloat16 each: 10.125 where PyTorch's float accumulation gives 10.0);
//     nn.functional.avg_pool1d/bfloat16/7 (window sums rounded per add: -3.953 for -3.922);
//     nn.functional.max_pool1d/bfloat16/11 and /495 (equal maxima in a window: the gradient
//     went half to each, PyTorch's all to the first); topk/bfloat16/1 (a tie for the third
//     place: gcdbg's stable order picked index 5, ATen's nth_element index 9)
//   - dtype and 0-d rules (manifest_dtype.jsonl): cumsum/int32/3 and prod/bool/19 (dtype= is
//     the result's dtype: gcdbg said int64), cumsum.out/int8/3 (out= without dtype= sums into
//     the buffer's dtype), nn.functional.bilinear/int32/0 and /uint8/5 (integers stay in their
//     dtype), index_select/float32/0 and index_select.out/int64/0 (a 0-d self gives a 0-d
//     result; gcdbg said [1]), nn.functional.batch_norm/float32/3 and /4 (a [0] input is
//     cloned, training or not; gcdbg refused a 1-D input), max.reduction_with_dim/bool/0 and
//     min.reduction_with_dim.out/bool/1 (max/min(dim) take bool, where argmax does not),
//     pow/float16/5 (exported without gradients: PyTorch's float16 pow backward fails,
//     "log_vml_cpu" not implemented for 'Half', and float16 is not among its backward dtypes)
//   - int64 convolutions (manifest_conv_int64.jsonl), which PyTorch computes and gcdbg refused:
//     conv1d/int64/3 (groups, stride, dilation), conv2d/int64/7, conv_transpose2d/int64/4 and
//     conv_transpose3d/int64/4 (output_padding, dilation)
//   - nn.functional.pairwise_distance/float16/4 (manifest_pnorm.jsonl): p = 5, |x - y|^5
//     overflows float16, so PyTorch's norm is +Inf and its gradient 0 (norm_backward divides
//     by norm^4); gcdbg's gradient was NaN (5 * 14^4 overflowed in float16, times 0) and its
//     eager kernel's norm 15.33 (computed wide)
func TestCommittedEdgeTraces(t *testing.T) {
	samples, err := ReadManifest("testdata/traces")
	if err != nil {
		t.Fatal(err)
	}
	if len(samples) < 12 {
		t.Fatalf("%d samples in testdata/traces, want 12", len(samples))
	}
	t.Setenv("GCDBG_CACHE_DIR", t.TempDir())
	for _, s := range samples {
		t.Run(s.ID, func(t *testing.T) {
			tr, err := trace.Load(filepath.Join("testdata/traces", s.Trace))
			if err != nil {
				t.Fatal(err)
			}
			for _, dev := range []string{"eager", "cpu"} {
				res, err := runner.Run(tr, runner.Options{Runs: 1, Device: dev})
				if err != nil {
					t.Fatalf("%s (%s) on %s: %v", s.ID, s.Desc, dev, err)
				}
				if !res.OK || len(res.Graphs) != 1 || len(res.Graphs[0].Outputs) == 0 {
					t.Errorf("%s (%s) on %s: ok %v, %d graphs", s.ID, s.Desc, dev, res.OK, len(res.Graphs))
					continue
				}
				for _, o := range res.Graphs[0].Outputs {
					if o.VsExpected == nil || !o.VsExpected.Match {
						t.Errorf("%s on %s: output %d vs PyTorch: %+v", s.ID, dev, o.Index, o.VsExpected)
					}
				}
				for _, g := range res.Graphs[0].Grads {
					if g.VsExpected == nil || !g.VsExpected.Match {
						t.Errorf("%s on %s: grad of %s vs PyTorch: %+v", s.ID, dev, g.Name, g.VsExpected)
					}
				}
				// a mutated input (in-place on it, out= into it) is written back;
				// its value is an output too, so PyTorch's is checked above
				for _, b := range res.Graphs[0].Buffers {
					if b.VsEager == nil || !b.VsEager.Match || (b.VsExpected != nil && !b.VsExpected.Match) {
						t.Errorf("%s on %s: written-back %s: vs eager %+v, vs PyTorch %+v", s.ID, dev, b.Name, b.VsEager, b.VsExpected)
					}
				}
			}
		})
	}
}
