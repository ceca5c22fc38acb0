#!/usr/bin/env bash
# Shell completion (`artemis-gitops completion bash|zsh`, generated from
# the command table): bash's completion run on partial command lines, in
# a folder holding a sub-folder and a file (commands, options, folder and
# file values and arguments); every option of every command's --help is
# offered; the script as `make install` installs it is found by
# bash-completion's loader; the zsh script parses, registers itself with
# compinit and completes lines typed into a real interactive zsh
# (tests/tools/zsh-complete.zsh, zsh/zpty). scripts/install-deps installs
# bash-completion and zsh.
. "$AG_TOP/tests/lib.sh"
cd "$AG_TOP" || exit 1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

check_exit "completion bash exits 0" 0 "$AG_BIN" completion bash
check_exit "completion zsh exits 0" 0 "$AG_BIN" completion zsh
check_exit "completion fish is a usage error" 64 "$AG_BIN" completion fish
"$AG_BIN" completion bash >"$tmp/artemis-gitops.bash"
"$AG_BIN" completion zsh >"$tmp/_artemis-gitops"
check "the bash script parses" bash -n "$tmp/artemis-gitops.bash"

# A folder to complete in: clusters/ (a folder), notes.txt (a file).
mkdir -p "$tmp/cwd/clusters/shop" "$tmp/cwd/plans"
touch "$tmp/cwd/notes.txt"

# comp WORD...: what bash's completion offers for the command line WORD...
# (the last word the one being completed), one per line, sorted.
comp() {
	(cd "$tmp/cwd" && bash --norc --noprofile -c '
		. "$1"; shift
		COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
		COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
		_artemis_gitops artemis-gitops "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
		printf "%s\n" "${COMPREPLY[@]}"' _ "$tmp/artemis-gitops.bash" "$@" | sed '/^$/d' | sort | tr '\n' ' ')
}

check_eq "a command from its start" "validate " "$(comp artemis-gitops va)"
check_eq "the commands starting with 're'" "render resume " "$(comp artemis-gitops re)"
cmds=$("$AG_BIN" --help | sed -n '/^Commands:$/,/^$/s/^  \([a-z][a-z-]*\) .*/\1/p' | sort | tr '\n' ' ')
got=$(comp artemis-gitops '' | tr ' ' '\n' | grep -v '^-' | sort | tr '\n' ' ')
check_eq "every command of --help is offered" "$cmds" "$got"
check_eq "an option from its start" "--out " "$(comp artemis-gitops plan --o)"
check_eq "options of one command only" "--confirm " "$(comp artemis-gitops approve --conf)"
check_eq "a folder option takes folders only" "clusters plans " "$(comp artemis-gitops plan CLUSTER --out '')"
check_eq "a short folder option too" "clusters " "$(comp artemis-gitops render c -o c)"
check_eq "a file option takes files" "clusters notes.txt plans " "$(comp artemis-gitops plan x --snapshot '')"
check_eq "a file option completes a file name" "notes.txt " "$(comp artemis-gitops run -c no)"
check_eq "a folder argument (render CLUSTER_DIR)" "clusters plans " "$(comp artemis-gitops render '')"
check_eq "a name argument is not completed (delete-queue NAME)" "" "$(comp artemis-gitops delete-queue '')"
check_eq "the argument after it is a folder (CLUSTER_DIR)" "clusters " "$(comp artemis-gitops delete-queue q1 cl)"
check_eq "an option value between arguments is skipped" "clusters " "$(comp artemis-gitops delete-queue q1 --state plans cl)"
check_eq "a repeated argument (validate PATH...)" "clusters " "$(comp artemis-gitops validate plans clusters/shop cl)"
check_eq "a value that is no path is not completed (--confirm TEXT)" "" "$(comp artemis-gitops approve plans --confirm '')"
check_eq "a sub-folder" "clusters/shop " "$(comp artemis-gitops validate clusters/)"

# Every option that a command's --help shows is offered after '-'.
bad=
for c in $cmds; do
	want=$(help_options "$c" | tr '\n' ' ')
	got=$(comp artemis-gitops "$c" - | tr ' ' '\n' | sort -u | tr '\n' ' ')
	[ "$want" = "$got" ] || bad+="$c: --help has [$want], completion offers [$got]"$'\n'
done
check_eq "every command's options as its --help lists them" "" "$bad"

# As installed: bash-completion's loader finds it by the command's name.
check "make install-completion" make -s install-completion DESTDIR="$tmp/dest" PREFIX=/usr COMPLETION_BIN="$AG_BIN"
check "installed for bash" test -f "$tmp/dest/usr/share/bash-completion/completions/artemis-gitops"
check "installed for zsh" test -f "$tmp/dest/usr/share/zsh/site-functions/_artemis-gitops"
check "bash-completion is installed" test -f /usr/share/bash-completion/bash_completion
out=$(cd "$tmp/cwd" && XDG_DATA_DIRS="$tmp/dest/usr/share" bash --norc --noprofile -c '
	. /usr/share/bash-completion/bash_completion
	__load_completion artemis-gitops && complete -p artemis-gitops' 2>&1)
check_eq "bash-completion loads it on demand" "complete -F _artemis_gitops artemis-gitops" "$out"

# zsh: the script parses, and compinit registers it from its folder.
check "zsh is installed" command -v zsh
check "the zsh script parses" zsh -n "$tmp/_artemis-gitops"
out=$(HOME=$tmp zsh -f -c "fpath=($tmp/dest/usr/share/zsh/site-functions \$fpath)
	autoload -Uz compinit && compinit -u -d $tmp/zcompdump && print -r -- \$_comps[artemis-gitops]" 2>&1)
check_eq "compinit registers _artemis-gitops" "_artemis-gitops" "$out"
# and completes in a real interactive zsh (zsh/zpty: the line typed, a TAB)
timeout 120 zsh -f tests/tools/zsh-complete.zsh "$tmp/dest/usr/share/zsh/site-functions" "$tmp/cwd" \
	"artemis-gitops va" "artemis-gitops plan x --out " "artemis-gitops run --conf" \
	"artemis-gitops run -c no" "artemis-gitops delete-queue q1 " >"$tmp/zsh.out" 2>&1
# zsh_shows LINE: what the terminal showed after LINE and a TAB
zsh_shows() {
	awk -v want="=== $1" '$0 == want { on = 1; next } /^=== / { on = 0 } on' "$tmp/zsh.out"
}
check_grep "zsh: a command from its start" 'artemis-gitops validate' <(zsh_shows "artemis-gitops va")
check_grep "zsh: a folder option offers the folders" 'clusters/ +plans/' <(zsh_shows "artemis-gitops plan x --out ")
zsh_shows "artemis-gitops plan x --out " >"$tmp/zsh-out.txt"
check_absent "zsh: and no file" 'notes\.txt' "$tmp/zsh-out.txt" 'clusters/'
check_grep "zsh: an option from its start" 'artemis-gitops run --config' <(zsh_shows "artemis-gitops run --conf")
check_grep "zsh: a file option completes a file" 'artemis-gitops run -c notes\.txt' <(zsh_shows "artemis-gitops run -c no")
check_grep "zsh: a folder argument after a name" 'clusters/ +plans/' <(zsh_shows "artemis-gitops delete-queue q1 ")
done_testing
