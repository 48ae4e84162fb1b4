/*
 * cmd_completion.c — `wheelmatrix completion SHELL`: the completion script of
 * bash, zsh or fish, written from the command and option tables, so that it
 * offers what the parser accepts and nothing else.  The backends `patch` takes
 * and the files `generate --stdout` prints are the matrix's: the scripts ask
 * `wheelmatrix completion --backends` and `--outputs` for them at completion time.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "cmd.h"

static const char *const shells[] = { "bash", "zsh", "fish", NULL };

const struct cli_option cmd_completion_options[COMPLETION_NOPTIONS] = {
	[COMPLETION_BACKENDS] = { 0, "backends", NULL, NULL,
		"print the matrix's backends, one a line (what the scripts offer after 'patch')" },
	[COMPLETION_OUTPUTS] = { 0, "outputs", NULL, NULL,
		"print what 'generate --stdout' prints for the matrix, one a line (github, gitlab, patch:BACKEND, action:NAME)" },
};

/* What a command's argument (its `args` in the table) is completed with. */
enum arg_kind { ARG_NONE, ARG_WORD, ARG_COMMAND, ARG_BACKEND, ARG_SHELL };

static enum arg_kind arg_kind(const struct cli_command *c)
{
	if (!c->args)
		return ARG_NONE;
	/* `patch BACKEND`, `build BACKEND [-- MATURIN-ARGS]`: the first argument */
	if (strncmp(c->args, "BACKEND", 7) == 0 && (c->args[7] == '\0' || c->args[7] == ' '))
		return ARG_BACKEND;
	if (strcmp(c->args, "[COMMAND]") == 0)
		return ARG_COMMAND;
	if (strcmp(c->args, "SHELL") == 0)
		return ARG_SHELL;
	/* a literal action such as `hook install` */
	for (const char *p = c->args; *p; p++)
		if (!(*p >= 'a' && *p <= 'z') && *p != '-')
			return ARG_NONE;
	return ARG_WORD;
}

/*
 * What an option's value is completed with: its choices, files, directories, the generated files
 * `generate --stdout` names (OUTPUT: `completion --outputs`), or nothing.
 */
enum value_kind { VALUE_NONE, VALUE_CHOICES, VALUE_FILE, VALUE_DIR, VALUE_OUTPUT };

static enum value_kind value_kind(const struct cli_option *o)
{
	if (o->choices)
		return VALUE_CHOICES;
	if (strcmp(o->arg, "FILE") == 0)
		return VALUE_FILE;
	if (strcmp(o->arg, "DIR") == 0)
		return VALUE_DIR;
	if (strcmp(o->arg, "OUTPUT") == 0)
		return VALUE_OUTPUT;
	return VALUE_NONE;
}

static void put_words(const char *const *words)
{
	for (size_t i = 0; words[i]; i++)
		printf("%s%s", i ? " " : "", words[i]);
}

static void put_command_names(const struct cli_command *cmds, size_t n)
{
	for (size_t i = 0; i < n; i++)
		printf("%s%s", i ? " " : "", cmds[i].name);
}

/*
 * A shell-glob `case` pattern for each value-taking option: `CMD:--opt`, `*:-C`
 * for a global; between `sep`s, each in quotes `q` (fish would expand them).
 */
static void put_value_patterns(const struct cli_command *cmds, size_t ncmds, const struct cli_option *globals,
	size_t nglobals, const char *sep, const char *q)
{
	const char *s = "";
	for (size_t i = 0; i < nglobals; i++) {
		const struct cli_option *o = &globals[i];
		if (!o->arg)
			continue;
		if (o->short_name)
			printf("%s%s*:-%c%s", s, q, o->short_name, q), s = sep;
		if (o->long_name)
			printf("%s%s*:--%s%s", s, q, o->long_name, q), s = sep;
	}
	for (size_t c = 0; c < ncmds; c++)
		for (size_t i = 0; i < cmds[c].noptions; i++) {
			const struct cli_option *o = &cmds[c].options[i];
			if (!o->arg)
				continue;
			if (o->short_name)
				printf("%s%s%s:-%c%s", s, q, cmds[c].name, o->short_name, q), s = sep;
			if (o->long_name)
				printf("%s%s%s:--%s%s", s, q, cmds[c].name, o->long_name, q), s = sep;
		}
}

