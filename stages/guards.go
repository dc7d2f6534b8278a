package stages

// Placeholder until the guards stage lands (issue 3, in progress).
func deriveGuards(u *Unit) error { u.Guards = &GuardSet{Producer: u.Captured.Guards}; return nil }
func printGuards(u *Unit) string { return "(guards: not built yet)\n" }
