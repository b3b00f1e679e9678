package main

import (
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"keygate/adapters/compatapi/setup"
	"keygate/app/config"
)

// agentSetupOptions are the flags of `keygate setup claude-code|codex`.
type agentSetupOptions struct {
	url, model, configPath string
	write                  bool
}

func agentFlags(fs *flag.FlagSet, o *agentSetupOptions) {
	fs.StringVar(&o.url, "url", "http://"+config.DefaultListen, "Keygate's address (its main listener; a company's console URL)")
	fs.StringVar(&o.model, "model", "MODEL", "a Keygate model or alias: its display name in Cursor's picker, or its id")
}

// setupClaudeCode is `keygate setup claude-code`.
func (c *cli) setupClaudeCode() *cobra.Command {
	return c.leaf(&cobra.Command{
		Use:   "claude-code",
		Short: "Print the settings that point Claude Code at Keygate's Anthropic-compatible API",
		Long: "Print the environment variables that send Claude Code's calls through Keygate (/v1/messages):\n" +
			"ANTHROPIC_BASE_URL, ANTHROPIC_API_KEY (your gateway token; any value on a laptop) and the model.\n" +
			"A company token goes in " + setup.TokenEnv + ", never on the command line.",
		Example: "  keygate setup claude-code --model 'Claude Sonnet'\n" +
			"  " + setup.TokenEnv + "=kg_... keygate setup claude-code --url https://keygate.example.com --model claude-sonnet",
	}, ownFlags("keygate setup claude-code", func(fs *flag.FlagSet) func(streams) int {
		var o agentSetupOptions
		agentFlags(fs, &o)
		return func(s streams) int {
			fmt.Fprint(s.out, setup.ClaudeCode(strings.TrimRight(o.url, "/"), os.Getenv(setup.TokenEnv), o.model))
			return 0
		}
	}, setup.TokenEnv))
}

// setupCodex is `keygate setup codex [--write]`.
func (c *cli) setupCodex() *cobra.Command {
	return c.leaf(&cobra.Command{
		Use:   "codex",
		Short: "Print (or --write) the Codex CLI config.toml that points it at Keygate's Responses API",
		Long: "Print the config.toml that sends the Codex CLI's calls through Keygate (/v1/responses): a\n" +
			"[model_providers.keygate] table with wire_api \"responses\" and env_key " + setup.TokenEnv + ", and the model.\n" +
			"--write merges it into ~/.codex/config.toml (or --config), keeping the rest of the file.",
		Example: "  keygate setup codex --model 'GPT-5'\n  keygate setup codex --model gpt-5 --write",
	}, ownFlags("keygate setup codex", func(fs *flag.FlagSet) func(streams) int {
		var o agentSetupOptions
		agentFlags(fs, &o)
		fs.BoolVar(&o.write, "write", false, "merge the settings into Codex's config.toml")
		fs.StringVar(&o.configPath, "config", "", "Codex config.toml to write (default: $CODEX_HOME/config.toml, else ~/.codex/config.toml)")
		return func(s streams) int { return setupCodex(s, o) }
	}, "CODEX_HOME"))
}

func setupCodex(s streams, o agentSetupOptions) int {
	origin := strings.TrimRight(o.url, "/")
	if !o.write {
		fmt.Fprint(s.out, setup.Codex(origin, o.model))
		fmt.Fprintf(s.out, "\n# then: export %s=<your gateway token> (any value on a laptop)\n", setup.TokenEnv)
		return 0
	}
	path := o.configPath
	if path == "" {
		dir := os.Getenv("CODEX_HOME")
		if dir == "" {
			home, err := os.UserHomeDir()
			if err != nil {
				fmt.Fprintf(s.err, "keygate: %v; pass --config\n", err)
				return 1
			}
			dir = filepath.Join(home, ".codex")
		}
		path = filepath.Join(dir, "config.toml")
	}
	existing, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		fmt.Fprintf(s.err, "keygate: read Codex config: %v\n", err)
		return 1
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		fmt.Fprintf(s.err, "keygate: create Codex config folder: %v\n", err)
		return 1
	}
	if err := os.WriteFile(path, []byte(setup.MergeCodex(string(existing), origin, o.model)), 0o600); err != nil {
		fmt.Fprintf(s.err, "keygate: write Codex config: %v\n", err)
		return 1
	}
	fmt.Fprintf(s.out, "Wrote Keygate's provider into %s. Set %s to your gateway token (any value on a laptop) and run codex.\n", path, setup.TokenEnv)
	return 0
}