/* ---- bash ----------------------------------------------------------------- */

static void bash_option_words(const struct cli_option *opts, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (opts[i].short_name)
			printf(" -%c", opts[i].short_name);
		if (opts[i].long_name)
			printf(" --%s", opts[i].long_name);
	}
}

/* The `case` arms completing the value of each option that has choices, files or directories. */
static void bash_value_arms(const char *cmd, const struct cli_option *opts, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct cli_option *o = &opts[i];
		enum value_kind k;
		if (!o->arg)
			continue;
		k = value_kind(o);
		fputs("\t", stdout);
		if (o->short_name)
			printf("%s:-%c%s", cmd, o->short_name, o->long_name ? "|" : "");
		if (o->long_name)
			printf("%s:--%s", cmd, o->long_name);
		if (k == VALUE_NONE) {
			fputs(") ;;\n", stdout);
		} else if (k == VALUE_CHOICES) {
			fputs(") mapfile -t COMPREPLY < <(compgen -W '", stdout);
			put_words(o->choices);
			fputs("' -- \"$cur\") ;;\n", stdout);
		} else if (k == VALUE_OUTPUT) {
			fputs(") mapfile -t COMPREPLY < <(compgen -W \"$(_wheelmatrix_ask --outputs \"${where[@]}\")\" "
				"-- \"$cur\") ;;\n", stdout);
		} else {
			printf(") compopt -o filenames; mapfile -t COMPREPLY < <(compgen -%c -- \"$cur\") ;;\n",
				k == VALUE_DIR ? 'd' : 'f');
		}
	}
}

