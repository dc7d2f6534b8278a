package loopir

import (
	"fmt"
	"sort"
	"strings"

	"gcdbg/ir"
)

// Print shows a program in the spirit of Inductor's ir_pre_fusion.txt:
// every buffer with its FixedLayout, then every node with its kind,
// ranges, MemoryDeps (index over c0.. with their ranges), origins and
// inner function.
func Print(p *Program) string {
	var b strings.Builder
	for _, name := range p.Order {
		buf := p.Buffers[name]
		fmt.Fprintf(&b, "%s: %s %s\n", name, kindTitle(buf.Kind), layout(buf))
	}
	for _, n := range p.Nodes {
		b.WriteString("\n")
		printNode(&b, n)
	}
	fmt.Fprintf(&b, "\nreturn (%s)\n", strings.Join(p.Outputs, ", "))
	return b.String()
}

func kindTitle(k BufferKind) string {
	switch k {
	case Input:
		return "InputBuffer"
	case Constant:
		return "ConstantBuffer"
	case Output:
		return "OutputBuffer"
	}
	return "ComputedBuffer"
}

func layout(b *Buffer) string {
	return fmt.Sprintf("FixedLayout('cpu', torch.%s, size=%s, stride=%s)", b.DType, exprList(b.Sizes), exprList(b.Strides))
}

func exprList(es []Expr) string {
	parts := make([]string, len(es))
	for i, e := range es {
		parts[i] = e.String()
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

func printNode(b *strings.Builder, n *Node) {
	title := map[NodeKind]string{Pointwise: "SchedulerNode(Pointwise)", Reduction: "SchedulerNode(Reduction)",
		Extern: "ExternKernelSchedulerNode(" + n.Op + ")", Fallback: "FallbackKernel(" + n.Op + ")"}[n.Kind]
	fmt.Fprintf(b, "%s: %s\n", n.Name, title)
	ren, rng := depVars(n)
	fmt.Fprintf(b, "%s.writes = %s\n", n.Name, deps(n.Writes, ren, rng))
	fmt.Fprintf(b, "%s.reads = %s\n", n.Name, deps(n.Reads, ren, rng))
	fmt.Fprintf(b, "%s.sizes = (%s, %s)\n", n.Name, exprList(n.Ranges), exprList(n.ReduceRanges))
	fmt.Fprintf(b, "%s.origins = {%s}\n", n.Name, strings.Join(n.Origins, ", "))
	if len(n.Body) == 0 {
		fmt.Fprintf(b, "%s.kernel = aten.%s(...)  # ir node %s\n", n.Name, n.Op, n.IRNode)
		return
	}
	fmt.Fprintf(b, "def %s_loop_body(%s):\n", n.Name, strings.Join(varNames(n), ", "))
	for _, s := range n.Body {
		b.WriteString("    " + stmtString(s) + "\n")
	}
}

// depVars renames loop variables to c0.. as Inductor's MemoryDeps do.
func depVars(n *Node) (map[string]Expr, []string) {
	ren := map[string]Expr{}
	var rng []string
	k := 0
	add := func(prefix string, sizes []Expr) {
		for i, s := range sizes {
			if s.String() == "1" {
				continue
			}
			c := fmt.Sprintf("c%d", k)
			k++
			ren[fmt.Sprintf("%s%d", prefix, i)] = V(c, s)
			rng = append(rng, c+": "+s.String())
		}
	}
	add("x", n.Ranges)
	add("r", n.ReduceRanges)
	return ren, rng
}

func deps(ds []Dep, ren map[string]Expr, rng []string) string {
	parts := make([]string, len(ds))
	for i, d := range ds {
		if d.Index == StarIndex || d.Index == nil {
			parts[i] = fmt.Sprintf("StarDep(name='%s')", d.Buffer)
			continue
		}
		parts[i] = fmt.Sprintf("MemoryDep('%s', %s, {%s})", d.Buffer, Subst(d.Index, ren), strings.Join(rng, ", "))
	}
	sort.Strings(parts)
	return "[" + strings.Join(parts, ", ") + "]"
}

func varNames(n *Node) []string {
	var out []string
	for i, s := range n.Ranges {
		if s.String() != "1" {
			out = append(out, fmt.Sprintf("x%d", i))
		}
	}
	for i, s := range n.ReduceRanges {
		if s.String() != "1" {
			out = append(out, fmt.Sprintf("r%d", i))
		}
	}
	return out
}

func stmtString(s Stmt) string {
	var rhs string
	switch s.Op {
	case "load":
		rhs = fmt.Sprintf("load(%s, %s)", s.Buffer, s.Index)
	case "store", "store_reduction":
		return fmt.Sprintf("%s(%s, %s, %s)", s.Op, s.Buffer, s.Index, strings.Join(s.Args, ", "))
	case "constant":
		rhs = fmt.Sprintf("constant(%s, torch.%s)", ir.PyFloat(s.Value), s.DType)
	case "index_expr":
		rhs = fmt.Sprintf("index_expr(%s, torch.%s)", s.Index, s.DType)
	case "to_dtype":
		rhs = fmt.Sprintf("to_dtype(%s, torch.%s)", strings.Join(s.Args, ", "), s.DType)
	case "reduction":
		rhs = fmt.Sprintf("reduction(torch.%s, %s, %s)", s.DType, s.ReduceOp, strings.Join(s.Args, ", "))
	default:
		rhs = fmt.Sprintf("%s(%s)", s.Op, strings.Join(s.Args, ", "))
	}
	return s.Dst + " = " + rhs
}
