package stages

import (
	"math"

	"gcdbg/ir"
	"gcdbg/tensor"
)

// embedding_bag in core ops: the rows of every entry by index_select, then
// a [bags, entries] membership mask (from arange and the offsets) reduces
// them with mm (sum, mean) or a masked amax (max). An entry equal to
// padding_idx is no member of its bag.

func init() {
	decompositions = append(decompositions, decomposition{"aten.embedding_bag",
		"embedding_bag(idx, w, offsets, mode, pad) = scatter_add(zeros, 0, bag, where(valid, index_select(w, 0, idx), 0)) (sum; mean divides by the bag sizes), bag = cumsum(scatter_add(zeros, 0, starts, 1)) - 1 as ATen's offset2bag, valid = bag >= 0, before the last bag's end, idx != pad; max: amax(where(member, rows, -inf)), member[b, j] = offsets[b] <= j < offsets[b+1] and idx[j] != pad; a 2-D input reduces each row, its padding entries masked",
		decompEmbeddingBag})
	sortDecompositions()
}

func decompEmbeddingBag(b *builder, a []ir.Arg) ir.Arg {
	x, w, off := a[0], a[1], a[2]
	mode := b.str(a[3])
	psw := a[4]
	xs, ws := b.shape(x), b.shape(w)
	if len(ws) != 2 || (mode != "sum" && mode != "mean" && mode != "max") || (psw != nil && mode != "sum") {
		b.failf("embedding_bag: weight %v, mode %q, per_sample_weights only with mode='sum'", ws, mode)
		return nil
	}
	D := ws[1]
	dt := b.dtype(w)
	pad, err := ir.EmbeddingBagPadding(a[6], ws[0])
	if err != nil {
		b.failf("%v", err)
		return nil
	}
	if len(xs) == 2 && pad >= 0 { // the entries of every row but the padding ones
		B, L := xs[0], xs[1]
		keep := b.o("ne", x, pad) // [B, L]
		rows := b.reshape(b.o("index_select", w, int64(0), b.reshape(x, []int{B * L})), []int{B, L, D})
		if psw != nil {
			rows = b.o("mul", rows, b.o("unsqueeze", psw, int64(2)))
		}
		count := b.o("sum", keep, ir.Tuple{int64(1)}, true) // [B, 1]
		k3 := b.o("unsqueeze", keep, int64(2))
		if mode == "max" {
			r := b.o("amax", b.o("where", k3, rows, b.o("full", ir.Tuple{}, math.Inf(-1), dt)), ir.Tuple{int64(1)})
			return b.o("where", b.o("eq", count, int64(0)), b.o("full", ir.Tuple{}, int64(0), dt), r)
		}
		s := b.o("sum", b.o("where", k3, rows, b.o("full", ir.Tuple{}, int64(0), dt)), ir.Tuple{int64(1)})
		if mode == "mean" {
			s = b.o("div", s, b.o("to_dtype", b.clampC(count, int64(1), nil), dt))
		}
		return s
	}
	if len(xs) == 2 {
		if off != nil {
			b.failf("if input is 2D, then offsets has to be None")
			return nil
		}
		B, L := xs[0], xs[1]
		rows := b.reshape(b.o("index_select", w, int64(0), b.reshape(x, []int{B * L})), []int{B, L, D})
		if psw != nil {
			rows = b.o("mul", rows, b.o("unsqueeze", psw, int64(2)))
		}
		switch mode {
		case "sum":
			return b.o("sum", rows, ir.Tuple{int64(1)})
		case "mean":
			return b.o("div", b.o("sum", rows, ir.Tuple{int64(1)}), int64(L))
		}
		if L == 0 {
			return b.o("full", sizesArg([]int{B, D}), int64(0), dt)
		}
		return b.o("amax", rows, ir.Tuple{int64(1)})
	}
	if len(xs) != 1 || off == nil || len(b.shape(off)) != 1 {
		b.failf("embedding_bag: expected a 1-D input with 1-D offsets, or a 2-D input")
		return nil
	}
	n := xs[0]
	nb := b.shape(off)[0]
	if b.bool(a[5]) {
		nb--
	}
	if nb <= 0 {
		return b.o("full", sizesArg([]int{0, D}), int64(0), dt)
	}
	no := b.shape(off)[0]
	bags := b.indexRange(0, nb)
	starts := b.o("index_select", off, int64(0), bags)
	rows := b.o("index_select", w, int64(0), x) // [n, D]
	if psw != nil {
		rows = b.o("mul", rows, b.o("unsqueeze", psw, int64(1)))
	}
	if mode != "max" && n > 0 {
		var lastEnd ir.Arg = int64(n)
		if no > nb { // include_last_offset: the last offset ends the last bag
			lastEnd = b.o("select", off, int64(0), int64(nb))
		}
		return bagSegmentSum(b, x, rows, starts, lastEnd, n, nb, D, pad, mode == "mean", dt)
	}
	nextIdx := b.clampC(b.o("add", bags, int64(1)), nil, int64(no-1))
	ends := b.o("index_select", off, int64(0), nextIdx)
	ends = b.o("where", b.o("lt", b.o("add", bags, int64(1)), int64(no)), ends, int64(n))
	j := b.o("unsqueeze", b.indexRange(0, n), int64(0))                                                                            // [1, n]
	member := b.o("logical_and", b.o("ge", j, b.o("unsqueeze", starts, int64(1))), b.o("lt", j, b.o("unsqueeze", ends, int64(1)))) // [B, n]
	if pad >= 0 {
		member = b.o("logical_and", member, b.o("unsqueeze", b.o("ne", x, pad), int64(0)))
	}
	count := b.o("sum", member, ir.Tuple{int64(1)}, true) // [B, 1] int64
	if mode == "max" {
		m3 := b.o("unsqueeze", member, int64(2))
		r := b.o("amax", b.o("where", m3, b.o("unsqueeze", rows, int64(0)), b.o("full", ir.Tuple{}, math.Inf(-1), dt)), ir.Tuple{int64(1)})
		return b.o("where", b.o("eq", count, int64(0)), b.o("full", ir.Tuple{}, int64(0), dt), r)
	}
	s := b.o("mm", b.o("to_dtype", member, dt), rows)
	if mode == "mean" {
		s = b.o("div", s, b.o("to_dtype", b.clampC(count, int64(1), nil), dt))
	}
	return s
}