static void bash_script(const struct cli_command *cmds, size_t ncmds, const struct cli_option *globals,
	size_t nglobals)
{
	puts("# bash completion for wheelmatrix (written by 'wheelmatrix completion bash')\n"
		"\n"
		"# _wheelmatrix_ask OPTION [-C DIR] [-f FILE]: what `wheelmatrix completion OPTION` lists (the\n"
		"# backends, the outputs) for the matrix the command line names (its -C and -f).\n"
		"_wheelmatrix_ask() {\n"
		"\tlocal wm=${COMP_WORDS[0]}\n"
		"\t[[ $wm == */* && -x $wm ]] || wm=wheelmatrix\n"
		"\t\"$wm\" \"${@:2}\" completion \"$1\" 2>/dev/null\n"
		"}\n"
		"\n"
		"_wheelmatrix() {\n"
		"\tlocal cur prev='' opt='' cmd='' w i nargs=0 cword=0 join=0\n"
		"\tlocal -a where=() words=()\n"
		"\t# bash splits words at ':' too (COMP_WORDBREAKS): `patch:cuda` is one word again\n"
		"\tfor ((i = 0; i < ${#COMP_WORDS[@]}; i++)); do\n"
		"\t\tw=${COMP_WORDS[i]}\n"
		"\t\tif ((i > 0)) && [[ $join == 1 || ($w == :* && $COMP_WORDBREAKS == *:*) ]]; then\n"
		"\t\t\twords[-1]+=$w\n"
		"\t\telse\n"
		"\t\t\twords+=(\"$w\")\n"
		"\t\tfi\n"
		"\t\tjoin=0\n"
		"\t\tif [[ $w == *: && $COMP_WORDBREAKS == *:* ]]; then join=1; fi\n"
		"\t\t((i == COMP_CWORD)) && cword=$((${#words[@]} - 1))\n"
		"\tdone\n"
		"\tcur=${words[cword]}\n"
		"\t((cword > 0)) && prev=${words[cword - 1]}\n"
		"\tCOMPREPLY=()\n"
		"\t# the command, and the -C and -f before the word being completed (bash splits --opt=value at '=')\n"
		"\tfor ((i = 1; i < cword; i++)); do\n"
		"\t\tw=${words[i]}\n"
		"\t\tcase $cmd:$w in");
	fputs("\t\t", stdout);
	put_value_patterns(cmds, ncmds, globals, nglobals, "|", "");
	puts(")\n"
		"\t\t\tif [[ ${words[i + 1]} == = ]]; then ((i++)); fi\n"
		"\t\t\t((i + 1 < cword)) || break\n"
		"\t\t\t((i++))\n"
		"\t\t\tcase $w in -C|-f|--file) where+=(\"$w\" \"${words[i]}\") ;; esac\n"
		"\t\t\t;;\n"
		"\t\t*:-*) ;;\n"
		"\t\t:*) cmd=$w ;;\n"
		"\t\t*) ((nargs++)) ;;\n"
		"\t\tesac\n"
		"\tdone\n"
		"\t# the value of an option: `--opt VALUE`, `--opt=VALUE`\n"
		"\tif [[ $cur == = ]]; then\n"
		"\t\topt=$prev cur=\n"
		"\telif [[ $prev == = ]] && ((cword > 1)); then\n"
		"\t\topt=${words[cword - 2]}\n"
		"\telse\n"
		"\t\topt=$prev\n"
		"\tfi\n"
		"\tcase $cmd:$opt in");
	bash_value_arms("*", globals, nglobals);
	for (size_t c = 0; c < ncmds; c++)
		bash_value_arms(cmds[c].name, cmds[c].options, cmds[c].noptions);
	puts("\t*)\n"
		"\t\tif [[ $cur == -* ]]; then\n"
		"\t\t\tcase $cmd in");
	for (size_t c = 0; c < ncmds; c++) {
		printf("\t\t\t%s) mapfile -t COMPREPLY < <(compgen -W '", cmds[c].name);
		bash_option_words(cmds[c].options, cmds[c].noptions);
		bash_option_words(globals, nglobals);
		puts("' -- \"$cur\") ;;");
	}
	fputs("\t\t\t*) mapfile -t COMPREPLY < <(compgen -W '", stdout);
	bash_option_words(globals, nglobals);
	puts("' -- \"$cur\") ;;\n"
		"\t\t\tesac\n"
		"\t\telif [[ -z $cmd ]]; then");
	fputs("\t\t\tmapfile -t COMPREPLY < <(compgen -W '", stdout);
	put_command_names(cmds, ncmds);
	puts("' -- \"$cur\")\n"
		"\t\telif ((nargs == 0)); then\n"
		"\t\t\tcase $cmd in");
	for (size_t c = 0; c < ncmds; c++) {
		switch (arg_kind(&cmds[c])) {
		case ARG_NONE:
			continue;
		case ARG_WORD:
			printf("\t\t\t%s) mapfile -t COMPREPLY < <(compgen -W '%s' -- \"$cur\") ;;\n", cmds[c].name,
				cmds[c].args);
			break;
		case ARG_COMMAND:
			printf("\t\t\t%s) mapfile -t COMPREPLY < <(compgen -W '", cmds[c].name);
			put_command_names(cmds, ncmds);
			puts("' -- \"$cur\") ;;");
			break;
		case ARG_SHELL:
			printf("\t\t\t%s) mapfile -t COMPREPLY < <(compgen -W '", cmds[c].name);
			put_words(shells);
			puts("' -- \"$cur\") ;;");
			break;
		case ARG_BACKEND:
			printf("\t\t\t%s) mapfile -t COMPREPLY < <(compgen -W \"$(_wheelmatrix_ask --backends \"${where[@]}\")\" "
				"-- \"$cur\") ;;\n", cmds[c].name);
			break;
		}
	}
	puts("\t\t\tesac\n"
		"\t\tfi\n"
		"\t\t;;\n"
		"\tesac\n"
		"\t# bash replaces only what follows the word's last ':'\n"
		"\tif [[ $cur == *:* && $COMP_WORDBREAKS == *:* ]]; then\n"
		"\t\tw=${cur%\"${cur##*:}\"}\n"
		"\t\tCOMPREPLY=(\"${COMPREPLY[@]#\"$w\"}\")\n"
		"\tfi\n"
		"}\n"
		"complete -F _wheelmatrix wheelmatrix");
}

/* ---- zsh ------------------------------------------------------------------ */

