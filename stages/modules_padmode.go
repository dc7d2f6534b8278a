package stages

import (
	"fmt"

	"gcdbg/ir"
)

// Convolutions with padding_mode 'reflect', 'replicate' or 'circular':
// torch.nn's _ConvNd._conv_forward pads the input itself with
// F.pad(x, _reversed_padding_repeated_twice, mode=padding_mode) and then
// convolves with padding 0. convPadMode emits that pad node and returns the
// module as the convolution sees it (padding 0, padding_mode 'zeros').

var convPadModeRank = map[string]int{"torch.nn.Conv1d": 1, "torch.nn.Conv2d": 2, "torch.nn.Conv3d": 3}

func (nz *normalizer) convPadMode(n *ir.Node, typ string, x ir.Arg) (ir.Arg, *ir.Module, error) {
	m := n.Module
	rank, isConv := convPadModeRank[typ]
	pm, _ := attr(m, "padding_mode", "zeros").(string)
	if !isConv || pm == "zeros" {
		return x, m, nil
	}
	switch pm {
	case "reflect", "replicate", "circular":
	default:
		return nil, nil, fmt.Errorf("module.attrs.padding_mode: %q is not one of 'zeros', 'reflect', 'replicate', 'circular'", pm)
	}
	pads, err := reversedPaddingTwice(m, rank)
	if err != nil {
		return nil, nil, err
	}
	c := &ir.Module{Type: m.Type, Params: m.Params, Attrs: map[string]ir.Arg{}}
	for k, v := range m.Attrs {
		c.Attrs[k] = v
	}
	c.Attrs["padding"] = int64(0)
	c.Attrs["padding_mode"] = "zeros"
	zero := true
	for _, p := range pads {
		zero = zero && p == 0
	}
	if zero {
		return x, c, nil
	}
	pad, err := nz.moduleCall(n, "aten.pad", nz.mapArg(x), sizesArg(pads), pm)
	if err != nil {
		return nil, nil, err
	}
	return pad, c, nil
}

// reversedPaddingTwice is torch.nn's _reversed_padding_repeated_twice: the
// per-dim padding, last dim first, each as (left, right); padding='same'
// splits d*(k-1) with the extra element on the right.
func reversedPaddingTwice(m *ir.Module, rank int) ([]int, error) {
	perDim := func(name string, def int64) ([]int64, error) {
		v := attr(m, name, def)
		switch t := v.(type) {
		case int64:
			out := make([]int64, rank)
			for i := range out {
				out[i] = t
			}
			return out, nil
		case ir.Tuple:
			if len(t) != rank {
				return nil, fmt.Errorf("module.attrs.%s: want %d values, got %s", name, rank, argText(v))
			}
			out := make([]int64, rank)
			for i, e := range t {
				iv, ok := e.(int64)
				if !ok {
					return nil, fmt.Errorf("module.attrs.%s: want ints, got %s", name, argText(v))
				}
				out[i] = iv
			}
			return out, nil
		}
		return nil, fmt.Errorf("module.attrs.%s: want an int or a tuple of ints, got %s", name, argText(v))
	}
	lo, hi := make([]int64, rank), make([]int64, rank)
	switch p := attr(m, "padding", int64(0)).(type) {
	case string:
		if p == "valid" {
			break
		}
		if p != "same" {
			return nil, fmt.Errorf("module.attrs.padding: %q is not 'same' or 'valid'", p)
		}
		k, err := perDim("kernel_size", 1)
		if err != nil {
			return nil, err
		}
		d, err := perDim("dilation", 1)
		if err != nil {
			return nil, err
		}
		for i := range k {
			total := d[i] * (k[i] - 1)
			lo[i] = total / 2
			hi[i] = total - lo[i]
		}
	default:
		ps, err := perDim("padding", 0)
		if err != nil {
			return nil, err
		}
		copy(lo, ps)
		copy(hi, ps)
	}
	var out []int
	for i := rank - 1; i >= 0; i-- {
		out = append(out, int(lo[i]), int(hi[i]))
	}
	return out, nil
}
