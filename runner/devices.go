package runner

import "strings"

// Devices are the devices a run takes (Options.Device), in the order the
// explorer's d cycles them: cpu (the generated C), opencl and cuda (the
// GPU kernels, gpu.go; a missing driver is reported by the run), eager
// (the pipeline's graphs under the interpreter). The CLI's usage, its
// --device check and the explorer all read this list.
var Devices = []string{"cpu", "opencl", "cuda", "eager"}

// DeviceChoices is Devices joined by sep: "cpu|opencl|cuda|eager".
func DeviceChoices(sep string) string { return strings.Join(Devices, sep) }