/* Text inside a single-quoted zsh word, with the brackets and colons _arguments reads escaped. */
static void zsh_text(const char *s)
{
	for (; *s; s++) {
		if (*s == '\'')
			fputs("'\\''", stdout);
		else if (*s == '[' || *s == ']' || *s == ':' || *s == '\\')
			printf("\\%c", *s);
		else
			putchar(*s);
	}
}

/*
 * One option as _arguments specs: `'(-f --file)'{-f,--file=}'[help]:FILE:_files'`; a long option
 * with a value takes it in the next word or after '=' (`--file=wm.yaml`), as the parser does.
 */
static void zsh_option(const struct cli_option *o, const char *indent, const char *tail)
{
	fputs(indent, stdout);
	if (o->short_name && o->long_name)
		printf("'(-%c --%s)'{-%c,--%s%s}'", o->short_name, o->long_name, o->short_name, o->long_name,
			o->arg ? "=" : "");
	else if (o->short_name)
		printf("'-%c", o->short_name);
	else
		printf("'--%s%s", o->long_name, o->arg ? "=" : "");
	putchar('[');
	zsh_text(o->help);
	putchar(']');
	if (o->arg) {
		printf(":%s:", o->arg);
		switch (value_kind(o)) {
		case VALUE_CHOICES:
			putchar('(');
			put_words(o->choices);
			putchar(')');
			break;
		case VALUE_FILE:
			fputs("_files", stdout);
			break;
		case VALUE_DIR:
			fputs("_files -/", stdout);
			break;
		case VALUE_OUTPUT:
			fputs("_wheelmatrix_outputs", stdout);
			break;
		case VALUE_NONE:
			fputs(" ", stdout);
			break;
		}
	}
	printf("'%s", tail);
}

