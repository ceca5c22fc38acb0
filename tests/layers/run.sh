#!/usr/bin/env bash
# tests/layers/run.sh: the test of scripts/check-layers, the layering check.
#
#   bash tests/layers/run.sh        (from anywhere; TAP on stdout)
#
# Builds a small clean tree in the target layout (lib/ ... agent/daemon/)
# in a temporary folder, compiles each .c with `cc -c` into
# build/rel/<path>.o, and checks that scripts/check-layers passes it. Each
# other case is a copy of that tree with one violation planted (a circle of
# two files, of three, an upward include, an upward include between two
# wings of reconcile/, another folder's internal header, an upward call,
# a source without its object): the check must exit 1 with exactly one
# failure line, the one naming the planted files. Needs cc, nm, python3.
set -u
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
. "$top/tests/lib.sh"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# put TREE PATH LINE...: write the file PATH of TREE, one argument a line.
put() {
	local tree=$1 path=$2
	shift 2
	mkdir -p "$(dirname "$tmp/$tree/$path")"
	printf '%s\n' "$@" >"$tmp/$tree/$path"
}

# build TREE: compile every .c of TREE (but build/) into TREE/build/rel;
# the compiler's messages go to TREE.build.
build() {
	local d=$tmp/$1 src rel
	: >"$tmp/$1.build"
	while IFS= read -r src; do
		rel=${src#"$d"/}
		mkdir -p "$d/build/rel/$(dirname "$rel")"
		"${CC:-cc}" -std=gnu17 -Wall -c -o "$d/build/rel/${rel%.c}.o" "$src" \
			>>"$tmp/$1.build" 2>&1 || { echo "cc failed on $rel" >>"$tmp/$1.build"; return 1; }
	done < <(find "$d" -path "$d/build" -prune -o -name '*.c' -print)
}

# layers TREE: run the check over TREE's objects and sources; its output
# goes to TREE.out, its exit status is ours. A tree that did not build
# cleanly (a compiler message in TREE.build) gives 99, which no case expects.
layers() {
	if [ -s "$tmp/$1.build" ]; then
		cp "$tmp/$1.build" "$tmp/$1.out"
		return 99
	fi
	"$top/scripts/check-layers" "$tmp/$1/build/rel" "$tmp/$1" >"$tmp/$1.out" 2>&1
}

# planted TREE: a copy of the clean tree, to plant a violation in.
planted() {
	cp -r "$tmp/clean" "$tmp/$1"
}

# failures NAME TREE N: the check of TREE printed N failure lines.
failures() {
	check_eq "$1" "$3" "$(grep -c '^scripts/check-layers: ' "$tmp/$2.out")"
}

# The clean tree: each layer includes and calls the one below it; an
# internal header used in its own folder; tests/ may include anything.
put clean lib/sbuf.h 'int sbuf_len(void);'
put clean lib/sbuf.c '#include "sbuf.h"' 'int sbuf_len(void) { return 1; }'
put clean declarations/decl.h '#include "../lib/sbuf.h"' 'int decl_load(void);'
put clean declarations/decl.c '#include "decl.h"' \
	'int decl_load(void) { return sbuf_len(); }'
put clean declarations/render/render.h '#include "../decl.h"' 'int render_xml(void);'
put clean declarations/render/render.c '#include "render.h"' \
	'int render_xml(void) { return decl_load(); }'
put clean reconcile/recon.h '#include "../declarations/decl.h"' 'int recon_model(void);'
put clean reconcile/recon.c '#include "recon.h"' \
	'int recon_model(void) { return decl_load(); }'
put clean reconcile/live/live.h '#include "../recon.h"' 'int live_fetch(void);'
put clean reconcile/live/live.c '#include "live.h"' \
	'int live_fetch(void) { return recon_model(); }'
put clean reconcile/plan/plan.h '#include "../live/live.h"' 'int plan_diff(void);'
put clean reconcile/plan/plan-int.h '#include "plan.h"' 'int plan_step(void);'
put clean reconcile/plan/plan.c '#include "plan-int.h"' \
	'int plan_step(void) { return live_fetch(); }'
put clean reconcile/plan/diff.c '#include "plan-int.h"' \
	'int plan_diff(void) { return plan_step(); }'
put clean reconcile/apply/apply.h '#include "../plan/plan.h"' 'int apply_run(void);'
put clean reconcile/apply/apply.c '#include "apply.h"' 'int render_xml(void);' \
	'int apply_run(void) { return plan_diff() + render_xml(); }'
put clean agent/agent.h '#include "../reconcile/apply/apply.h"' 'int agent_cmd(void);'
put clean agent/cmd.c '#include "agent.h"' 'int agent_cmd(void) { return apply_run(); }'
put clean agent/main.c '#include "agent.h"' 'int main(void) { return agent_cmd(); }'
put clean agent/daemon/loop.c '#include "../agent.h"' \
	'int daemon_loop(void);' 'int daemon_loop(void) { return agent_cmd(); }'
put clean tests/test-plan.c '#include "../reconcile/plan/plan-int.h"' \
	'#include "../agent/agent.h"' 'int daemon_loop(void);' \
	'int sbuf_len(void) { return daemon_loop(); }'
build clean
layers clean
check "a clean tree passes" test $? -eq 0
check_grep "a clean tree: the summary" \
	'^check-layers: 20 files, 0 circles, 0 upward includes, 0 internal includes, 0 upward calls$' \
	"$tmp/clean.out"

# A circle of two files in one folder.
planted circle2
put circle2 reconcile/plan/a.c 'int b_fn(void);' 'int a_fn(void) { return b_fn(); }'
put circle2 reconcile/plan/b.c 'int a_fn(void);' 'int b_fn(void) { return a_fn(); }'
build circle2
layers circle2
check "a circle of two files fails" test $? -eq 1
check_grep "a circle of two files: named, with the symbols" \
	'^scripts/check-layers: reconcile/plan/a\.c: circle: reconcile/plan/a\.c -> reconcile/plan/b\.c \(b_fn\) -> reconcile/plan/a\.c \(a_fn\)$' \
	"$tmp/circle2.out"
failures "a circle of two files: the only failure" circle2 1

# A circle of three files.
planted circle3
put circle3 agent/x.c 'int y_fn(void);' 'int x_fn(void) { return y_fn(); }'
put circle3 agent/y.c 'int z_fn(void);' 'int y_fn(void) { return z_fn(); }'
put circle3 agent/z.c 'int x_fn(void);' 'int z_fn(void) { return x_fn(); }'
build circle3
layers circle3
check "a circle of three files fails" test $? -eq 1
check_grep "a circle of three files: named, with the symbols" \
	'^scripts/check-layers: agent/x\.c: circle: agent/x\.c -> agent/y\.c \(y_fn\) -> agent/z\.c \(z_fn\) -> agent/x\.c \(x_fn\)$' \
	"$tmp/circle3.out"
failures "a circle of three files: the only failure" circle3 1

# An upward include: declarations/ -> reconcile/.
planted upinc
put upinc declarations/x.c '#include "decl.h"' '#include "../reconcile/recon.h"' \
	'int decl_x(void);' 'int decl_x(void) { return decl_load(); }'
build upinc
layers upinc
check "an upward include fails" test $? -eq 1
check_grep "an upward include: file, line and header" \
	'^scripts/check-layers: declarations/x\.c:2: upward include "\.\./reconcile/recon\.h": reconcile/ \(level 3\) is above declarations/ \(level 1\)$' \
	"$tmp/upinc.out"
failures "an upward include: the only failure" upinc 1

# An upward include between two wings: reconcile/live/ -> reconcile/plan/.
planted wing
put wing reconcile/live/x.c '#include "../plan/plan.h"' \
	'int live_x(void);' 'int live_x(void) { return recon_model(); }'
build wing
layers wing
check "an upward include between wings fails" test $? -eq 1
check_grep "an upward include between wings: file, line and header" \
	'^scripts/check-layers: reconcile/live/x\.c:1: upward include "\.\./plan/plan\.h": reconcile/plan/ \(level 5\) is above reconcile/live/ \(level 4\)$' \
	"$tmp/wing.out"
failures "an upward include between wings: the only failure" wing 1

# A header's upward include: lib/ -> agent/.
planted uphdr
put uphdr lib/x.h '#include "sbuf.h"' '#include "../agent/agent.h"'
build uphdr
layers uphdr
check "a header's upward include fails" test $? -eq 1
check_grep "a header's upward include: the header named" \
	'^scripts/check-layers: lib/x\.h:2: upward include "\.\./agent/agent\.h": agent/ \(level 7\) is above lib/ \(level 0\)$' \
	"$tmp/uphdr.out"
failures "a header's upward include: the only failure" uphdr 1

# Another folder's internal header (downward, so only rule 2 is broken) ...
planted internal
put internal reconcile/apply/x.c '#include "apply.h"' '#include "../plan/plan-int.h"' \
	'int apply_x(void);' 'int apply_x(void) { return plan_diff(); }'
build internal
layers internal
check "another folder's internal header fails" test $? -eq 1
check_grep "another folder's internal header: file, line and header" \
	'^scripts/check-layers: reconcile/apply/x\.c:2: include of another folder.s internal header "\.\./plan/plan-int\.h" \(reconcile/plan/plan-int\.h\)$' \
	"$tmp/internal.out"
failures "another folder's internal header: the only failure" internal 1

# ... and its own folder's passes.
planted own
put own reconcile/plan/x.c '#include "plan-int.h"' \
	'int plan_x(void);' 'int plan_x(void) { return plan_step(); }'
put own reconcile/plan/x.h '#include "plan-int.h"'
build own
layers own
check "the same folder's internal header passes" test $? -eq 0

# An upward call without an include: lib/ calls agent/.
planted upcall
put upcall lib/x.c 'int agent_y(void);' 'int lib_x(void);' '' \
	'int lib_x(void)' '{' '	return agent_y();' '}'
put upcall agent/y.c 'int agent_y(void) { return 7; }'
build upcall
layers upcall
check "an upward call fails" test $? -eq 1
check_grep "an upward call: caller, line, callee and symbol" \
	'^scripts/check-layers: lib/x\.c:6: upward call to agent/y\.c \(agent_y\): agent/ \(level 7\) is above lib/ \(level 0\)$' \
	"$tmp/upcall.out"
failures "an upward call: the only failure" upcall 1

# A source without its object fails; an object without its source (left
# from a moved file) is not read.
planted noobj
build noobj
put noobj reconcile/live/new.c 'int live_new(void) { return 0; }'
layers noobj
check "a source without its object fails" test $? -eq 1
check_grep "a source without its object: named" \
	'^scripts/check-layers: reconcile/live/new\.c: no object .*build/rel/reconcile/live/new\.o' \
	"$tmp/noobj.out"
planted stale
put stale reconcile/old.c 'int agent_cmd(void);' 'int recon_old(void) { return agent_cmd(); }'
build stale
rm "$tmp/stale/reconcile/old.c"
layers stale
check "an object without its source is not read" test $? -eq 0

done_testing
