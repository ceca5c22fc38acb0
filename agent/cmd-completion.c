/* agent/cmd-completion.c: `artemis-gitops completion bash|zsh`, shell
 * completion generated from the command table (agent/main.c, through
 * agent_cli_commands): the commands, each one's options, and what their
 * values and arguments are, read from the placeholders --help shows. A
 * placeholder ending in DIR, and PATH, is a folder; one ending in FILE is
 * a file; any other is a word the shell cannot guess. The arguments are
 * the placeholders of the synopsis that no option takes (`PATH...`
 * repeats); of a synopsis of several lines (alternatives), the line with
 * the most. The package and `make install` install the output. */
#include "agent.h"

#include <stdlib.h>
#include <string.h>

#include "../lib/sbuf.h"
#include "../lib/xalloc.h"

#define COMPLETION_MAX ((size_t)1024 * 1024)
#define ARGS_MAX       8

enum kind { KIND_NONE, KIND_DIR, KIND_FILE };

/* The positional arguments of one command. */
struct positional {
	enum kind kind[ARGS_MAX];
	const char *name[ARGS_MAX]; /* borrowed from words */
	int n;
	bool repeats; /* the last one may be given again */
	char *words;  /* the synopsis line they were read from, split */
};

static enum kind
kind_of(const char *placeholder, size_t len)
{
	if ((len >= 3 && strncmp(placeholder + len - 3, "DIR", 3) == 0) ||
	    (len == 4 && strncmp(placeholder, "PATH", 4) == 0))
		return KIND_DIR;
	if (len >= 4 && strncmp(placeholder + len - 4, "FILE", 4) == 0)
		return KIND_FILE;
	return KIND_NONE;
}

static const struct agent_cmd_option *
find_option(const struct agent_cmd_entry *e, const char *word)
{
	const struct agent_cmd_option *o;

	for (o = e->options; o->name != NULL; o++) {
		if (word[1] == '-' && strcmp(word + 2, o->name) == 0)
			return o;
		if (word[1] == o->short_name && word[2] == '\0')
			return o;
	}
	return NULL;
}

/* The arguments one synopsis line names, into *p (which owns the
 * line's copy). */
static void
read_line(const struct agent_cmd_entry *e, const char *line, size_t len,
    struct positional *p)
{
	const struct agent_cmd_option *o;
	char *w, *save = NULL, *tok, *end;
	size_t i;

	memset(p, 0, sizeof(*p));
	p->words = w = xstrndup(line, len);
	for (i = 0; w[i] != '\0'; i++)
		if (strchr("[]|()\n", w[i]) != NULL)
			w[i] = ' ';
	for (tok = strtok_r(w, " ", &save); tok != NULL;
	     tok = strtok_r(NULL, " ", &save)) {
		if (tok[0] == '-') {
			o = find_option(e, tok);
			if (o != NULL && o->arg != NULL)
				(void)strtok_r(NULL, " ", &save);
			continue;
		}
		if (strcmp(tok, "OPTIONS") == 0 || p->n == ARGS_MAX)
			continue;
		end = strstr(tok, "...");
		if (end != NULL) {
			*end = '\0';
			p->repeats = true;
		}
		p->name[p->n] = tok;
		p->kind[p->n++] = kind_of(tok, strlen(tok));
		if (p->repeats)
			break;
	}
}

/* The first word of a synopsis line. */
static size_t
first_word(const char *s, size_t len)
{
	size_t n = 0;

	while (n < len && s[n] != ' ')
		n++;
	return n;
}

/* A synopsis line that starts as the first one does is an alternative
 * (import's two forms); any other continues the line before it. */
static void
read_positional(const struct agent_cmd_entry *e, struct positional *best)
{
	struct positional p;
	const char *s = e->synopsis, *nl, *alt = s;
	size_t lead = first_word(s, strcspn(s, "\n")), len;

	memset(best, 0, sizeof(*best));
	for (;;) {
		nl = strchr(s, '\n');
		len = nl != NULL ? (size_t)(nl - s) : strlen(s);
		if (nl != NULL &&
		    (first_word(nl + 1, strcspn(nl + 1, "\n")) != lead ||
		        strncmp(nl + 1, e->synopsis, lead) != 0)) {
			s = nl + 1; /* a continuation: read on */
			continue;
		}
		read_line(e, alt, (size_t)(s + len - alt), &p);
		if (best->words == NULL || p.n > best->n) {
			free(best->words);
			*best = p;
		} else {
			free(p.words);
		}
		if (nl == NULL)
			break;
		s = alt = nl + 1;
	}
}