static void zsh_script(const struct cli_command *cmds, size_t ncmds, const struct cli_option *globals,
	size_t nglobals)
{
	puts("#compdef wheelmatrix\n"
		"# zsh completion for wheelmatrix (written by 'wheelmatrix completion zsh')\n"
		"\n"
		"# _wheelmatrix_word WORD: a word of the command line as typed, as data: its quotes removed and a\n"
		"# leading ~ read as $HOME, nothing else in it expanded or run (into REPLY).\n"
		"_wheelmatrix_word() {\n"
		"\tREPLY=${(Q)1}\n"
		"\t[[ $1 == \\~ || $1 == \\~/* ]] && REPLY=$HOME${REPLY#\\~}\n"
		"}\n"
		"\n"
		"# _wheelmatrix_ask TAG DESCRIPTION OPTION: what `wheelmatrix completion OPTION` lists (the backends,\n"
		"# the outputs) for the matrix the command line names (its -C and -f).  (_wheelmatrix keeps the\n"
		"# whole line in _wheelmatrix_line: _arguments narrows $words to the command's.)  The command runs\n"
		"# with the words as its arguments, without an eval (_call_program evaluates its words), as bash's\n"
		"# and fish's do.\n"
		"_wheelmatrix_ask() {\n"
		"\tlocal -a where items\n"
		"\tlocal i wm REPLY\n"
		"\t_wheelmatrix_word \"$_wheelmatrix_line[1]\"\n"
		"\twm=$REPLY\n"
		"\t[[ $wm == */* && -x $wm ]] || wm=wheelmatrix\n"
		"\tfor ((i = 2; i < $#_wheelmatrix_line; i++)); do\n"
		"\t\tcase ${(Q)_wheelmatrix_line[i]} in\n"
		"\t\t-C|-f|--file)\n"
		"\t\t\t_wheelmatrix_word \"$_wheelmatrix_line[i+1]\"\n"
		"\t\t\twhere+=(\"${(Q)_wheelmatrix_line[i]}\" \"$REPLY\") ;;\n"
		"\t\t--file=*) where+=(\"${(Q)_wheelmatrix_line[i]}\") ;;\n"
		"\t\tesac\n"
		"\tdone\n"
		"\titems=(${(f)\"$(command \"$wm\" \"${where[@]}\" completion $3 2>/dev/null)\"})\n"
		"\t# _describe reads a ':' as the start of a description\n"
		"\titems=(${items//:/\\\\:})\n"
		"\t_describe -t $1 $2 items\n"
		"}\n"
		"# (_arguments calls an action with compadd's options after its own words: these take none)\n"
		"_wheelmatrix_backends() { _wheelmatrix_ask backends backend --backends }\n"
		"_wheelmatrix_outputs() { _wheelmatrix_ask outputs output --outputs }\n"
		"\n"
		"_wheelmatrix() {\n"
		"\tlocal curcontext=$curcontext state state_descr line ret=1\n"
		"\tlocal -a _wheelmatrix_line=(\"${words[@]}\")\n"
		"\ttypeset -A opt_args\n"
		"\tlocal -a globals=(");
	for (size_t i = 0; i < nglobals; i++)
		zsh_option(&globals[i], "\t\t", "\n");
	puts("\t)\n"
		"\tlocal -a commands=(");
	for (size_t c = 0; c < ncmds; c++) {
		printf("\t\t'%s:", cmds[c].name);
		zsh_text(cmds[c].summary);
		puts("'");
	}
	puts("\t)\n"
		"\t_arguments -C -s $globals ': :->command' '*:: :->args' && ret=0\n"
		"\tcase $state in\n"
		"\tcommand) _describe -t commands command commands && ret=0 ;;\n"
		"\targs)\n"
		"\t\tcurcontext=${curcontext%:*:*}:wheelmatrix-$words[1]:\n"
		"\t\tcase $words[1] in");
	for (size_t c = 0; c < ncmds; c++) {
		printf("\t\t%s)\n\t\t\t_arguments -s $globals \\\n", cmds[c].name);
		for (size_t i = 0; i < cmds[c].noptions; i++)
			zsh_option(&cmds[c].options[i], "\t\t\t\t", " \\\n");
		switch (arg_kind(&cmds[c])) {
		case ARG_NONE:
			break;
		case ARG_WORD:
			printf("\t\t\t\t'1:action:(%s)' \\\n", cmds[c].args);
			break;
		case ARG_COMMAND:
			fputs("\t\t\t\t'1:command:(", stdout);
			put_command_names(cmds, ncmds);
			puts(")' \\");
			break;
		case ARG_SHELL:
			fputs("\t\t\t\t'1:shell:(", stdout);
			put_words(shells);
			puts(")' \\");
			break;
		case ARG_BACKEND:
			puts("\t\t\t\t'1:backend:_wheelmatrix_backends' \\");
			break;
		}
		puts("\t\t\t\t&& ret=0 ;;");
	}
	puts("\t\tesac ;;\n"
		"\tesac\n"
		"\treturn ret\n"
		"}\n"
		"\n"
		"if [[ $zsh_eval_context[-1] == loadautofunc ]]; then\n"
		"\t_wheelmatrix \"$@\"\n"
		"else\n"
		"\tcompdef _wheelmatrix wheelmatrix\n"
		"fi");
}

/* ---- fish ----------------------------------------------------------------- */

/* A single-quoted fish string. */
static void fish_quoted(const char *s)
{
	putchar('\'');
	for (; *s; s++) {
		if (*s == '\'' || *s == '\\')
			putchar('\\');
		putchar(*s);
	}
	putchar('\'');
}

static void fish_option(const char *cond, const struct cli_option *o)
{
	fputs("complete -c wheelmatrix", stdout);
	if (cond)
		printf(" -n '%s'", cond);
	if (o->short_name)
		printf(" -s %c", o->short_name);
	if (o->long_name)
		printf(" -l %s", o->long_name);
	if (o->arg) {
		switch (value_kind(o)) {
		case VALUE_CHOICES:
			fputs(" -x -a '", stdout);
			put_words(o->choices);
			putchar('\'');
			break;
		case VALUE_FILE:
			fputs(" -r -F", stdout);
			break;
		case VALUE_DIR:
			fputs(" -x -a '(__fish_complete_directories)'", stdout);
			break;
		case VALUE_OUTPUT:
			fputs(" -x -a '(__wheelmatrix_ask --outputs)'", stdout);
			break;
		case VALUE_NONE:
			fputs(" -x", stdout);
			break;
		}
	}
	fputs(" -d ", stdout);
	fish_quoted(o->help);
	putchar('\n');
}

