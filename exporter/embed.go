// Package exporter holds the Python side of gcdbg (gcdbg_export.py,
// bench_eager.py); this file embeds what the gcdbg binary runs itself, so
// that `gcdbg bench` finds its helper wherever it is run from.
package exporter

import _ "embed"

// BenchEager is bench_eager.py, the script `gcdbg bench` times PyTorch with.
//
//go:embed bench_eager.py
var BenchEager []byte
