package tensor

import (
	"encoding/json"
	"os"
	"testing"
)

type scatterCase struct {
	Op         string `json:"op"`
	Dim        int    `json:"dim"`
	Start, End *int
	Step       *int `json:"step"`
	Index      int  `json:"index"`
	X, Src     scatterT
	Out        scatterT
}

type scatterT struct {
	DType string    `json:"dtype"`
	Shape []int     `json:"shape"`
	Data  []float64 `json:"data"`
}

func (s scatterT) tensor(t *testing.T) *Tensor {
	dt, ok := ParseDType(s.DType)
	if !ok {
		t.Fatalf("unknown dtype %q", s.DType)
	}
	out := New(dt, s.Shape...)
	for i, v := range s.Data {
		out.SetFlat(i, v)
	}
	return out
}

// slice_scatter, select_scatter and the out-of-place index_put match
// PyTorch 1.13 (testdata/gen_scatter.py) and leave their input unchanged.
func TestScatterMatchesPyTorch(t *testing.T) {
	raw, err := os.ReadFile("testdata/scatter_cases.json")
	if err != nil {
		t.Fatal(err)
	}
	var file struct{ Cases []scatterCase }
	if err := json.Unmarshal(raw, &file); err != nil {
		t.Fatal(err)
	}
	for i, c := range file.Cases {
		x, src, want := c.X.tensor(t), c.Src.tensor(t), c.Out.tensor(t)
		before := x.Clone()
		var got *Tensor
		switch c.Op {
		case "slice_scatter":
			got, err = SliceScatter(x, src, c.Dim, c.Start, c.End, c.Step)
		case "select_scatter":
			got, err = SelectScatter(x, src, c.Dim, c.Index)
		case "index_put_list":
			idx := FromInts(Int64, []int{2}, []int64{0, 2})
			got, err = IndexPutCopy(x, []IndexItem{{Kind: IdxTensor, Tensor: idx}}, src)
		}
		if err != nil {
			t.Fatalf("case %d %s: %v", i, c.Op, err)
		}
		if !equalInts(got.Shape, want.Shape) || got.DType != want.DType {
			t.Fatalf("case %d %s: got %s%v, want %s%v", i, c.Op, got.DType, got.Shape, want.DType, want.Shape)
		}
		for k := 0; k < want.Numel(); k++ {
			if got.Flat(k) != want.Flat(k) || x.Flat(k) != before.Flat(k) {
				t.Fatalf("case %d %s: element %d: got %v want %v (input now %v, was %v)", i, c.Op, k, got.Flat(k), want.Flat(k), x.Flat(k), before.Flat(k))
			}
		}
	}
}

// A src that does not have the view's shape is an error, as in PyTorch
// (the scatters never broadcast), and a bad dim or index never panics.
func TestScatterErrors(t *testing.T) {
	x := New(Float32, 3, 4)
	one := 1
	if _, err := SliceScatter(x, New(Float32, 3, 4), 1, &one, nil, nil); err == nil {
		t.Error("slice_scatter accepted a src of the wrong shape")
	}
	if _, err := SelectScatter(x, New(Float32, 1), 0, 1); err == nil {
		t.Error("select_scatter broadcast its src")
	}
	if _, err := SelectScatter(x, New(Float32, 4), 0, 3); err == nil {
		t.Error("select_scatter accepted index 3 of a dim of size 3")
	}
	if _, err := SliceScatter(x, New(Float32, 3, 4), 5, nil, nil, nil); err == nil {
		t.Error("slice_scatter accepted dim 5")
	}
	if _, err := SliceScatter(x, nil, 0, nil, nil, nil); err == nil {
		t.Error("slice_scatter accepted a nil src")
	}
}
