package main

import (
	"strings"

	"github.com/gollm/gollm/kernels"
	"github.com/spf13/cobra"
)

// addKernelsFlag gives every command --kernels: run on a named kernel
// implementation instead of the best one for this CPU, e.g. to measure
// what the AVX2 kernels do on a machine that also has AVX-512, or to
// compare with the generic Go kernels. Results are the same bits whichever
// runs.
func addKernelsFlag(root *cobra.Command) {
	var name string
	root.PersistentFlags().StringVar(&name, "kernels", "", "kernel implementation: "+strings.Join(availableKernels(), ", ")+" (default: the best this CPU runs, "+kernels.Impl()+")")
	root.PersistentPreRunE = func(cmd *cobra.Command, args []string) error {
		if name == "" {
			return nil
		}
		if err := kernels.SetImpl(name); err != nil {
			return usageErr("--kernels %q: not available on this CPU (available: %s)", name, strings.Join(availableKernels(), ", "))
		}
		return nil
	}
}

// availableKernels names the implementations this CPU can run.
func availableKernels() []string {
	var names []string
	for _, n := range kernels.Implementations() {
		if kernels.Available(n) {
			names = append(names, n)
		}
	}
	return names
}
