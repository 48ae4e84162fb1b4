/*
 * cmd_build.c — `wheelmatrix build`: a local build of one variant.  The backend's patch is applied,
 * `maturin build` runs, and the patch is reverted whatever happens to maturin: a failure, or an
 * interruption (SIGINT, SIGTERM, SIGHUP), which is passed on to maturin first.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "cmd.h"

static const int forwarded[] = { SIGINT, SIGTERM, SIGHUP };

static volatile sig_atomic_t got_signal;  /* the last one received, 0 for none */
static volatile sig_atomic_t child_pid;   /* maturin while it runs, else 0 */

/*
 * Passes the signal on to maturin and remembers it: the patch is reverted
 * once maturin has gone.  A signal from the terminal reaches maturin too
 * (it is in our process group); a second one is harmless.
 */
static void on_signal(int sig)
{
	int saved = errno;
	got_signal = sig;
	if (child_pid > 0)
		kill((pid_t)child_pid, sig);
	errno = saved;
}

static bool executable(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

/* `name` as execvp would find it (malloc'd), or NULL. */
static char *find_program(const char *name)
{
	const char *path = getenv("PATH"), *p, *end;

	if (strchr(name, '/'))
		return executable(name) ? strdup(name) : NULL;
	for (p = path && *path ? path : "/usr/bin:/bin"; ; p = end + 1) {
		size_t len;
		char *full;
		end = strchr(p, ':');
		len = end ? (size_t)(end - p) : strlen(p);
		/* an empty entry is the current directory */
		if ((full = malloc(len + strlen(name) + 3)) == NULL)
			return NULL;
		sprintf(full, "%.*s/%s", (int)(len ? len : 1), len ? p : ".", name);
		if (executable(full))
			return full;
		free(full);
		if (!end)
			return NULL;
	}
}

/* maturin: $MATURIN when set, else the first on PATH; NULL, said why, when there is none. */
static char *find_maturin(void)
{
	const char *env = getenv("MATURIN");
	char *found;

	if (env && *env) {
		if (!(found = find_program(env)))
			cli_error("MATURIN is '%s', which is not an executable file%s", env,
				strchr(env, '/') ? "" : " on PATH");
		return found;
	}
	if (!(found = find_program("maturin")))
		cli_error("maturin is not on PATH: install it ('pip install maturin') or set MATURIN to its path");
	return found;
}

/* The directory maturin runs in: pyproject.toml's, as in CI (malloc'd). */
static char *build_dir(const char *root, const char *pyproject)
{
	const char *slash = strrchr(pyproject, '/');
	size_t len = slash ? (size_t)(slash - pyproject) : 0;
	char *dir = malloc(strlen(root) + len + 2);
	if (dir)
		sprintf(dir, "%s%s%.*s", root, len ? "/" : "", (int)len, pyproject);
	return dir;
}

/*
 * Runs `maturin build ARGS...` in `dir` and waits for it: its exit status,
 * 128 + the signal that ended it, or -1 when it could not be started.
 */
static int run_maturin(const char *maturin, const char *dir, const char *const *args, size_t nargs)
{
	struct sigaction sa, prev[sizeof(forwarded) / sizeof(forwarded[0])];
	bool handled[sizeof(forwarded) / sizeof(forwarded[0])];
	const char **argv = calloc(nargs + 3, sizeof(*argv));
	sigset_t block, old;
	pid_t pid;
	int status = 0, ret;

	if (!argv) {
		cli_error("out of memory");
		return -1;
	}
	argv[0] = maturin;
	argv[1] = "build";
	memcpy(argv + 2, args, nargs * sizeof(*args));
	/* the handlers go in before maturin starts, the signals held until its pid is known */
	sigemptyset(&block);
	for (size_t i = 0; i < sizeof(forwarded) / sizeof(forwarded[0]); i++)
		sigaddset(&block, forwarded[i]);
	sigprocmask(SIG_BLOCK, &block, &old);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(forwarded) / sizeof(forwarded[0]); i++) {
		sigaction(forwarded[i], NULL, &prev[i]);
		/* one ignored where we were started (nohup, a background job) stays ignored, for maturin too */
		handled[i] = prev[i].sa_handler != SIG_IGN;
		if (handled[i])
			sigaction(forwarded[i], &sa, NULL);
	}
	fflush(NULL);
	if ((pid = fork()) == 0) {
		for (size_t i = 0; i < sizeof(forwarded) / sizeof(forwarded[0]); i++)
			if (handled[i])
				signal(forwarded[i], SIG_DFL);
		sigprocmask(SIG_SETMASK, &old, NULL);
		if (chdir(dir) < 0) {
			cli_error("cannot change to directory '%s': %s", dir, strerror(errno));
			_exit(127);
		}
		execv(maturin, (char *const *)argv);
		cli_error("cannot run '%s': %s", maturin, strerror(errno));
		_exit(127);
	}
	if (pid < 0) {
		cli_error("cannot start maturin: %s", strerror(errno));
		sigprocmask(SIG_SETMASK, &old, NULL);
		free(argv);
		return -1;
	}
	child_pid = pid;
	sigprocmask(SIG_SETMASK, &old, NULL);
	while ((ret = waitpid(pid, &status, 0)) < 0 && errno == EINTR)
		;
	child_pid = 0;
	free(argv);
	/* the handlers stay: a second interruption must not cut the revert short */
	if (ret < 0) {
		cli_error("cannot wait for maturin: %s", strerror(errno));
		return -1;
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : WIFSIGNALED(status) ? 128 + WTERMSIG(status) : 1;
}

static void report_applied(const struct wm_variant_build *vb, const char *backend)
{
	switch (vb->done) {
	case WM_VARIANT_DONE:
		cli_note("applied " WM_PATCH_PATH " to %s for the build", backend, vb->path);
		break;
	case WM_VARIANT_ALREADY:
		cli_note("%s already has " WM_PATCH_PATH " applied: building it so, and leaving it so",
			vb->path, backend);
		break;
	case WM_VARIANT_UNPATCHED:
		cli_note("backend '%s' builds %s as it is: it has no patch", backend, vb->path);
		break;
	}
}

int cmd_build_prepare(struct cli *cli, unsigned *setup)
{
	char *maturin;
	(void)setup;
	if (strcmp(cli->file, "-") == 0) {
		cli_error("build patches beside the matrix file: give its path, not '-'");
		return CLI_EXIT_USAGE;
	}
	/* before anything changes: a build that cannot start leaves the tree alone (found again to run it) */
	if (!(maturin = find_maturin()))
		return CLI_EXIT_ENV;
	free(maturin);
	return 0;
}

int cmd_build(struct cli *cli, struct cli_ctx *ctx)
{
	const char *backend = cli->args[0], *root = ctx->root;
	struct wm_variant_build vb = { 0 };
	struct wm_error *err = &ctx->err;
	const struct wm_matrix *m = ctx->m;
	char *dir = NULL, *maturin;
	bool patched;
	int ret, status = CLI_EXIT_OK;

	if (!(maturin = find_maturin()))
		return CLI_EXIT_ENV;
	if ((ret = wm_variant_build_apply(&vb, m, root, backend, err)) < 0) {
		cli_print_diags(err);
		goto out;
	}
	if (!(dir = build_dir(root, m->pyproject))) {
		cli_error("out of memory");
		status = CLI_EXIT_ENV;
	}
	if (err->ndiags && cli->verbosity >= 0)
		cli_print_diags(err);
	wm_error_release(err);
	wm_error_init(err);
	if (cli->verbosity >= 0)
		report_applied(&vb, backend);
	if (dir && (status = run_maturin(maturin, dir, cli->args + 1, cli->nargs - 1)) < 0)
		status = CLI_EXIT_ENV;

	patched = vb.done == WM_VARIANT_DONE;
	if ((ret = wm_variant_build_revert(&vb, err)) < 0)
		cli_print_diags(err);
	else if (patched && cli->verbosity >= 0)
		cli_note("reverted " WM_PATCH_PATH " from %s", backend, vb.path);
	if (got_signal)
		cli_note("interrupted by %s", got_signal == SIGINT ? "SIGINT" : got_signal == SIGTERM ? "SIGTERM" : "SIGHUP");
out:
	free(maturin);
	free(dir);
	wm_variant_build_release(&vb);
	if (got_signal)
		return 128 + got_signal;
	/* maturin's failure first; then a revert that could not be done */
	if (status != CLI_EXIT_OK)
		return status;
	return ret < 0 ? cli_exit_code(ret) : CLI_EXIT_OK;
}
