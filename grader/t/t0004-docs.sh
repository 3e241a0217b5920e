#!/bin/bash
# The documentation holds together: README.md stays short, every page under
# docs/ is reached by relative links from it, no relative link is broken,
# and each command's page under docs/commands/ shows its -h as it is.
# beside-others: it times nothing, and grades nothing
. "$(dirname "$0")/lib.sh"

# md_links FILE: the targets of FILE's relative Markdown links and images,
# one a line, without their #anchor; those in fenced code blocks, URLs
# (scheme:) and anchors of the page itself are left out
md_links() {
	awk '/^[ \t]*```/ { code = !code; next } !code' "$1" |
		grep -o '\]([^)[:space:]]*' | sed 's/^](//' |
		grep -v '^[A-Za-z][A-Za-z0-9+.-]*:' | sed 's/#.*//' | grep -v '^$'
}

# docs_pages: README.md and every page under docs/, relative to T_ROOT
docs_pages() {
	echo README.md
	(cd "$T_ROOT" && find docs -name '*.md' | LC_ALL=C sort)
}

# reachable: the pages of docs_pages that relative links reach from
# README.md, one a line (README.md first)
reachable() {
	local queue=(README.md) seen=" README.md " f t p
	while [ ${#queue[@]} -gt 0 ]; do
		f=${queue[0]}
		queue=("${queue[@]:1}")
		echo "$f"
		while IFS= read -r t; do
			p=$(realpath -m --relative-to="$T_ROOT" "$T_ROOT/$(dirname "$f")/$t")
			case $p in README.md | docs/*.md) ;; *) continue ;; esac
			[ -f "$T_ROOT/$p" ] || continue
			case $seen in *" $p "*) continue ;; esac
			seen="$seen$p "
			queue+=("$p")
		done < <(md_links "$T_ROOT/$f")
	done
}

# commands: the commands `cudalab --help` lists, one a line
commands() {
	"$CUDALAB" --help | sed -n 's/^  cudalab \([a-z][a-z-]*\).*/\1/p'
}

test_expect_success 'README.md is under 250 lines' '
	n=$(wc -l <"$T_ROOT/README.md") &&
	{ [ "$n" -lt 250 ] || { say "README.md has $n lines"; false; }; }
'
test_expect_success 'every page under docs/ is reached by relative links from README.md' '
	reachable | LC_ALL=C sort >reached &&
	docs_pages | LC_ALL=C sort >pages &&
	[ "$(wc -l <pages)" -gt 1 ] &&
	missing=$(comm -23 pages reached) &&
	{ [ -z "$missing" ] || { say "no link from README.md reaches:" $missing; false; }; }
'
test_expect_success 'every relative link of README.md and docs/ names a file that exists' '
	: >broken &&
	docs_pages >pages &&
	while IFS= read -r f; do
		md_links "$T_ROOT/$f" >links || :
		while IFS= read -r t; do
			[ -e "$T_ROOT/$(dirname "$f")/$t" ] || echo "$f: $t" >>broken
		done <links
	done <pages &&
	{ [ ! -s broken ] || { say "links to files that do not exist:"; cat broken; false; }; }
'
test_expect_success 'each command cudalab --help lists has a page with its -h as it is' '
	commands >cmds &&
	[ "$(wc -l <cmds)" -ge 10 ] && grep -qx grade cmds && grep -qx db cmds &&
	bad=0 &&
	while IFS= read -r cmd; do
		page=$T_ROOT/docs/commands/$cmd.md
		if [ ! -f "$page" ]; then
			say "no page docs/commands/$cmd.md"; bad=1; continue
		fi
		help=$("$CUDALAB" "$cmd" --help) || { say "cudalab $cmd --help failed"; bad=1; continue; }
		want=$(printf "\`\`\`text\n%s\n\`\`\`" "$help")
		text=$(cat "$page")
		case $text in
		*"$want"*) ;;
		*) say "docs/commands/$cmd.md lacks the output of cudalab $cmd --help, in a text block:"
		   printf "%s\n" "$help" >want && diff want - <<<"$text" | head -20; bad=1 ;;
		esac
	done <cmds &&
	[ $bad = 0 ]
'
test_done
