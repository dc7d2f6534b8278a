package stages

import "gcdbg/ir"

// Placeholder until functionalization lands (issue 3, in progress): the
// normalized graph passes through unchanged.
func functionalize(u *Unit) error    { u.Functional = u.Normalized; return nil }
func printFunctional(u *Unit) string { return ir.Readable(u.Functional) }
