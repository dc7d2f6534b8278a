package stages

import (
	"fmt"
	"testing"

	"gcdbg/interp"
	"gcdbg/tensor"
	"gcdbg/trace"
)

// aten's max_unpool2d(self, indices, output_size) and max_unpool3d(self,
// indices, output_size, stride, padding) bind by aten's order, not
// torch.nn.functional's (kernel_size third), and take the size as given;
// F's form computes it from kernel_size. Expected values from PyTorch 1.13:
//
//	x = torch.tensor([[[[1.5, -2.], [3., 4.25]]]]); i = torch.tensor([[[[0, 3], [9, 15]]]])
//	torch.ops.aten.max_unpool2d.default(x, i, [4, 4]), F.max_unpool2d(x, i, 2),
//	torch.ops.aten.max_unpool3d.default(x[:, :, None], i[:, :, None], [1, 4, 5], [1, 2, 2], [0, 0, 0])
func TestMaxUnpoolAtenForms(t *testing.T) {
	x := tensor.FromFloats(tensor.Float32, []int{1, 1, 2, 2}, []float64{1.5, -2, 3, 4.25})
	i := tensor.New(tensor.Int64, 1, 1, 2, 2)
	copy(i.S.I, []int64{0, 3, 9, 15})
	js := fmt.Sprintf(`{"format":"gcdbg.trace","version":1,"name":"t","graphs":[{"name":"g0","nodes":[
	 {"name":"x","op":"placeholder","target":"x"},
	 {"name":"i","op":"placeholder","target":"i"},
	 {"name":"a","op":"call_function","target":"torch.ops.aten.max_unpool2d.default","args":[{"node":"x"},{"node":"i"},[4,4]]},
	 {"name":"b","op":"call_function","target":"torch.nn.functional.max_unpool2d","args":[{"node":"x"},{"node":"i"},2]},
	 {"name":"x5","op":"call_method","target":"unsqueeze","args":[{"node":"x"},2]},
	 {"name":"i5","op":"call_method","target":"unsqueeze","args":[{"node":"i"},2]},
	 {"name":"c","op":"call_function","target":"torch._C._nn.max_unpool3d","args":[{"node":"x5"},{"node":"i5"},[1,4,5],[1,2,2],[0,0,0]]},
	 {"name":"output","op":"output","target":"output","args":[[{"node":"a"},{"node":"b"},{"node":"c"}]]}]}],
	 "tensors":{"x":%s,"i":%s}}`, tensorJSON(x), fmt.Sprintf(`{"dtype":"int64","shape":[1,1,2,2],"data":%q}`, b64(i.Bytes())))
	tr, err := trace.Parse([]byte(js), t.TempDir(), "t.json")
	if err != nil {
		t.Fatal(err)
	}
	units, err := Run(tr, "decomposed")
	if err != nil {
		t.Fatal(err)
	}
	got, err := interp.Run(units[0].Decomposed, nil)
	if err != nil {
		t.Fatal(err)
	}
	plane := []float64{1.5, 0, 0, -2, 0, 0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 4.25}
	want := [][]float64{plane, plane, append(append([]float64{}, plane...), 0, 0, 0, 0)}
	shapes := [][]int{{1, 1, 4, 4}, {1, 1, 4, 4}, {1, 1, 1, 4, 5}}
	for k, w := range want {
		g, err := interp.AsTensor(got[k])
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(g.Shape) != fmt.Sprint(shapes[k]) {
			t.Errorf("output %d: shape %v, PyTorch %v", k, g.Shape, shapes[k])
			continue
		}
		for j, v := range w {
			if g.Flat(j) != v {
				t.Errorf("output %d element %d: %v, PyTorch %v", k, j, g.Flat(j), v)
			}
		}
	}
}
