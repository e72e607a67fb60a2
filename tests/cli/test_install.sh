#!/usr/bin/env bash
# What `meson install` puts in place, used from there: the binary, gpuplan(1) rendered by
# `man -l` without a warning and holding every command of --help (and each usage line as
# --help prints it), the bash completion (loaded by bash-completion from its place, with
# candidates for commands, options, values, saved scenario and node names, and a real Tab in
# tmux) and the zsh completion (registered by compinit, and a real Tab in tmux).
# Needs man-db, bash-completion, zsh and tmux (tools/dev test installs them).
set -u
build=$1
. "$(dirname "$0")/lib.sh"
sock=$tmp/tmux.sock
on_exit() { tmux -S "$sock" kill-server 2>/dev/null; }
export HOME=$tmp XDG_DATA_HOME=$tmp/data LC_ALL=C.UTF-8
unset GPUPLAN_DB NO_COLOR XDG_DATA_DIRS BASH_COMPLETION_USER_DIR
for tool in man tmux zsh; do
    command -v $tool >/dev/null || { echo "FAIL needs $tool (tools/dev test installs it)"; exit 1; }
done
[ -f /usr/share/bash-completion/bash_completion ] ||
    { echo "FAIL needs bash-completion (tools/dev test installs it)"; exit 1; }

dest=$tmp/dest
meson install -C "$build" --destdir "$dest" --no-rebuild --quiet >"$tmp/install.log" 2>&1 ||
    { cat "$tmp/install.log"; echo "FAIL meson install"; exit 1; }
found() { find "$dest" -path "*/$1" -type f | head -1; }
bin=$(found bin/gpuplan) man1=$(found share/man/man1/gpuplan.1)
bashc=$(found share/bash-completion/completions/gpuplan) zshc=$(found share/zsh/site-functions/_gpuplan)
check "installs bin/gpuplan" test -x "$bin"
check "installs share/man/man1/gpuplan.1" test -s "$man1"
check "installs share/bash-completion/completions/gpuplan" test -s "$bashc"
check "installs share/zsh/site-functions/_gpuplan" test -s "$zshc"
[ -x "$bin" ] && [ -s "$man1" ] && [ -s "$bashc" ] && [ -s "$zshc" ] || exit 1
share=${man1%/man/man1/gpuplan.1}
export PATH=${bin%/gpuplan}:$PATH
check "the installed gpuplan runs" bash -c "gpuplan --version | grep -q '^gpuplan [0-9]'"

# ---- the man page ----------------------------------------------------------------------
MANWIDTH=80 man -l "$man1" >"$tmp/man.txt" 2>&1
check "man -l renders it" grep -q '^GPUPLAN(1)' "$tmp/man.txt"
check "man -l says no warning" bash -c "! grep -i warning '$tmp/man.txt'"
gpuplan --help | awk '/^commands:/ { f = 1; next } f && !NF { exit } f { print $1 }' >"$tmp/commands"
check "--help lists commands" test "$(wc -l <"$tmp/commands")" -ge 10
while read -r cmd; do
    up=$(tr a-z A-Z <<<"$cmd")
    check "man page: a section for $cmd" grep -qx "$up" "$tmp/man.txt"
    # its synopsis, as --help prints it (man indents by 7 where --help says "usage: ")
    first=$(gpuplan "$cmd" --help | head -1)
    check "man page: $cmd's usage line as --help prints it" grep -qxF "       ${first#usage: }" "$tmp/man.txt"
    for sub in $(gpuplan "$cmd" --help | grep -oE "gpuplan $cmd [a-z]+( |$)" | awk '{ print $3 }' | sort -u); do
        check "man page: $cmd $sub" grep -qE "gpuplan $cmd $sub( |$)" "$tmp/man.txt"
    done
done <"$tmp/commands"
check "man page: a subcommand's own help (scenario draft)" \
    grep -qxF "       $(gpuplan scenario draft --help | head -1 | sed 's/^usage: //')" "$tmp/man.txt"

# ---- bash --------------------------------------------------------------------------------
check "completing creates no database" bash -c "
    source /usr/share/bash-completion/bash_completion; source '$bashc'
    COMP_LINE='gpuplan report ' COMP_POINT=15 COMP_WORDS=(gpuplan report '') COMP_CWORD=2
    _gpuplan; [ ! -e '$XDG_DATA_HOME/gpuplan/gpuplan.db' ]"
sed 's/"Demo: ten DGX[^"]*"/"lab plan: 64 H100"/' "$(dirname "$0")/../../scenarios/demo-dgx-a100.json" >"$tmp/lab.json"
sed 's/"Demo: ten DGX[^"]*"/"labrat"/' "$(dirname "$0")/../../scenarios/demo-dgx-a100.json" >"$tmp/labrat.json"
gpuplan scenario save "$tmp/lab.json" >/dev/null && gpuplan scenario save "$tmp/labrat.json" >/dev/null &&
    gpuplan node add gpu01 --nvsmi-local >/dev/null && gpuplan node add gpu02 --nvsmi-local >/dev/null ||
    { echo "FAIL setting up the database"; exit 1; }

