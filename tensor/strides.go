package tensor

// Pure shape and stride arithmetic exported for shape inference (package
// ir computes a view's result metadata without any data): the same
// functions the views in this package use, so a view inferred from
// metadata aliases exactly as the evaluated view does.

// InferSize resolves one -1 in shape against numel (torch's infer_size).
func InferSize(shape []int, numel int) ([]int, error) { return inferSize(shape, numel) }

// ComputeStride is PyTorch's computeStride: the strides that let a tensor
// of oldshape/oldstride be viewed as newshape, or nil when it cannot be.
func ComputeStride(oldshape, oldstride, newshape []int) []int {
	return computeStride(oldshape, oldstride, newshape)
}

// SliceBounds resolves a Python slice on a dim of size n into its first
// index, its length and its step (nil parts take their defaults).
func SliceBounds(n int, start, stop, step *int) (begin, length, st int, err error) {
	return sliceBounds(n, start, stop, step)
}

// CheckSizes refuses negative sizes and shapes too large to allocate.
func CheckSizes(shape []int) error { return checkSizes(shape) }
