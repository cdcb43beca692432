// Package shared locates the project's shared test data: the folder
// ../shared beside the repository root (the directory holding go.mod), with
// models, golden files, vocabularies and templates that are never copied into
// the repository. Tests of every package use it and skip, with a message
// naming what is missing, when the data is absent.
package shared

import (
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

var root = sync.OnceValues(func() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("repository root (go.mod) not found")
		}
		dir = parent
	}
	shared := filepath.Join(dir, "..", "shared")
	if _, err := os.Stat(shared); err != nil {
		return "", err
	}
	return filepath.Abs(shared)
})

// Path returns ../shared/elem... when it exists, else "" (for fuzz seeds and
// other optional uses).
func Path(elem ...string) string {
	dir, err := root()
	if err != nil {
		return ""
	}
	p := filepath.Join(append([]string{dir}, elem...)...)
	if _, err := os.Stat(p); err != nil {
		return ""
	}
	return p
}

// Dir returns ../shared/elem... or skips the test when it is absent.
func Dir(t testing.TB, elem ...string) string {
	t.Helper()
	p := Path(elem...)
	if p == "" {
		t.Skipf("shared test data ../shared/%s (beside the repository root) is absent: skipping", filepath.Join(elem...))
	}
	return p
}
