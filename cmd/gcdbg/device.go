package main

import (
	"fmt"

	"gcdbg/runner"
)

// deviceWhy explains, in --help, why the default device is not cpu.
func deviceWhy(why string) string {
	if why == "" {
		return ""
	}
	return "; cpu is unavailable: " + why
}

// checkDevice refuses a device run cannot use, saying why.
func checkDevice(device, why string) error {
	switch device {
	case "eager":
		return nil
	case "cpu":
		if why != "" {
			return fmt.Errorf("--device cpu: %s (use --device eager)", why)
		}
		return nil
	case "opencl", "cuda":
		// The GPU runtimes are loaded at run time (purego); a missing driver
		// or device is reported then, plainly, by the run itself.
		return nil
	}
	return fmt.Errorf("--device %q: want one of %s", device, runner.DeviceChoices(", "))
}