static void fish_script(const struct cli_command *cmds, size_t ncmds, const struct cli_option *globals,
	size_t nglobals)
{
	puts("# fish completion for wheelmatrix (written by 'wheelmatrix completion fish')\n"
		"\n"
		"# The command and the number of arguments after it, skipping options and their values.\n"
		"function __wheelmatrix_words\n"
		"    set -l cmd\n"
		"    set -l nargs 0\n"
		"    set -l skip 0\n"
		"    set -l words (commandline -opc)\n"
		"    set -e words[1]\n"
		"    for w in $words\n"
		"        if test $skip = 1\n"
		"            set skip 0\n"
		"            continue\n"
		"        end\n"
		"        switch \"$cmd:$w\"");
	fputs("            case ", stdout);
	put_value_patterns(cmds, ncmds, globals, nglobals, " ", "'");
	puts("\n"
		"                set skip 1\n"
		"            case '*:-*'\n"
		"            case ':*'\n"
		"                set cmd $w\n"
		"            case '*'\n"
		"                set nargs (math $nargs + 1)\n"
		"        end\n"
		"    end\n"
		"    echo \"$cmd:$nargs\"\n"
		"end\n"
		"\n"
		"# True when the command line has no command yet.\n"
		"function __wheelmatrix_none\n"
		"    set -l w (__wheelmatrix_words | string split :)\n"
		"    test -z \"$w[1]\"\n"
		"end\n"
		"\n"
		"# True when the command is $argv[1]; with a second argument, when it has no argument yet.\n"
		"function __wheelmatrix_is\n"
		"    set -l w (__wheelmatrix_words | string split :)\n"
		"    test \"$w[1]\" = $argv[1]; or return 1\n"
		"    test (count $argv) = 1; or test $w[2] = 0\n"
		"end\n"
		"\n"
		"# What `wheelmatrix completion $argv[1]` lists (the backends, the outputs) for the matrix the\n"
		"# command line names (its -C and -f).\n"
		"function __wheelmatrix_ask\n"
		"    set -l words (commandline -opc)\n"
		"    set -l where\n"
		"    for i in (seq 2 (count $words))\n"
		"        switch $words[$i]\n"
		"            case -C -f --file\n"
		"                set -a where $words[$i] $words[(math $i + 1)]\n"
		"            case '--file=*'\n"
		"                set -a where $words[$i]\n"
		"        end\n"
		"    end\n"
		"    command $words[1] $where completion $argv[1] 2>/dev/null\n"
		"end\n"
		"\n"
		"complete -c wheelmatrix -f");
	for (size_t i = 0; i < nglobals; i++)
		fish_option(NULL, &globals[i]);
	for (size_t c = 0; c < ncmds; c++) {
		char cond[128];
		printf("complete -c wheelmatrix -n __wheelmatrix_none -a %s -d ", cmds[c].name);
		fish_quoted(cmds[c].summary);
		putchar('\n');
		snprintf(cond, sizeof(cond), "__wheelmatrix_is %s", cmds[c].name);
		for (size_t i = 0; i < cmds[c].noptions; i++)
			fish_option(cond, &cmds[c].options[i]);
		switch (arg_kind(&cmds[c])) {
		case ARG_NONE:
			break;
		case ARG_WORD:
			printf("complete -c wheelmatrix -n '%s 0' -a %s\n", cond, cmds[c].args);
			break;
		case ARG_COMMAND:
			printf("complete -c wheelmatrix -n '%s 0' -a '", cond);
			put_command_names(cmds, ncmds);
			puts("'");
			break;
		case ARG_SHELL:
			printf("complete -c wheelmatrix -n '%s 0' -a '", cond);
			put_words(shells);
			puts("'");
			break;
		case ARG_BACKEND:
			printf("complete -c wheelmatrix -n '%s 0' -a '(__wheelmatrix_ask --backends)'\n", cond);
			break;
		}
	}
}

/* ---- the command ---------------------------------------------------------- */

/*
 * The values `generate --stdout` takes for m: its CI files, patch:BACKEND for each patch it
 * writes, action:NAME for each local action of its workflow (.github/actions/NAME/action.yml).
 */
static int put_outputs(const struct wm_matrix *m, const struct wm_catalog *cat, const char *file,
	struct wm_error *err)
{
	struct wm_files files;
	const char *base;
	char *root = cli_matrix_root(file, &base), path[128];
	int ret = WM_ENOMEM;

