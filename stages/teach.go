package stages

// The longer explanation of each stage (Stage.Teach): what the compiler
// does at that stage and why. Shown by the TUI's e, the report and the tour.
const (
	teachCaptured = `Dynamo (or torch.fx.symbolic_trace) runs the Python forward once and records
every tensor operation as a node instead of computing it. Modules stay
call_module nodes, methods call_method, operators call_function; each node
keeps the user's stack (meta.stack), which is how later stages point back to
your source. Anything the tracer cannot follow ends the graph: a graph break,
and the next graph starts after it.`
	teachGuards = `A compiled graph is only valid for inputs like the ones it was traced with.
Guards are the checks run before each reuse: dtype, device, shape and strides,
requires_grad, constant values, and that inputs do not alias each other. If a
guard fails, Dynamo recompiles (or, with a dynamic dimension, one graph covers
every size). gcdbg derives its own guards and shows the producer's beside them.`
	teachNormalized = `Many spellings mean one thing: x + y, torch.add(x, y) and x.add(y); an
nn.Linear module and F.linear. Normalization maps each call to one canonical
aten op, binds every argument to the op's schema (defaults filled in, keyword
or positional no longer matters) and infers every node's dtype, shape and
stride. Later stages then pattern-match ops, not spellings.`
	teachFunctional = `Autodiff and fusion need values, not memory: an in-place op (x.relu_()) or
a write through a view (x[0] = 1) hides a data dependency. Functionalization
replaces each mutation by an out-of-place op producing a new value, rewrites
later uses to the new value, and copies back into a mutated graph input at the
end so the caller still sees the mutation.`
	teachDecomposed = `The backend cannot implement hundreds of ops, so each op is rewritten into a
small core set: linear becomes permute + mm + add, softmax becomes amax, sub,
exp, sum and div, and so on. Every decomposition is checked to compute what
the op computes; provenance (From) records which op each new node came from,
which is how the panes stay in sync.`
	teachJoint = `AOTAutograd traces the backward ahead of time: starting from the outputs'
tangents, it walks the forward nodes in reverse and emits each one's
derivative formula (relu's backward is where(result > 0, grad, 0)), summing
gradients where a value has several users. The result is one graph from
(primals, tangents) to (outputs, grads) that the compiler can optimize as a whole.`
	teachForward = `The joint graph is cut in two: forward runs now, backward later. What the
backward needs from the forward must be saved, costing memory until the
backward runs. A min-cut over the graph picks the cheapest set to save;
cheap ops (views, pointwise) may be recomputed in the backward instead of
saved. The header lists what is saved, its bytes, and what is recomputed.`
	teachBackward = `The backward graph takes the saved tensors and the tangents (the gradient of
the loss with respect to each output) and returns one gradient per input that
requires grad, in the order the parameters were listed. Its nodes' provenance
points back into the joint graph, so a gradient op leads you to the forward op
it differentiates.`
	teachLoopIR = `Inductor lowers each core op to a loop over buffers: a pointwise or reduction
body (load, compute, store at an index expression), an extern call for
matmul and convolution, or an eager fallback. Views never copy: they fold into
the index expressions of the loads. origins names the graph nodes each loop
node computes.`
	teachFusion = `Each loop node would be its own kernel, writing its result to memory and the
next reading it back. The scheduler merges pairs into one kernel, best score
first: the category (an extern call followed by its pointwise epilogue first),
the bytes of memory traffic saved, then how close the two are. It refuses a
pair when fusing is illegal or pointless, and the log says why.`
	teachMemory = `After fusion, buffers written and read inside one kernel never exist in
memory, except what an extern call (a matmul, a convolution) writes: the
library call stores its whole result before the epilogue reads it. Every other
buffer gets a lifetime (first write to last read, in kernel order). A dead
buffer of the same size hands its storage to a later one, and a pointwise
kernel may overwrite a dying input in place; graph outputs are handed back in
storage of their own. The plan is what the rendered program allocates, and it
holds its storage for the whole call, so the peak is the bytes of its
allocations, before and after planning.`
	teachKernels = `Each fused kernel becomes a C function: one loop nest over the kernel's
iteration ranges, loads from its input buffers at the folded index
expressions, the fused pointwise ops as C expressions, and stores of the
buffers that leave the kernel. Extern nodes call the matmul routine and their
epilogues loop over its output. Comments name the graph nodes each line computes.`
	teachWrapper = `The wrapper is the compiled program's entry point: it allocates the planned
buffers (reusing storage as the memory plan says), calls the kernels in order,
and returns the outputs and saved tensors in the order the graph promises.`
)
