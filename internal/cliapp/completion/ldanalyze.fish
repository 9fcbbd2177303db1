# fish completion for ldanalyze: ldanalyze completion fish | source, or save
# it as ~/.config/fish/completions/ldanalyze.fish.
# Commands, subcommands, flags and --format values come from
# `ldanalyze __complete WORDS...`; file names are offered too.
function __ldanalyze_complete
    set -l words (commandline -opc) (commandline -ct)
    $words[1] __complete $words[2..-1] 2>/dev/null
end
complete -c ldanalyze -a '(__ldanalyze_complete)'
