package cliapp

import (
	"embed"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"
)

//go:embed completion
var scripts embed.FS

// CompletionCommand is `ldanalyze completion bash|zsh|fish`: it prints the
// shell's completion script, which asks the hidden `__complete` command for
// the candidates.
func CompletionCommand() *cli.Command {
	return &cli.Command{
		Name:      "completion",
		Usage:     "print the shell completion script for bash, zsh or fish",
		ArgsUsage: "bash|zsh|fish",
		Description: "bash: source <(ldanalyze completion bash)   (or save it in /etc/bash_completion.d/ldanalyze)\n" +
			"zsh:  source <(ldanalyze completion zsh)    (or save it as _ldanalyze in a directory of $fpath)\n" +
			"fish: ldanalyze completion fish | source    (or save it in ~/.config/fish/completions/ldanalyze.fish)",
		Action: func(c *cli.Context) error {
			sh := c.Args().First()
			if c.NArg() != 1 || !slices.Contains([]string{"bash", "zsh", "fish"}, sh) {
				return fmt.Errorf("completion: want one shell, bash, zsh or fish (see ldanalyze completion --help)")
			}
			b, err := scripts.ReadFile("completion/ldanalyze." + sh)
			if err != nil {
				return err
			}
			_, err = c.App.Writer.Write(b)
			return err
		},
	}
}

// complete writes the candidates for the last of words (the words after
// "ldanalyze" on the command line; the last is the one being completed,
// perhaps empty), one per line: the value of --format, the flags of the
// command the words name when the word starts with "-", else its
// subcommands. No candidate lets the shell complete a file name.
func complete(w io.Writer, cmds []*cli.Command, opt Options, words []string) error {
	if len(words) == 0 {
		words = []string{""}
	}
	cur, before := words[len(words)-1], words[:len(words)-1]
	var cmd *cli.Command
	var path []string
	subs := cmds
	positional := false
	for i := 0; i < len(before); i++ {
		wd := before[i]
		if strings.HasPrefix(wd, "-") {
			if cmd != nil && takesValue(cmd.Flags, wd) && !strings.Contains(wd, "=") {
				i++
			}
			continue
		}
		if positional {
			continue
		}
		if c := findCommand(subs, wd); c != nil {
			cmd, subs = c, c.Subcommands
			path = append(path, c.Name)
		} else {
			positional = true
		}
	}
	var out []string
	switch {
	case cmd != nil && len(before) > 0 && slices.Contains([]string{"--format", "-f"}, before[len(before)-1]) && hasFlag(cmd.Flags, strings.TrimLeft(before[len(before)-1], "-")):
		for _, f := range formats(opt, strings.Join(path, " ")) {
			out = append(out, string(f))
		}
	case strings.HasPrefix(cur, "-"):
		flags := []cli.Flag{cli.HelpFlag, cli.VersionFlag}
		if cmd != nil {
			flags = slices.Concat(cmd.Flags, []cli.Flag{cli.HelpFlag})
		}
		for _, f := range flags {
			for _, n := range f.Names() {
				if len(n) == 1 {
					out = append(out, "-"+n)
				} else {
					out = append(out, "--"+n)
				}
			}
		}
	case !positional:
		for _, c := range subs {
			if !c.Hidden {
				out = append(out, c.Names()...)
			}
		}
		if cmd == nil || len(cmd.Subcommands) > 0 {
			out = append(out, "help")
		}
	}
	seen := map[string]bool{}
	for _, s := range out {
		if strings.HasPrefix(s, cur) && !seen[s] {
			seen[s] = true
			if _, err := fmt.Fprintln(w, s); err != nil {
				return err
			}
		}
	}
	return nil
}

func findCommand(cs []*cli.Command, name string) *cli.Command {
	for _, c := range cs {
		if c.HasName(name) {
			return c
		}
	}
	return nil
}

// takesValue reports whether the flag word (-f, --format) of flags takes a
// value.
func takesValue(flags []cli.Flag, word string) bool {
	name := strings.TrimLeft(word, "-")
	for _, f := range flags {
		if slices.Contains(f.Names(), name) {
			_, isBool := f.(*cli.BoolFlag)
			return !isBool
		}
	}
	return false
}
