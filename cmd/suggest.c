/* suggest.c — "did you mean" for command and option names: the closest candidate by edit distance. */
#include <string.h>
#include "cmd.h"

#define MAX_WORD 64

/* Optimal string alignment distance: insertions, deletions, substitutions and transpositions. */
static size_t distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	size_t d[MAX_WORD + 1][MAX_WORD + 1];
	if (la > MAX_WORD || lb > MAX_WORD)
		return (size_t)-1;
	for (size_t i = 0; i <= la; i++)
		d[i][0] = i;
	for (size_t j = 0; j <= lb; j++)
		d[0][j] = j;
	for (size_t i = 1; i <= la; i++) {
		for (size_t j = 1; j <= lb; j++) {
			size_t v = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
			if (d[i - 1][j] + 1 < v)
				v = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < v)
				v = d[i][j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < v)
				v = d[i - 2][j - 2] + 1;
			d[i][j] = v;
		}
	}
	return d[la][lb];
}

const char *cli_suggest(const char *word, const char *const *candidates, size_t n)
{
	const char *best = NULL;
	size_t best_d = (size_t)-1, len = strlen(word);
	/* a third of the word, at least one edit and at most three */
	size_t limit = len / 3 < 1 ? 1 : len / 3 > 3 ? 3 : len / 3;
	for (size_t i = 0; i < n; i++) {
		size_t d = distance(word, candidates[i]);
		if (d < best_d) {
			best_d = d;
			best = candidates[i];
		}
	}
	return best && best_d <= limit && best_d < len ? best : NULL;
}
