package ir_test

import (
	"testing"

	"gcdbg/stages"
	"gcdbg/trace"
)

// BenchmarkPipeline: load → every stage up to the rendered kernels (no C
// compiler), as compiler.BenchmarkPipelineMLP, for the seed MLP and the
// transformer block; shape inference was most of it before infer*.go.
func BenchmarkPipeline(b *testing.B) {
	for _, name := range []string{"mlp", "transformer_block"} {
		b.Run(name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				tr, err := trace.Load("../fixtures/" + name + ".json")
				if err != nil {
					b.Fatal(err)
				}
				if _, err := stages.Run(tr, "kernels"); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkShapeStages: load → backward (normalize, functionalize,
// decompose, joint, partition): the stages that call InferMeta.
func BenchmarkShapeStages(b *testing.B) {
	for _, name := range []string{"mlp", "transformer_block"} {
		b.Run(name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				tr, err := trace.Load("../fixtures/" + name + ".json")
				if err != nil {
					b.Fatal(err)
				}
				if _, err := stages.Run(tr, "backward"); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