// bagSegmentSum is embedding_bag's sum and mean over 1-D indices with
// offsets in O(entries x D), as ATen's CPU kernel (EmbeddingBag.cpp): every
// entry's bag is make_offset2bag's count of the bag starts at or before it,
// minus one (a scatter_add of ones at the starts, then cumsum), and its row
// scatter_adds into that bag; mean divides by the bag's count of entries
// (an empty bag is 0). An entry before the first start (ATen requires
// offsets[0] == 0), at or after the last bag's end (include_last_offset)
// or equal to padding_idx belongs to no bag. The [bags, entries] membership
// mask it replaces cost bags x entries (DLRM: 4096 x 43030 = 176M elements
// and a 22 GFLOP mm for 43k rows of 64). For nondecreasing offsets, what
// ATen takes them to be (each bag starts where the previous ends), both
// give every bag the entries in [offsets[b], offsets[b+1]).
func bagSegmentSum(b *builder, x, rows, starts, lastEnd ir.Arg, n, nb, D int, pad int64, mean bool, dt tensor.DType) ir.Arg {
	ones := b.o("full", sizesArg([]int{nb}), int64(1), tensor.Int64)
	marks := b.o("scatter_add", b.o("full", sizesArg([]int{n + 1}), int64(0), tensor.Int64), int64(0), starts, ones)
	seg := b.o("sub", b.o("cumsum", b.o("slice", marks, int64(0), int64(0), int64(n), int64(1)), int64(0)), int64(1)) // [n]
	valid := b.o("logical_and", b.o("ge", seg, int64(0)), b.o("lt", b.indexRange(0, n), lastEnd))
	if pad >= 0 {
		valid = b.o("logical_and", valid, b.o("ne", x, pad))
	}
	seg = b.o("where", valid, seg, int64(0))
	src := b.o("where", b.o("unsqueeze", valid, int64(1)), rows, b.o("full", ir.Tuple{}, int64(0), dt))
	idx := b.o("expand", b.o("unsqueeze", seg, int64(1)), sizesArg([]int{n, D}))
	s := b.o("scatter_add", b.o("full", sizesArg([]int{nb, D}), int64(0), dt), int64(0), idx, src)
	if !mean {
		return s
	}
	count := b.o("scatter_add", b.o("full", sizesArg([]int{nb}), int64(0), tensor.Int64), int64(0), seg, b.o("to_dtype", valid, tensor.Int64))
	return b.o("div", s, b.o("to_dtype", b.o("unsqueeze", b.clampC(count, int64(1), nil), int64(1)), dt))
}