check "bash-completion finds it where it is installed" bash -c "
    source /usr/share/bash-completion/bash_completion
    XDG_DATA_DIRS='$share' __load_completion gpuplan && complete -p gpuplan | grep -q -- '-F _gpuplan gpuplan\$'"
# The candidates for a line (words split on spaces; the last one is being completed).
cat >"$tmp/comp.sh" <<EOF
source /usr/share/bash-completion/bash_completion
source '$bashc'
complete -p gpuplan >/dev/null || exit 1
comp() {
    COMP_LINE=\$1 COMP_POINT=\${#1}
    read -ra COMP_WORDS <<<"\$1"
    [[ \$1 == *' ' ]] && COMP_WORDS+=('')
    COMP_CWORD=\$((\${#COMP_WORDS[@]} - 1))
    COMPREPLY=()
    _gpuplan
    printf '%s\n' "\${COMPREPLY[@]}" | sort | tr '\n' ' '
}
comp "\$1"
EOF
mkdir "$tmp/cwd"   # an empty folder: no file names among the candidates
cands() { (cd "$tmp/cwd" && bash "$tmp/comp.sh" "$1"); }
expect() { # line candidates...
    local line=$1; shift
    local got; got=$(cands "$line")
    [ "$got" = "$* " ] || { echo "  '$line' gave: '$got', expected: '$* '"; return 1; }
}
check "bash: a partial command" expect "gpuplan rep" report
check "bash: commands that share a prefix" expect "gpuplan s" scenario sensitivity sweep
check "bash: global options" expect "gpuplan --d" --db --demo
check "bash: every global option of gpuplan --help" expect "gpuplan --" --db --demo --help --quiet --version
check "bash: subcommands" expect "gpuplan scenario e" export
check "bash: a command's options" expect "gpuplan report plan.json --fo" --format
check "bash: the workbook's fiscal option" expect "gpuplan report plan.json --fi" --fiscal-year-start
check "bash: an option's values" expect "gpuplan report plan.json --format " csv json md xlsx
check "bash: a subcommand's options" expect "gpuplan pricing list --so" --sort
check "bash: a command without subcommands" expect "gpuplan sweep l" 'lab\ plan:\ 64\ H100' labrat
check "bash: a subcommand's own help's options" expect "gpuplan scenario draft --gpus-p" --gpus-per-server
check "bash: saved scenario names" expect "gpuplan scenario show lab" 'lab\ plan:\ 64\ H100' labrat
check "bash: a scenario name for report" expect "gpuplan report labr" labrat
check "bash: node names" expect "gpuplan node rm gpu" gpu01 gpu02
check "bash: node names for --node" expect "gpuplan capacity --node gpu0" gpu01 gpu02
check "bash: --db picks the database" expect "gpuplan --db $tmp/none.db scenario show lab"

# A real Tab in bash and in zsh, in tmux: the name with a space and a colon comes out escaped.
screen() { tmux -S "$sock" capture-pane -p -t c; }
wait_for() { # text: up to 20 s
    for _ in $(seq 1 100); do screen | grep -qF -- "$1" && return 0; sleep 0.2; done
    screen; return 1
}
tab() { # shell-command line expected
    tmux -S "$sock" kill-server 2>/dev/null
    while tmux -S "$sock" has-session 2>/dev/null; do sleep 0.1; done
    rm -f "$sock"
    tmux -S "$sock" -f /dev/null new-session -d -s c -x 160 -y 20 "$1"
    wait_for 'READY>' || return 1
    tmux -S "$sock" send-keys -t c "$2" Tab
    wait_for "READY> $3"
}
cat >"$tmp/bashrc" <<EOF
source /usr/share/bash-completion/bash_completion
PS1='READY> '
EOF
bashtab() { tab "env HOME=$HOME PATH=$PATH XDG_DATA_HOME=$XDG_DATA_HOME XDG_DATA_DIRS=$share bash --rcfile $tmp/bashrc -i" "$@"; }
check "bash, Tab: a partial command" bashtab "gpuplan sen" "gpuplan sensitivity"
check "bash, Tab: a saved scenario name" bashtab "gpuplan report lab\\ " 'gpuplan report lab\ plan:\ 64\ H100'

mkdir -p "$tmp/zdot"
cat >"$tmp/zdot/.zshrc" <<EOF
fpath=($share/zsh/site-functions \$fpath)
autoload -Uz compinit && compinit -u -d $tmp/zcompdump
PS1='READY> '
EOF
check "zsh: compinit registers _gpuplan for gpuplan" zsh -fc "
    fpath=($share/zsh/site-functions \$fpath); autoload -Uz compinit && compinit -u -d $tmp/zcd
    [[ \${_comps[gpuplan]} == _gpuplan ]] && autoload +X _gpuplan"
zshtab() { tab "env HOME=$HOME PATH=$PATH XDG_DATA_HOME=$XDG_DATA_HOME ZDOTDIR=$tmp/zdot zsh -i" "$@"; }
check "zsh, Tab: a partial command" zshtab "gpuplan sen" "gpuplan sensitivity"
check "zsh, Tab: a saved scenario name" zshtab "gpuplan scenario show lab\\ " 'gpuplan scenario show lab\ plan:\ 64\ H100'

finish
