package stages

import "gcdbg/ir"

// Placeholder until decompositions land (issue 3, in progress).
func decompose(u *Unit) error        { u.Decomposed = u.Functional; return nil }
func printDecomposed(u *Unit) string { return ir.Readable(u.Decomposed) }
