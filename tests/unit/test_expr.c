/* test_expr.c — unit tests of expr.c: which contexts a GitHub expression reads, however it is written. */
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

/* A tag push and a release, as check evaluates a publish step's conditions on them. */
static const struct wm_expr_fact tag[] = {
	{ "github.event_name", "push", false }, { "github.ref", "refs/tags/", true }, { "github.ref_type", "tag", false },
};
static const struct wm_expr_fact release[] = {
	{ "github.event_name", "release", false }, { "github.ref", "refs/tags/", true },
};

static const char *on_tag(const char *cond)
{
	static const char *const names[] = { "false", "true", "unknown" };
	return names[wm_expr_holds(cond, tag, WM_ARRAY_SIZE(tag))];
}

static const char *on_release(const char *cond)
{
	static const char *const names[] = { "false", "true", "unknown" };
	return names[wm_expr_holds(cond, release, WM_ARRAY_SIZE(release))];
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

	/* conditions on a tag push: what maturin generate-ci and real projects write */
	CHECK_STR(on_tag("startsWith(github.ref, 'refs/tags/')"), "true");
	CHECK_STR(on_tag("${{ startsWith(github.ref, 'refs/tags/') }}"), "true");
	CHECK_STR(on_tag("${{ startsWith(github.ref, 'refs/tags/') || github.event_name == 'workflow_dispatch' }}"), "true");
	CHECK_STR(on_tag("github.event_name == 'workflow_dispatch'"), "false");
	CHECK_STR(on_tag("${{ github.event_name == 'workflow_dispatch' }}"), "false");
	CHECK_STR(on_tag("github.event_name == 'push' && contains(github.ref, 'refs/tags')"), "true");
	CHECK_STR(on_tag("GITHUB.EVENT_NAME == 'PUSH'"), "true");               /* names and strings: any case */
	CHECK_STR(on_tag("github['event_name'] == 'push'"), "true");
	CHECK_STR(on_tag("github.ref == 'refs/heads/main'"), "false");
	CHECK_STR(on_tag("github.ref != 'refs/heads/main'"), "true");
	CHECK_STR(on_tag("github.ref == 'refs/tags/v1.0'"), "unknown");       /* which tag is not known */
	CHECK_STR(on_tag("startsWith(github.ref, 'refs/tags/v')"), "unknown");
	CHECK_STR(on_tag("startsWith(github.ref, 'refs/heads/')"), "false");
	CHECK_STR(on_tag("github.ref_type == 'tag'"), "true");
	CHECK_STR(on_tag("!startsWith(github.ref, 'refs/tags/')"), "false");
	CHECK_STR(on_tag("!(github.event_name == 'pull_request')"), "true");
	CHECK_STR(on_tag("!!startsWith(github.ref, 'refs/tags/')"), "true");
	CHECK_STR(on_tag("! !false"), "false");
	CHECK_STR(on_tag("github.event_name ! = 'push'"), "unknown");       /* != is one operator */
	CHECK_STR(on_tag("github.repository == 'owner/name' && startsWith(github.ref, 'refs/tags/')"), "unknown");
	CHECK_STR(on_tag("github.repository == 'owner/name' && github.event_name == 'schedule'"), "false");
	CHECK_STR(on_tag("inputs.publish || startsWith(github.ref, 'refs/tags/')"), "true");
	CHECK_STR(on_tag("inputs.publish"), "unknown");
	CHECK_STR(on_tag("success() && github.event_name != 'pull_request'"), "true");
	CHECK_STR(on_tag("always()"), "true");
	CHECK_STR(on_tag("failure()"), "false");
	CHECK_STR(on_tag("!cancelled() && github.event_name == 'release'"), "false");
	CHECK_STR(on_tag("true"), "true");
	CHECK_STR(on_tag("false"), "false");
	CHECK_STR(on_tag("github.event_name == 'push' && 'yes' || 'no'"), "true");
	CHECK_STR(on_tag("(github.event_name == 'release' && 'yes' || '') == 'yes'"), "false");
	CHECK_STR(on_tag("1 < 2 && null == 0 && true == 1 && '' == 0"), "true");
	CHECK_STR(on_tag("fromJSON('true')"), "unknown");
	CHECK_STR(on_tag("endsWith(github.ref, '-rc')"), "unknown");
	/* what is not understood, or text around an expression (a non-empty string to GitHub) */
	CHECK_STR(on_tag("${{ false }} && true"), "unknown");
	CHECK_STR(on_tag("github.event_name = 'push'"), "unknown");
	CHECK_STR(on_tag("evil(github.ref)"), "unknown");
	CHECK_STR(on_tag("startsWith(github.ref, 'refs/tags/'"), "unknown");
	CHECK_STR(on_tag("${{ github.event_name == 'push'"), "unknown");
	CHECK_STR(on_tag("'unterminated"), "unknown");
	CHECK_STR(on_tag(""), "unknown");
	/* deep nesting is bounded, not a crash */
	{
		char s[4096];
		size_t n = 0;
		for (; n < 1500; n++)
			s[n] = '(';
		s[n] = '\0';
		CHECK_STR(on_tag(s), "unknown");
		memset(s, '!', 3000);
		strcpy(s + 3000, "false");
		CHECK_STR(on_tag(s), "unknown");
	}
	/* on a release */
	CHECK_STR(on_release("github.event_name == 'release'"), "true");
	CHECK_STR(on_release("startsWith(github.ref, 'refs/tags/')"), "true");
	CHECK_STR(on_release("github.event_name == 'push' && startsWith(github.ref, 'refs/tags/')"), "false");
	CHECK_STR(on_release("github.event.action == 'published'"), "unknown");
	return harness_done();
}
