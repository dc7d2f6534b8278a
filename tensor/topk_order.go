package tensor

import "math/bits"

// PyTorch's CPU topk (ATen's topk_impl_loop, TopKImpl.h) orders a row's
// (value, index) pairs with libstdc++'s std::partial_sort when k*64 <= n,
// else std::nth_element at k-1 followed, when sorted, by std::sort of the
// first k-1 pairs. None of these is stable: which of two equal values
// ranks first, and so which index topk returns and where its gradient
// goes, is what these algorithms do. stdTopk replays them step for step
// (libstdc++'s stl_algo.h and stl_heap.h: introselect, introsort with
// threshold 16, median-of-three unguarded partition, insertion sort, heap
// select), so gcdbg picks the indices PyTorch picks; render/sort.go
// generates the same steps in C for the compiled kernels.

// stdOrder runs libstdc++'s algorithms over q, a permutation of a row's
// positions; comp(a, b) is the comparator on two positions.
type stdOrder struct {
	q    []int
	comp func(a, b int) bool
}

// stdTopk reorders q (0..n-1) so that q[:k] are the positions topk
// returns, in its order; comp(a, b) is "a ranks before b".
func stdTopk(q []int, k int, sorted bool, comp func(a, b int) bool) {
	n := len(q)
	if k == 0 {
		return
	}
	s := stdOrder{q, comp}
	if k*64 <= n {
		s.heapSelect(0, k, n)
		s.sortHeap(0, k)
		return
	}
	s.nthElement(0, k-1, n)
	if sorted {
		s.sort(0, k-1)
	}
}

func stdLg(n int) int { return bits.Len(uint(n)) - 1 }

func (s stdOrder) less(i, j int) bool { return s.comp(s.q[i], s.q[j]) }
func (s stdOrder) swap(i, j int)      { s.q[i], s.q[j] = s.q[j], s.q[i] }

func (s stdOrder) nthElement(first, nth, last int) {
	if first == last || nth == last {
		return
	}
	depth := stdLg(last-first) * 2
	for last-first > 3 {
		if depth == 0 {
			s.heapSelect(first, nth+1, last)
			s.swap(first, nth)
			return
		}
		depth--
		cut := s.partitionPivot(first, last)
		if cut <= nth {
			first = cut
		} else {
			last = cut
		}
	}
	s.insertionSort(first, last)
}

func (s stdOrder) sort(first, last int) {
	if first == last {
		return
	}
	s.introsortLoop(first, last, stdLg(last-first)*2)
	if last-first > 16 {
		s.insertionSort(first, first+16)
		for i := first + 16; i < last; i++ {
			s.linearInsert(i)
		}
		return
	}
	s.insertionSort(first, last)
}

func (s stdOrder) introsortLoop(first, last, depth int) {
	for last-first > 16 {
		if depth == 0 {
			s.heapSelect(first, last, last)
			s.sortHeap(first, last)
			return
		}
		depth--
		cut := s.partitionPivot(first, last)
		s.introsortLoop(cut, last, depth)
		last = cut
	}
}

// partitionPivot moves the median of q[first+1], q[mid], q[last-1] to
// first and partitions [first+1, last) around it.
func (s stdOrder) partitionPivot(first, last int) int {
	mid := first + (last-first)/2
	a, b, c := first+1, mid, last-1
	switch {
	case s.less(a, b):
		switch {
		case s.less(b, c):
			s.swap(first, b)
		case s.less(a, c):
			s.swap(first, c)
		default:
			s.swap(first, a)
		}
	case s.less(a, c):
		s.swap(first, a)
	case s.less(b, c):
		s.swap(first, c)
	default:
		s.swap(first, b)
	}
	lo, hi := first+1, last
	for {
		for s.less(lo, first) {
			lo++
		}
		hi--
		for s.less(first, hi) {
			hi--
		}
		if lo >= hi {
			return lo
		}
		s.swap(lo, hi)
		lo++
	}
}

func (s stdOrder) insertionSort(first, last int) {
	if first == last {
		return
	}
	for i := first + 1; i < last; i++ {
		if s.less(i, first) {
			v := s.q[i]
			copy(s.q[first+1:i+1], s.q[first:i])
			s.q[first] = v
		} else {
			s.linearInsert(i)
		}
	}
}

func (s stdOrder) linearInsert(last int) {
	v := s.q[last]
	for next := last - 1; s.comp(v, s.q[next]); next-- {
		s.q[last] = s.q[next]
		last = next
	}
	s.q[last] = v
}

func (s stdOrder) heapSelect(first, middle, last int) {
	s.makeHeap(first, middle)
	for i := middle; i < last; i++ {
		if s.less(i, first) {
			s.popHeap(first, middle, i)
		}
	}
}

func (s stdOrder) makeHeap(first, last int) {
	n := last - first
	if n < 2 {
		return
	}
	for parent := (n - 2) / 2; ; parent-- {
		s.adjustHeap(first, parent, n, s.q[first+parent])
		if parent == 0 {
			return
		}
	}
}

func (s stdOrder) sortHeap(first, last int) {
	for last-first > 1 {
		last--
		s.popHeap(first, last, last)
	}
}

func (s stdOrder) popHeap(first, last, result int) {
	v := s.q[result]
	s.q[result] = s.q[first]
	s.adjustHeap(first, 0, last-first, v)
}

func (s stdOrder) adjustHeap(first, hole, n, v int) {
	top, child := hole, hole
	for child < (n-1)/2 {
		child = 2 * (child + 1)
		if s.less(first+child, first+child-1) {
			child--
		}
		s.q[first+hole] = s.q[first+child]
		hole = child
	}
	if n&1 == 0 && child == (n-2)/2 {
		child = 2 * (child + 1)
		s.q[first+hole] = s.q[first+child-1]
		hole = child - 1
	}
	for parent := (hole - 1) / 2; hole > top && s.comp(s.q[first+parent], v); parent = (hole - 1) / 2 {
		s.q[first+hole] = s.q[first+parent]
		hole = parent
	}
	s.q[first+hole] = v
}
