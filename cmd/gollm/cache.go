package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/gollm/gollm/internal/tmpfile"
	"github.com/gollm/gollm/synth"
	"github.com/spf13/cobra"
)

// cacheCmd manages the folder where bench --synthetic keeps its models.
func cacheCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "cache ls|rm",
		Short: "List or remove the synthetic models bench --synthetic caches",
		Long: "bench --synthetic writes each synthetic model once and keeps it in\n  " + synth.CacheDir() + "\n" +
			"(the gollm/synth folder of the user cache directory: $XDG_CACHE_HOME or ~/.cache on Linux).\n" +
			"cache ls lists its files with their sizes; cache rm removes some or all of them.",
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usageErr("unknown cache subcommand %q: use ls or rm", args[0])
			}
			return usageErr("cache needs a subcommand: ls or rm")
		},
	}
	cmd.AddCommand(cacheLsCmd(), cacheRmCmd())
	return cmd
}

func cacheLsCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "ls",
		Short: "List the cached synthetic models with their sizes",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return cacheList(cmd.OutOrStdout(), synth.CacheDir())
		},
	}
}

func cacheRmCmd() *cobra.Command {
	var all bool
	cmd := &cobra.Command{
		Use:   "rm NAME... | --all",
		Short: "Remove cached synthetic models (file names or shell patterns, as cache ls shows them)",
		Args:  cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if all == (len(args) > 0) {
				return usageErr("cache rm needs file names (or patterns such as 'llama-8b-*') or --all, not both")
			}
			return cacheRemove(cmd.OutOrStdout(), cmd.ErrOrStderr(), synth.CacheDir(), args, all)
		},
	}
	cmd.Flags().BoolVar(&all, "all", false, "remove every cached file")
	return cmd
}

// cacheFile is one regular file of the cache folder.
type cacheFile struct {
	name string
	size int64
	note string // for temporary files: being written, or a leftover
}

func readCache(dir string) ([]cacheFile, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("cache: %w", err)
	}
	var files []cacheFile
	for _, e := range entries {
		if !e.Type().IsRegular() {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue // removed meanwhile
		}
		f := cacheFile{name: e.Name(), size: info.Size()}
		if temp, leftover, pid := tmpfile.Status(e.Name()); temp {
			switch {
			case leftover:
				f.note = "partial: left by an interrupted run"
			default:
				f.note = fmt.Sprintf("partial: being written by process %d", pid)
			}
		}
		files = append(files, f)
	}
	return files, nil
}

func cacheList(w io.Writer, dir string) error {
	files, err := readCache(dir)
	if err != nil {
		return err
	}
	if len(files) == 0 {
		fmt.Fprintf(w, "no cached files in %s\n", dir)
		return nil
	}
	fmt.Fprintf(w, "%s:\n", dir)
	var total int64
	for _, f := range files {
		fmt.Fprintf(w, "%10s  %s%s\n", fmt.Sprintf("%.1f MiB", mibOf(f.size)), f.name, suffixNote(f.note))
		total += f.size
	}
	fmt.Fprintf(w, "%s, %.1f MiB\n", plural(len(files), "file"), mibOf(total))
	return nil
}

func mibOf(n int64) float64 { return float64(n) / (1 << 20) }

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

func suffixNote(note string) string {
	if note == "" {
		return ""
	}
	return "  (" + note + ")"
}

// cacheRemove removes the files named by patterns (matched against the file
// names, as filepath.Match does) or all of them, except temporary files a
// running process is still writing.
func cacheRemove(stdout, stderr io.Writer, dir string, patterns []string, all bool) error {
	for _, p := range patterns {
		if _, err := filepath.Match(p, ""); err != nil || p != filepath.Base(p) {
			return usageErr("cache rm: %q is not a file name or pattern in %s", p, dir)
		}
	}
	files, err := readCache(dir)
	if err != nil {
		return err
	}
	var freed int64
	removed := 0
	matchedAny := make([]bool, len(patterns))
	for _, f := range files {
		match := all
		for i, p := range patterns {
			if ok, _ := filepath.Match(p, f.name); ok {
				match, matchedAny[i] = true, true
			}
		}
		if !match {
			continue
		}
		if temp, leftover, _ := tmpfile.Status(f.name); temp && !leftover {
			fmt.Fprintf(stderr, "cache: kept %s (%s)\n", f.name, f.note)
			continue
		}
		if err := os.Remove(filepath.Join(dir, f.name)); err != nil {
			return fmt.Errorf("cache: %w", err)
		}
		fmt.Fprintf(stdout, "removed %s (%.1f MiB)\n", f.name, mibOf(f.size))
		freed += f.size
		removed++
	}
	for i, p := range patterns {
		if !matchedAny[i] {
			return fmt.Errorf("cache: no file matches %q in %s (see gollm cache ls)", p, dir)
		}
	}
	fmt.Fprintf(stdout, "%s removed, %.1f MiB freed\n", plural(removed, "file"), mibOf(freed))
	return nil
}
