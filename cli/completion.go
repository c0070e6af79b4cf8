package cli

import (
	"fmt"

	"github.com/urfave/cli/v2"
)

// The scripts call the binary with --generate-bash-completion, which urfave/cli
// answers from the command tree, so completion never goes stale.
const bashCompletion = `# bash completion for hook-loop; load with: source <(hook-loop completion bash)
_hook_loop_complete() {
  local cur opts
  COMPREPLY=()
  cur="${COMP_WORDS[COMP_CWORD]}"
  if [[ "$cur" == "-"* ]]; then
    opts=$("${COMP_WORDS[@]:0:$COMP_CWORD}" "$cur" --generate-bash-completion 2>/dev/null)
  else
    opts=$("${COMP_WORDS[@]:0:$COMP_CWORD}" --generate-bash-completion 2>/dev/null)
  fi
  COMPREPLY=($(compgen -W "${opts}" -- "${cur}"))
  return 0
}
complete -o bashdefault -o default -F _hook_loop_complete hook-loop
`

const zshCompletion = `#compdef hook-loop
# zsh completion for hook-loop; load with: source <(hook-loop completion zsh)
_hook_loop() {
  local -a opts
  local cur=${words[-1]}
  if [[ "$cur" == "-"* ]]; then
    opts=("${(@f)$(${words[@]:0:#words[@]-1} "$cur" --generate-bash-completion 2>/dev/null)}")
  else
    opts=("${(@f)$(${words[@]:0:#words[@]-1} --generate-bash-completion 2>/dev/null)}")
  fi
  _describe 'values' opts
}
compdef _hook_loop hook-loop
`

// CompletionOptions are completion's arguments.
type CompletionOptions struct {
	IO    *IOStreams
	Shell string
}

// NewCmdCompletion builds `completion`; runF replaces the run function in tests.
func NewCmdCompletion(f *Factory, runF func(*CompletionOptions) error) *cli.Command {
	return &cli.Command{
		Name:      "completion",
		Usage:     "print a shell completion script (bash or zsh)",
		ArgsUsage: "bash|zsh",
		Action: func(c *cli.Context) error {
			return run(runF, runCompletion, &CompletionOptions{IO: f.IOStreams, Shell: c.Args().First()})
		},
	}
}

func runCompletion(o *CompletionOptions) error {
	s := o.IO
	switch o.Shell {
	case "bash":
		_, err := fmt.Fprint(s.Out, bashCompletion)
		return err
	case "zsh":
		_, err := fmt.Fprint(s.Out, zshCompletion)
		return err
	}
	return exitf(2, "usage: completion bash|zsh (got %q)", o.Shell)
}
