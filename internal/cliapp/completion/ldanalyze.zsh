#compdef ldanalyze
# zsh completion for ldanalyze: source <(ldanalyze completion zsh), or save
# it as _ldanalyze in a directory of $fpath.
# Commands, subcommands, flags and --format values come from
# `ldanalyze __complete WORDS...`; anything else completes file names.
_ldanalyze() {
  local -a opts
  opts=("${(@f)$(${words[1]} __complete "${(@)words[2,CURRENT]}" 2>/dev/null)}")
  if [[ -n "${opts[1]}" ]]; then
    compadd -a opts
  else
    _files
  fi
}
if [[ "$funcstack[1]" == "_ldanalyze" ]]; then
  _ldanalyze "$@"
else
  compdef _ldanalyze ldanalyze
fi
