package stages

import (
	"sort"
	"strings"
)

// supportedModules lists every module type gcdbg normalizes, generated from
// the module tables (moduleRules, moduleRulesN, rnnModules) so the unsupported-module
// error can never name a stale set: "AdaptiveAvgPool2d, AvgPool2d, ..."
// sorted by name.
func supportedModules() string {
	var names []string
	for k := range moduleRules {
		names = append(names, strings.TrimPrefix(k, "torch.nn."))
	}
	for k := range moduleRulesN {
		names = append(names, strings.TrimPrefix(k, "torch.nn."))
	}
	names = append(names, rnnModules...) // modules_rnn.go
	sort.Strings(names)
	return strings.Join(names, ", ")
}