	wm_files_init(&files);
	if (!root)
		return ret;
	if ((ret = wm_generate(&files, m, cat, base, err)) < 0)
		goto out;
	if (m->github.enabled)
		puts("github");
	if (m->gitlab.enabled)
		puts("gitlab");
	for (size_t i = 0; i < m->nbackends; i++) {
		snprintf(path, sizeof(path), WM_PATCH_PATH, m->backends[i]->id);
		for (size_t k = 0; k < files.n; k++)
			if (strcmp(files.items[k].path, path) == 0)
				printf("patch:%s\n", m->backends[i]->id);
	}
	for (size_t k = 0; k < files.n; k++) {
		size_t len;
		const char *name = wm_emit_github_local_name(files.items[k].path, &len);
		if (name)
			printf("action:%.*s\n", (int)len, name);
	}
out:
	wm_files_release(&files);
	free(root);
	return ret;
}

/* --backends and --outputs: what the scripts offer after `patch` and `generate --stdout`. */
static int matrix_words(struct cli *cli, struct cli_ctx *ctx, bool outputs)
{
	int ret = 0;
	if (outputs && (ret = put_outputs(ctx->m, ctx->cat, cli->file, &ctx->err)) < 0)
		cli_print_diags(&ctx->err);
	for (size_t i = 0; !outputs && i < ctx->m->nbackends; i++)
		puts(ctx->m->backends[i]->id);
	return cli_exit_code(ret);
}

/* The matrix is read for --backends and --outputs only; the scripts need none. */
int cmd_completion_prepare(struct cli *cli, unsigned *setup)
{
	const char *shell = cli->nargs ? cli->args[0] : NULL;
	struct stat st;

	if (cli->values[COMPLETION_BACKENDS] || cli->values[COMPLETION_OUTPUTS]) {
		const char *opt = cli->values[COMPLETION_BACKENDS] ? "backends" : "outputs";
		if (cli->values[COMPLETION_BACKENDS] && cli->values[COMPLETION_OUTPUTS]) {
			cli_error("'--backends' and '--outputs' print different lists: give one of them");
			return CLI_EXIT_USAGE;
		}
		if (shell) {
			cli_error("'--%s' prints the matrix's %s: it takes no shell", opt, opt);
			return CLI_EXIT_USAGE;
		}
		/* the scripts run this wherever the user is: the matrix is found as the other commands find it */
		if (!strchr(cli->file, '/') && strcmp(cli->file, "-") != 0 && lstat(cli->file, &st) != 0)
			cli_find_matrix(cli);
		return 0;
	}
	*setup = 0;
	return 0;
}

int cmd_completion(struct cli *cli, struct cli_ctx *ctx)
{
	const struct cli_command *cmds;
	const struct cli_option *globals;
	size_t ncmds, nglobals;
	const char *shell = cli->nargs ? cli->args[0] : NULL;

	if (cli->values[COMPLETION_BACKENDS] || cli->values[COMPLETION_OUTPUTS])
		return matrix_words(cli, ctx, cli->values[COMPLETION_OUTPUTS] != NULL);
	if (!shell) {
		cli_error("'completion' needs SHELL: bash, zsh or fish (usage: wheelmatrix completion [options] SHELL)");
		return CLI_EXIT_USAGE;
	}
	cmds = cli_commands(&ncmds);
	globals = cli_global_options(&nglobals);
	if (strcmp(shell, "bash") == 0) {
		bash_script(cmds, ncmds, globals, nglobals);
	} else if (strcmp(shell, "zsh") == 0) {
		zsh_script(cmds, ncmds, globals, nglobals);
	} else if (strcmp(shell, "fish") == 0) {
		fish_script(cmds, ncmds, globals, nglobals);
	} else {
		const char *hint = wm_text_suggest(shell, shells, 3);
		if (hint)
			cli_error("unknown shell '%s' (did you mean '%s'?)", shell, hint);
		else
			cli_error("unknown shell '%s': the scripts are for bash, zsh and fish", shell);
		return CLI_EXIT_USAGE;
	}
	return CLI_EXIT_OK;
}
