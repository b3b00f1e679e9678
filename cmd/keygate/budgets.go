package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"go.uber.org/zap"

	"keygate/app"
	"keygate/app/config"
)

// budgetsImport is `keygate budgets import FILE`.
func (c *cli) budgetsImport() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "import FILE",
		Short: "Store a JSON budget policy's limits and prices in the database",
		Long: "Store the default and per-user limits of a budget policy (the format of KEYGATE_BUDGETS_FILE) in the\n" +
			"database, replacing those limits and keeping every other (teams, users the file does not name), and\n" +
			"add its prices to the console's for models without one. Running replicas apply them within a second;\n" +
			"the change is in the audit log. It takes keygate serve's flags and environment.",
		Example: "  keygate budgets import deploy/budgets.example.json\n" +
			"  keygate budgets import budgets.json --database-url postgres://keygate@db:5432/keygate",
	}
	c.leaf(cmd, goFlags{flags: configFlags(nil), run: func(s streams, args []string) int {
		return runBudgetsImport(cmd.CommandPath(), s, args)
	}})
	return cmd
}

func runBudgetsImport(command string, s streams, args []string) int {
	// The file comes first, then keygate serve's flags.
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		if _, err := config.Load(args, os.Getenv, io.Discard); err != nil {
			return flagError(err, command, s.err) // --help among them
		}
		fmt.Fprintf(s.err, "keygate: %s takes the budget policy file first: %s FILE [flags]\n", command, command)
		return 2
	}
	path := args[0]
	cfg, err := config.Load(args[1:], os.Getenv, io.Discard)
	if err != nil {
		return flagError(err, command, s.err)
	}
	dir, err := app.PrepareDataDir(cfg)
	if err != nil {
		fmt.Fprintf(s.err, "keygate: %v\n", err)
		return 1
	}
	n, err := app.ImportBudgets(context.Background(), cfg, dir, path, zap.NewNop())
	if err != nil {
		fmt.Fprintf(s.err, "keygate: %v\n", err)
		return 1
	}
	fmt.Fprintf(s.out, "Imported the limits of %d scopes (the default and %d users); running replicas apply them within a second.\n", n, n-1)
	return 0
}
