/*
 * peak.c — runs a command (stdin and stdout on /dev/null) and prints its peak resident set size in KiB.
 *
 * usage: peak [-e STATUS] COMMAND [ARG]...
 *
 * It fails unless the command exits with STATUS (default 0): -e 2 measures a refusal.
 *
 * A child's ru_maxrss also counts the pages of the process it was forked from, held until it runs
 * exec; started from this small program, that floor is some 1 MiB, not the 15 MiB of a Python parent.
 */
#define _DEFAULT_SOURCE  /* wait4 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct rusage ru;
	int status, null, want = 0;
	pid_t pid;

	if (argc > 2 && strcmp(argv[1], "-e") == 0) {
		want = atoi(argv[2]);
		argc -= 2;
		argv += 2;
	}
	if (argc < 2) {
		fprintf(stderr, "usage: peak [-e STATUS] COMMAND [ARG]...\n");
		return 2;
	}
	if ((pid = fork()) < 0) {
		perror("peak: fork");
		return 3;
	}
	if (pid == 0) {
		if ((null = open("/dev/null", O_RDWR)) >= 0) {
			dup2(null, 0);
			dup2(null, 1);
		}
		execvp(argv[1], argv + 1);
		perror(argv[1]);
		_exit(127);
	}
	if (wait4(pid, &status, 0, &ru) < 0) {
		perror("peak: wait4");
		return 3;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != want) {
		fprintf(stderr, "peak: '%s' failed\n", argv[1]);
		return 1;
	}
	printf("%ld\n", ru.ru_maxrss);
	return 0;
}
