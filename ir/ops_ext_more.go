package ir

import (
	"fmt"
	"math"

	"gcdbg/tensor"
)

// logaddexp, xlogy, frac, diff, pairwise_distance and more losses
// (margin ranking, hinge embedding, Poisson NLL, triplet margin).

// reduceLoss applies a loss reduction ("none", "mean", "sum" or aten's 0/1/2).
func reduceLoss(l *tensor.Tensor, red Value) (Value, error) {
	r, ok := red.(string)
	if n, isInt := red.(int64); isInt && n >= 0 && n <= 2 {
		r, ok = []string{"none", "mean", "sum"}[n], true
	}
	if !ok {
		return nil, fmt.Errorf("reduction must be a string, got %s", typeName(red))
	}
	switch r {
	case "none":
		return l, nil
	case "sum":
		return tensor.Sum(l, nil, false)
	case "mean":
		return tensor.Mean(l, nil, false)
	}
	return nil, fmt.Errorf("%s is not a valid value for reduction", r)
}

func pairwiseDistance(x1, x2 *tensor.Tensor, p, eps float64, keep bool) (*tensor.Tensor, error) {
	d, err := tensor.MapFloat("pairwise_distance", func(v []float64) float64 { return v[0] - v[1] + eps }, x1, x2)
	if err != nil {
		return nil, err
	}
	if d.Dim() == 0 {
		return tensor.VectorNorm(d, p, nil, keep)
	}
	return tensor.VectorNorm(d, p, []int{-1}, keep)
}