static const char *const kind_word[] =
    {[KIND_NONE] = "word", [KIND_DIR] = "dir", [KIND_FILE] = "file"};

/* bash: one case arm per command setting opts (every option), dirs, files
 * and words (the options whose value is a folder, a file, anything
 * else) and args (the arguments' kinds, `...` after a repeating one). */
static void
bash_command(struct sbuf *b, const struct agent_cmd_entry *e)
{
	const struct agent_cmd_option *o;
	struct positional p;
	enum kind k;
	int i;

	sbuf_addf(b, "\t%s)\n\t\topts='", e->name);
	for (o = e->options; o->name != NULL; o++) {
		if (o->short_name != '\0')
			sbuf_addf(b, "-%c ", o->short_name);
		sbuf_addf(b, "--%s ", o->name);
	}
	sbuf_adds(b, "-h --help -V --version'\n");
	for (k = KIND_NONE; k <= KIND_FILE; k++) {
		sbuf_addf(b, "\t\t%ss='", kind_word[k]);
		for (o = e->options; o->name != NULL; o++) {
			if (o->arg == NULL ||
			    kind_of(o->arg, strlen(o->arg)) != k)
				continue;
			if (o->short_name != '\0')
				sbuf_addf(b, " -%c", o->short_name);
			sbuf_addf(b, " --%s", o->name);
		}
		sbuf_adds(b, " '\n");
	}
	read_positional(e, &p);
	sbuf_adds(b, "\t\targs='");
	for (i = 0; i < p.n; i++)
		sbuf_addf(b, "%s%s", i > 0 ? " " : "", kind_word[p.kind[i]]);
	sbuf_addf(b, "%s'\n\t\t;;\n", p.repeats ? " ..." : "");
	free(p.words);
}

