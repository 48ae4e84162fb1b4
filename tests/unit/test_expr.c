/* test_expr.c — unit tests of expr.c: which contexts a GitHub expression reads, however it is written (test_eval.c: what it evaluates to). */
#include <string.h>
#include "harness.h"
#include "model/expr.h"

/* The part of `s` the first refused expression is refused at, or NULL when every expression is allowed. */
static const char *refused(const char *s)
{
	static char part[128];
	struct wm_expr_fault f;
	if (wm_expr_check(s, wm_expr_setup_allowed, wm_expr_setup_nallowed, &f))
		return NULL;
	snprintf(part, sizeof(part), "%.*s", (int)f.len, f.at);
	return part;
}

int main(void)
{
	/* what a setup step may read */
	CHECK_STR(refused("echo plain text $HOME"), NULL);
	CHECK_STR(refused("echo ${{ runner.os }} ${{github.sha}}"), NULL);
	CHECK_STR(refused("${{ RUNNER.OS }}-${{ Runner.Arch }}"), NULL);
	CHECK_STR(refused("${{ secrets.PYPI_TOKEN }} ${{ vars.cuda-version }}"), NULL);
	CHECK_STR(refused("${{ format('{0}}}-{1}', runner.os, hashFiles('**/Cargo.lock')) }}"), NULL);
	CHECK_STR(refused("${{ runner.os == 'Linux' && 'yes' || 'no' }}"), NULL);
	CHECK_STR(refused("${{ fromJSON('{\"a\": [1, 2.5e3]}').a[0] }}"), NULL);
	CHECK_STR(refused("${{ 'it''s }} not the end' }}"), NULL);
	CHECK_STR(refused("${{ true }} ${{ null }} ${{ 0x1F }}"), NULL);
	/* what it may not, and where each is refused */
	CHECK_STR(refused("${{ github.head_ref }}"), "github.head_ref");
	CHECK_STR(refused("${{ GITHUB.EVENT.issue.title }}"), "GITHUB.EVENT.issue.title");
	CHECK_STR(refused("${{ Github.Head_Ref }}"), "Github.Head_Ref");
	CHECK_STR(refused("${{ github['event']['issue']['title'] }}"), "github");
	CHECK_STR(refused("${{ github.event['issue'] }}"), "github.event");
	CHECK_STR(refused("${{ runner['os'] }}"), "runner");          /* an index on an allowed path too */
	CHECK_STR(refused("${{ toJSON(github) }}"), "github");
	CHECK_STR(refused("${{ fromJSON(toJSON(github)).event.issue.title }}"), "github");
	CHECK_STR(refused("${{ format('}}', github.head_ref) }}"), "github.head_ref");
	CHECK_STR(refused("${{ github . head_ref }}"), "github . head_ref");
	CHECK_STR(refused("${{ github.event.commits.*.message }}"), "github.event.commits.*.message");
	CHECK_STR(refused("${{ secrets }}"), "secrets");
	CHECK_STR(refused("${{ secrets.* }}"), "secrets.*");
	CHECK_STR(refused("${{ secrets.a.b }}"), "secrets.a.b");
	CHECK_STR(refused("${{ env.TITLE }}"), "env.TITLE");
	CHECK_STR(refused("${{ inputs.ref }}"), "inputs.ref");
	CHECK_STR(refused("${{ runner.os }} then ${{ steps.a.outputs.b }}"), "steps.a.outputs.b");
	CHECK_STR(refused("${{ evil(runner.os) }}"), "evil");
	CHECK_STR(refused("${{ runner.os "), "${{ runner.os ");
	CHECK_STR(refused("${{ 'unterminated }}"), "'unterminated }}");
	CHECK_STR(refused("${{ runner.os; rm -rf / }}"), ";");
	/* a path longer than the reader's buffer is refused, not cut to an allowed one */
	{
		char s[600] = "${{ secrets.";
		memset(s + strlen(s), 'a', 300);
		strcat(s, ".b }}");
		CHECK(refused(s) != NULL);
	}

	return harness_done();
}