func init() {
	regPW("logaddexp(self, other)", func(a Args) (Value, error) {
		r := &ar{a: a}
		return r.done(tensor.MapFloat("logaddexp", func(v []float64) float64 {
			x, y := v[0], v[1]
			if math.IsInf(x, 0) && x == y {
				return x
			}
			m := math.Max(x, y)
			return m + math.Log1p(math.Exp(-math.Abs(x-y)))
		}, r.t(0), r.t(1)))
	})
	regPW("xlogy(self, other)", func(a Args) (Value, error) {
		r := &ar{a: a}
		return r.done(tensor.MapFloat("xlogy", func(v []float64) float64 {
			x, y := v[0], v[1]
			switch {
			case math.IsNaN(y):
				return math.NaN()
			case x == 0:
				return 0
			}
			return x * math.Log(y)
		}, r.t(0), r.t(1)))
	})
	regPW("frac(self)", func(a Args) (Value, error) {
		r := &ar{a: a}
		return r.done(tensor.MapFloat("frac", func(v []float64) float64 { return v[0] - math.Trunc(v[0]) }, r.t(0)))
	})
	Register("diff(input, n=1, dim=-1, prepend=None, append=None)", KindOther, func(a Args) (Value, error) {
		r := &ar{a: a}
		x, n, d := r.t(0), r.i(1), r.i(2)
		if r.err != nil {
			return nil, r.err
		}
		if a.V[3] != nil || a.V[4] != nil {
			return nil, a.errf(3, "prepend/append are not supported by gcdbg")
		}
		if x.Dim() == 0 {
			return nil, fmt.Errorf("diff expects input to be at least one-dimensional")
		}
		dd, err := tensor.NormDim(d, x.Dim())
		if err != nil {
			return nil, err
		}
		for k := 0; k < n && x.Shape[dd] > 0; k++ {
			m := x.Shape[dd]
			hi, err := tensor.Narrow(x, dd, 1, m-1)
			if err != nil {
				return nil, err
			}
			lo, err := tensor.Narrow(x, dd, 0, m-1)
			if err != nil {
				return nil, err
			}
			op := "sub"
			if x.DType == tensor.Bool {
				op = "logical_xor"
			}
			if x, err = tensor.Binary(op, hi, lo); err != nil {
				return nil, err
			}
		}
		return x, nil
	})
	Register("pairwise_distance(x1, x2, p=2.0, eps=1e-06, keepdim=False)", KindOther, func(a Args) (Value, error) {
		r := &ar{a: a}
		x1, x2, p, eps, keep := r.t(0), r.t(1), r.f(2), r.f(3), r.b(4)
		if r.err != nil {
			return nil, r.err
		}
		floatOperands(&x1, &x2)
		return r.done(pairwiseDistance(x1, x2, p, eps, keep))
	})
	Register("margin_ranking_loss(input1, input2, target, margin=0.0, reduction='mean')", KindLoss, func(a Args) (Value, error) {
		r := &ar{a: a}
		x1, x2, t, m := r.t(0), r.t(1), r.t(2), r.f(3)
		if r.err != nil {
			return nil, r.err
		}
		floatOperands(&x1, &x2, &t)
		l, err := tensor.MapFloat("margin_ranking_loss", func(v []float64) float64 { return math.Max(-v[2]*(v[0]-v[1])+m, 0) }, x1, x2, t)
		if err != nil {
			return nil, err
		}
		return reduceLoss(l, a.V[4])
	})
	Register("hinge_embedding_loss(input, target, margin=1.0, reduction='mean')", KindLoss, func(a Args) (Value, error) {
		r := &ar{a: a}
		x, t, m := r.t(0), r.t(1), r.f(2)
		if r.err != nil {
			return nil, r.err
		}
		l, err := tensor.MapFloat("hinge_embedding_loss", func(v []float64) float64 {
			o := 0.0
			if v[1] != 1 {
				o += math.Max(m-v[0], 0)
			}
			if v[1] != -1 {
				o += v[0]
			}
			return o
		}, x, t)
		if err != nil {
			return nil, err
		}
		return reduceLoss(l, a.V[3])
	})
	Register("poisson_nll_loss(input, target, log_input=True, full=False, eps=1e-08, reduction='mean')", KindLoss, func(a Args) (Value, error) {
		r := &ar{a: a}
		x, t, li, full, eps := r.t(0), r.t(1), r.b(2), r.b(3), r.f(4)
		if r.err != nil {
			return nil, r.err
		}
		floatOperands(&x, &t)
		l, err := tensor.MapFloat("poisson_nll_loss", func(v []float64) float64 {
			var o float64
			if li {
				o = math.Exp(v[0]) - v[1]*v[0]
			} else {
				o = v[0] - v[1]*math.Log(v[0]+eps)
			}
			if full && v[1] > 1 {
				o += v[1]*math.Log(v[1]) - v[1] + 0.5*math.Log(2*math.Pi*v[1])
			}
			return o
		}, x, t)
		if err != nil {
			return nil, err
		}
		return reduceLoss(l, a.V[5])
	})
	Register("triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-06, swap=False, reduction='mean')", KindLoss, func(a Args) (Value, error) {
		r := &ar{a: a}
		an, po, ne, m, p, eps, swap := r.t(0), r.t(1), r.t(2), r.f(3), r.f(4), r.f(5), r.b(6)
		if r.err != nil {
			return nil, r.err
		}
		floatOperands(&an, &po, &ne)
		dp, err := pairwiseDistance(an, po, p, eps, false)
		if err != nil {
			return nil, err
		}
		dn, err := pairwiseDistance(an, ne, p, eps, false)
		if err != nil {
			return nil, err
		}
		if swap {
			ds, err := pairwiseDistance(po, ne, p, eps, false)
			if err != nil {
				return nil, err
			}
			if dn, err = tensor.MapFloat("triplet", func(v []float64) float64 { return math.Min(v[0], v[1]) }, dn, ds); err != nil {
				return nil, err
			}
		}
		l, err := tensor.MapFloat("triplet_margin_loss", func(v []float64) float64 { return math.Max(m+v[0]-v[1], 0) }, dp, dn)
		if err != nil {
			return nil, err
		}
		return reduceLoss(l, a.V[7])
	})
}
