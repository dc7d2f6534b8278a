package ir

import (
	"fmt"
	"slices"

	"gcdbg/tensor"
)

// registerInplace registers name_ for each canonical op name: the
// out-of-place op computed, then written into self (which must be able to
// hold its dtype). Functionalization turns each back into the out-of-place
// op and a write (stages/functionalize.go).
func registerInplace(names ...string) {
	for _, name := range names {
		base := Lookup("aten." + name)
		sc := base.Schema
		sc.Name = name + "_"
		d := &OpDef{Name: "aten." + name + "_", Schema: sc, Kind: base.Kind, Inplace: true}
		d.Eval = func(a Args) (Value, error) {
			self, ok := a.V[0].(*tensor.Tensor)
			if !ok {
				return nil, a.errf(0, "in-place op needs a tensor, got %s", typeName(a.V[0]))
			}
			r, err := base.Eval(Args{Op: base, V: a.V})
			if err != nil {
				return nil, err
			}
			rt := r.(*tensor.Tensor)
			if rt.DType.IsFloat() && !self.DType.IsFloat() {
				return nil, fmt.Errorf("%s: result type %s can't be cast to the desired output type %s", d.Name, rt.DType, self.DType)
			}
			if !slices.Equal(rt.Shape, self.Shape) {
				return nil, fmt.Errorf("%s: output with shape %v doesn't match the broadcast shape %v", d.Name, self.Shape, rt.Shape)
			}
			return self, self.CopyFrom(rt)
		}
		d.Infer = inferInplace
		registry[d.Name] = d
	}
}