static void
bash_script(struct sbuf *b, const struct agent_cmd_entry *const *cmds, size_t n)
{
	size_t i;

	sbuf_adds(b,
	    "# bash completion for artemis-gitops, generated from its command "
	    "table\n# by `artemis-gitops completion bash`: do not edit.\n\n"
	    "_artemis_gitops_in() {\n"
	    "\tcase \" $2 \" in *\" $1 \"*) return 0 ;; esac\n"
	    "\treturn 1\n"
	    "}\n\n"
	    "_artemis_gitops_complete() {\n"
	    "\tcase $1 in\n"
	    "\tdir) compopt -o filenames 2>/dev/null\n"
	    "\t\tmapfile -t COMPREPLY < <(compgen -d -- \"$2\") ;;\n"
	    "\tfile) compopt -o filenames 2>/dev/null\n"
	    "\t\tmapfile -t COMPREPLY < <(compgen -f -- \"$2\") ;;\n"
	    "\t*) COMPREPLY=() ;;\n"
	    "\tesac\n"
	    "}\n\n"
	    "_artemis_gitops() {\n"
	    "\tlocal cur=${COMP_WORDS[COMP_CWORD]} prev= cmd=${COMP_WORDS[1]}\n"
	    "\tlocal opts= dirs= files= words= args= i n=0 kind=\n"
	    "\t[ \"$COMP_CWORD\" -gt 0 ] && prev=${COMP_WORDS[COMP_CWORD-1]}\n"
	    "\tCOMPREPLY=()\n"
	    "\tif [ \"$COMP_CWORD\" -le 1 ]; then\n"
	    "\t\tmapfile -t COMPREPLY < <(compgen -W '");
	for (i = 0; i < n; i++)
		sbuf_addf(b, "%s ", cmds[i]->name);
	sbuf_adds(b, "-h --help -V --version' -- \"$cur\")\n"
	             "\t\treturn 0\n"
	             "\tfi\n"
	             "\tcase $cmd in\n");
	for (i = 0; i < n; i++)
		bash_command(b, cmds[i]);
	sbuf_adds(b,
	    "\t*) return 0 ;;\n"
	    "\tesac\n"
	    "\t# the value of an option\n"
	    "\tif _artemis_gitops_in \"$prev\" \"$dirs\"; then\n"
	    "\t\t_artemis_gitops_complete dir \"$cur\"; return 0\n"
	    "\telif _artemis_gitops_in \"$prev\" \"$files\"; then\n"
	    "\t\t_artemis_gitops_complete file \"$cur\"; return 0\n"
	    "\telif _artemis_gitops_in \"$prev\" \"$words\"; then\n"
	    "\t\treturn 0\n"
	    "\tfi\n"
	    "\tif [[ $cur == -* ]]; then\n"
	    "\t\tmapfile -t COMPREPLY < <(compgen -W \"$opts\" -- \"$cur\")\n"
	    "\t\treturn 0\n"
	    "\tfi\n"
	    "\t# the arguments before this one: words that are neither an "
	    "option\n\t# nor an option's value\n"
	    "\tfor ((i = 2; i < COMP_CWORD; i++)); do\n"
	    "\t\tcase ${COMP_WORDS[i]} in\n"
	    "\t\t-*) _artemis_gitops_in \"${COMP_WORDS[i]}\" \"$dirs $files "
	    "$words\" && i=$((i + 1)) ;;\n"
	    "\t\t*) n=$((n + 1)) ;;\n"
	    "\t\tesac\n"
	    "\tdone\n"
	    "\tset -- $args\n"
	    "\tif [ $# -gt 0 ] && [ \"${!#}\" = ... ]; then\n"
	    "\t\tset -- \"${@:1:$# - 1}\"\n"
	    "\t\t[ \"$n\" -ge $# ] && n=$(($# - 1))\n"
	    "\tfi\n"
	    "\tif [ \"$n\" -lt $# ]; then\n"
	    "\t\tshift \"$n\"; kind=$1\n"
	    "\tfi\n"
	    "\tif [ -n \"$kind\" ] && [ \"$kind\" != word ]; then\n"
	    "\t\t_artemis_gitops_complete \"$kind\" \"$cur\"\n"
	    "\telif [ -z \"$kind\" ]; then\n"
	    "\t\tmapfile -t COMPREPLY < <(compgen -W \"$opts\" -- \"$cur\")\n"
	    "\tfi\n"
	    "\treturn 0\n"
	    "}\n\n"
	    "complete -F _artemis_gitops artemis-gitops\n");
}

/* Text for inside zsh's single quotes and _arguments' [...]: the first
 * line of help, without the characters that would end either. */
static void
zsh_text(struct sbuf *b, const char *s)
{
	for (; *s != '\0' && *s != '\n'; s++) {
		if (*s == '\'')
			sbuf_addc(b, '`');
		else if (*s == '[')
			sbuf_addc(b, '(');
		else if (*s == ']')
			sbuf_addc(b, ')');
		else if (*s == ':')
			sbuf_addc(b, ',');
		else if (*s != '\\')
			sbuf_addc(b, *s);
	}
}

static const char *const zsh_action[] =
    {[KIND_NONE] = " ", [KIND_DIR] = "_files -/", [KIND_FILE] = "_files"};

static void
zsh_option(struct sbuf *b, const struct agent_cmd_option *o, const char *help)
{
	sbuf_adds(b, " \\\n\t\t\t");
	if (o->short_name != '\0')
		sbuf_addf(b, "'(-%c --%s)'{-%c,--%s}'", o->short_name, o->name,
		    o->short_name, o->name);
	else
		sbuf_addf(b, "'--%s", o->name);
	sbuf_adds(b, "[");
	zsh_text(b, help != NULL ? help : "");
	sbuf_adds(b, "]");
	if (o->arg != NULL) {
		sbuf_addc(b, ':');
		zsh_text(b, o->arg);
		sbuf_addf(b, ":%s",
		    zsh_action[kind_of(o->arg, strlen(o->arg))]);
	}
	sbuf_adds(b, "'");
}

