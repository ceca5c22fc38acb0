#!/usr/bin/env zsh
# tests/tools/zsh-complete.zsh FPATH_DIR CWD LINE...: type each LINE and a
# TAB into a real interactive zsh (zsh/zpty) with compinit loading the
# completion functions of FPATH_DIR, in CWD; print, for each, `=== LINE`
# and what the terminal showed, escape sequences taken out. Used by
# tests/integration/63-completion.sh.
emulate -L zsh
setopt extendedglob
zmodload zsh/zpty || exit 2
local fp=$1 cwd=$2 line all chunk
shift 2
zpty z "HOME=${(q)cwd} zsh -f -i"
zpty -w z "PS1='> '; fpath=(${(q)fp} \$fpath); autoload -Uz compinit; compinit -u -d ${(q)cwd}/.zcompdump; cd ${(q)cwd}; print -r -- SET''UP"
all=
while zpty -r -t z chunk || sleep 0.2; do
	all+=$chunk
	[[ $all == *SETUP* ]] && break
	(( SECONDS > 20 )) && break
done
for line in "$@"; do
	zpty -w -n z "$line"$'\t'
	sleep 1
	all=
	while zpty -r -t z chunk; do all+=$chunk; done
	# the escape sequences, the backspaced characters, the carriage returns
	all=${all//$'\e'\[[0-9;?]#[A-Za-z]/}
	all=${all//?$'\b'/}
	all=${all//$'\r'/}
	print -r -- "=== $line"
	print -r -- "$all"
	zpty -w -n z $'\C-u'
	sleep 0.2
	while zpty -r -t z chunk; do :; done
done
zpty -d z
