package main

import (
	"fmt"
	"io"
	"os"
)

func readAllStdin() ([]byte, error) {
	b, err := io.ReadAll(os.Stdin)
	if err != nil {
		return nil, fmt.Errorf("stdin: %w", err)
	}
	return b, nil
}
