# bash completion for ldanalyze: source <(ldanalyze completion bash)
# Commands, subcommands, flags and --format values come from
# `ldanalyze __complete WORDS...`; anything else completes file names.
_ldanalyze() {
  local cur=${COMP_WORDS[COMP_CWORD]}
  local IFS=$'\n'
  COMPREPLY=($(compgen -W "$("${COMP_WORDS[0]}" __complete "${COMP_WORDS[@]:1:COMP_CWORD}" 2>/dev/null)" -- "$cur"))
}
complete -o default -o bashdefault -F _ldanalyze ldanalyze
