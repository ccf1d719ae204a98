#!/bin/sh
# e2e_completion.sh: the bash completion (completion/bash/pmctop) completes
# options, their fixed values, models, views and event names from the built
# pmctop, as bash would call it after a TAB: COMP_WORDS, COMP_CWORD and
# COMP_LINE set, COMPREPLY read back. The definitions come from the
# --events-dir on the completed line (PMCTOP_EVENTS_DIR is ignored as root),
# so the test also shows that the completion forwards it. The zsh completion
# is only checked for syntax, where zsh is installed.
set -u
top_builddir=${top_builddir:-.}
top_srcdir=${top_srcdir:-.}
pmctop="$top_builddir/pmctop"
events="$top_srcdir/events"
fails=0

if command -v zsh >/dev/null 2>&1; then
	if zsh -n "$top_srcdir/completion/zsh/_pmctop"; then
		echo "ok: zsh -n completion/zsh/_pmctop"
	else
		echo "FAIL: zsh -n completion/zsh/_pmctop"
		fails=$((fails + 1))
	fi
else
	echo "SKIP: zsh not installed, _pmctop not checked"
fi
command -v bash >/dev/null 2>&1 || { echo "SKIP: bash is needed for the bash completion"; exit 77; }

err=$(mktemp) || exit 1
trap 'rm -f "$err"' EXIT
bash -s -- "$pmctop" "$events" "$top_srcdir/completion/bash/pmctop" 2>"$err" <<'EOF'
pmctop=$1 events=$2
source "$3" || exit 1
fails=0

# comp WORD...: the sorted candidates for the last word (the one being
# completed), one per line.
comp() {
	COMP_WORDS=("$@")
	COMP_CWORD=$(($# - 1))
	COMP_LINE="$*"
	COMP_POINT=${#COMP_LINE}
	COMPREPLY=()
	_pmctop
	((${#COMPREPLY[@]})) && printf '%s\n' "${COMPREPLY[@]}" | LC_ALL=C sort
}
# want NAME GOT EXPECTED: the candidates are exactly EXPECTED (one per line).
want() {
	if [[ $2 == "$3" ]]; then
		echo "ok: $1"
	else
		echo "FAIL: $1: got [${2//$'\n'/ }], want [${3//$'\n'/ }]"
		fails=$((fails + 1))
	fi
}
# has NAME GOT WORD...: each WORD is among the candidates.
has() {
	local name=$1 got=$2 w
	shift 2
	for w; do
		if ! grep -qx -- "$w" <<<"$got"; then
			echo "FAIL: $name: '$w' missing from [${got//$'\n'/ }]"
			fails=$((fails + 1))
			return
		fi
	done
	echo "ok: $name"
}

want "--for" "$(comp "$pmctop" --for)" "--format"
want "--format" "$(comp "$pmctop" --format '')" $'csv\njson\ntable'
want "--format=c (one word)" "$(comp "$pmctop" --format=c)" "--format=csv"
want "--format = c (split at =)" "$(comp "$pmctop" --format = c)" "csv"
want "--export-scope" "$(comp "$pmctop" --export-scope '')" $'ccx\ncore\ncpu\nsocket'
want "--rotate" "$(comp "$pmctop" --rotate '')" "kernel"
want "-d takes a number" "$(comp "$pmctop" -d '')" ""

# Every long option of --help is offered.
opts=$(comp "$pmctop" --)
mapfile -t helpopts < <("$pmctop" --help | grep -o -- '--[a-z][a-z.-]*[a-z]' | sort -u)
((${#helpopts[@]} > 20)) || { echo "FAIL: --help lists ${#helpopts[@]} options"; fails=$((fails + 1)); }
has "every option of --help" "$opts" "${helpopts[@]}"

models=$(comp "$pmctop" --events-dir "$events" --model '')
has "--model" "$models" amd-zen5 intel-spr zen5 spr generic
want "--model: no heading or '-' alias" "$(grep -c -e '^MODEL$' -e '^-$' -e '^matches$' <<<"$models")" 0
want "--sim z" "$(comp "$pmctop" --events-dir "$events" --sim z)" $'zen3\nzen4\nzen5'
shape=$("$pmctop" --events-dir "$events" --list-models | awk '$2 == "zen5" { print $3 }')
want "--sim zen5: (split at :)" "$(comp "$pmctop" --events-dir "$events" --sim zen5 :)" "$shape"
# The --events-dir of the line is the one used: a missing one lists nothing.
want "--events-dir forwarded" "$(comp "$pmctop" --events-dir "$events/missing" --model '')" ""

views=$(comp "$pmctop" --events-dir "$events" --sim zen5 -g '')
has "--sim zen5 -g" "$views" basic topdown topdown_l2 memory l2 sw
want "-g: each name once" "$(uniq -d <<<"$views")" ""
has "--sim=zen5:1x2x8x2 --group" "$(comp "$pmctop" --events-dir="$events" --sim=zen5:1x2x8x2 --group top)" topdown topdown_l1

spr=$("$pmctop" --events-dir "$events" --model spr --list-events | awk '/^perf_metrics\./ { print $1 }' | LC_ALL=C sort)
[[ -n $spr ]] || { echo "FAIL: spr lists no perf_metrics events"; fails=$((fails + 1)); }
want "--model spr -e perf_metrics." "$(comp "$pmctop" --events-dir "$events" --model spr -e perf_metrics.)" "$spr"
want "--model=spr --event=perf_metrics.r" \
	"$(comp "$pmctop" --events-dir "$events" --model=spr --event=perf_metrics.r)" "--event=perf_metrics.retiring"
want "--model = spr --event = perf_metrics.r" \
	"$(comp "$pmctop" --events-dir "$events" --model = spr --event = perf_metrics.r)" "perf_metrics.retiring"
has "--sim zen5 --list-events PATTERN" "$(comp "$pmctop" --events-dir "$events" --sim zen5 --list-events ls_)" ls_not_halted_cyc
# A model's events only: zen5 has none of spr's.
want "--sim zen5 -e perf_metrics." "$(comp "$pmctop" --events-dir "$events" --sim zen5 -e perf_metrics.)" ""
# A file name that looks like an option is a value, not --model.
has "-o --model takes --model as the file" "$(comp "$pmctop" -o --model --s)" --sim

# Nothing (and nothing on standard error, checked outside) for an unknown
# model or a pmctop that is not there.
want "unknown model -e" "$(comp "$pmctop" --events-dir "$events" --model nosuch -e '')" ""
want "unknown model -g" "$(comp "$pmctop" --events-dir "$events" --sim nosuch:1x1x1x1 -g '')" ""
want "missing pmctop" "$(comp ./no-such-pmctop --model '')" ""
exit $((fails > 0))
EOF
[ $? -eq 0 ] || fails=$((fails + 1))
if [ -s "$err" ]; then
	echo "FAIL: the completion wrote to standard error:"
	cat "$err"
	fails=$((fails + 1))
fi
[ "$fails" -eq 0 ] || { echo "$fails failure(s)"; exit 1; }
echo "all completion checks passed"
