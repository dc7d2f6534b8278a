// Package exporter holds the Python side of gcdbg (gcdbg_export.py,
// bench_eager.py); this file embeds what the gcdbg binary runs itself, so
// that `gcdbg bench` finds its helper wherever it is run from.
package exporter

import (
	_ "embed"
	"encoding/json"
	"strings"
)

// BenchEager is bench_eager.py, the script `gcdbg bench` times PyTorch with.
//
//go:embed bench_eager.py
var BenchEager []byte

// ModuleRefusals is module_refusals.json: the messages for modules gcdbg
// refuses (stages/modules_rnn.go) that the exporter says at export time
// too (gcdbg_modcheck.py), one home for both.
//
//go:embed module_refusals.json
var ModuleRefusals []byte

// Refusal is ModuleRefusals' message under key with its {name}
// placeholders replaced by the values kv gives as name, value pairs.
func Refusal(key string, kv ...string) string {
	var m map[string]string
	err := json.Unmarshal(ModuleRefusals, &m)
	text, ok := m[key]
	if err != nil || !ok { // embedded at build time; TestModuleRefusals reads every key
		return "exporter/module_refusals.json has no message " + key + " (" + strings.Join(kv, " ") + ")"
	}
	for i := 0; i+1 < len(kv); i += 2 {
		text = strings.ReplaceAll(text, "{"+kv[i]+"}", kv[i+1])
	}
	return text
}