static void
zsh_command(struct sbuf *b, const struct agent_cmd_entry *e)
{
	static const struct agent_cmd_option help = {"help", 'h', NULL,
	    "show this help", NULL};
	static const struct agent_cmd_option version = {"version", 'V', NULL,
	    "show the version", NULL};
	const struct agent_cmd_option *o;
	const char *text = NULL;
	struct positional p;
	int i;

	sbuf_addf(b, "\t%s)\n\t\t_arguments -s -S", e->name);
	for (o = e->options; o->name != NULL; o++) {
		if (o->help != NULL)
			text = o->help; /* a NULL help shares the one before */
		zsh_option(b, o, text);
	}
	zsh_option(b, &help, help.help);
	zsh_option(b, &version, version.help);
	read_positional(e, &p);
	for (i = 0; i < p.n; i++) {
		sbuf_adds(b, " \\\n\t\t\t'");
		if (p.repeats && i == p.n - 1)
			sbuf_adds(b, "*");
		else
			sbuf_addf(b, "%d", i + 1);
		sbuf_adds(b, ":");
		zsh_text(b, p.name[i]);
		sbuf_addf(b, ":%s'", zsh_action[p.kind[i]]);
	}
	sbuf_adds(b, " ;;\n");
	free(p.words);
}

static void
zsh_script(struct sbuf *b, const struct agent_cmd_entry *const *cmds, size_t n)
{
	size_t i;

	sbuf_adds(b,
	    "#compdef artemis-gitops\n"
	    "# zsh completion for artemis-gitops, generated from its command "
	    "table\n# by `artemis-gitops completion zsh`: do not edit.\n\n"
	    "_artemis-gitops() {\n"
	    "\tlocal -a commands\n"
	    "\tcommands=(");
	for (i = 0; i < n; i++) {
		sbuf_addf(b, "\n\t\t'%s:", cmds[i]->name);
		zsh_text(b, cmds[i]->summary);
		sbuf_adds(b, "'");
	}
	sbuf_adds(b, "\n\t)\n"
	             "\tif (( CURRENT == 2 )); then\n"
	             "\t\t_describe -t commands 'artemis-gitops command' "
	             "commands\n"
	             "\t\treturn\n"
	             "\tfi\n"
	             "\tlocal cmd=$words[2]\n"
	             "\tshift words\n"
	             "\t(( CURRENT-- ))\n"
	             "\tcase $cmd in\n");
	for (i = 0; i < n; i++)
		zsh_command(b, cmds[i]);
	sbuf_adds(b, "\tesac\n"
	             "}\n\n"
	             "if [ \"$funcstack[1]\" = _artemis-gitops ]; then\n"
	             "\t_artemis-gitops \"$@\"\n"
	             "else\n"
	             "\tcompdef _artemis-gitops artemis-gitops\n"
	             "fi\n");
}

static int
completion_exec(const struct agent_cmd_args *args)
{
	const struct agent_cmd_entry *const *cmds;
	struct sbuf b;
	size_t n;

	cmds = agent_cli_commands(&n);
	sbuf_init(&b, COMPLETION_MAX);
	if (strcmp(args->argv[0], "bash") == 0)
		bash_script(&b, cmds, n);
	else if (strcmp(args->argv[0], "zsh") == 0)
		zsh_script(&b, cmds, n);
	else {
		sbuf_release(&b);
		return agent_usage_error("completion",
		    "unknown shell '%s' (bash or zsh)", args->argv[0]);
	}
	fputs(sbuf_str(&b), stdout);
	sbuf_release(&b);
	return fflush(stdout) == 0 ? AGENT_EXIT_OK : AGENT_EXIT_FAIL;
}

static const struct agent_cmd_option completion_options[] = {
    {NULL, '\0', NULL, NULL, NULL},
};

const struct agent_cmd_entry agent_cmd_completion_entry = {
    .name = "completion",
    .summary = "print the bash or zsh completion of these commands",
    .synopsis = "SHELL",
    .description =
        "Print the completion script of SHELL (bash or zsh) for every "
        "command,\nits options, and the folders and files they take. "
        "The package installs\nboth; by hand:\n\n"
        "  artemis-gitops completion bash "
        ">/etc/bash_completion.d/artemis-gitops\n"
        "  artemis-gitops completion zsh "
        ">/usr/local/share/zsh/site-functions/_artemis-gitops",
    .options = completion_options,
    .help_col = 17,
    .exit_codes = "Exit codes: 0 printed, 1 not written, 64 usage error.",
    .args_min = 1,
    .args_max = 1,
    .args_few = "expected one SHELL (bash or zsh)",
    .args_many = "expected one SHELL (bash or zsh)",
    .exec = completion_exec,
};
