/*
 * tests/test_report.c — `wavelab report`: the HTML page is loaded by a real
 * browser (headless Chromium from Debian), which must render every section,
 * and a screenshot of it must show a picture, not a blank page.  The page is
 * then laid out at two window widths (480 and 1400 px) with a long case path,
 * one workgroup and the device check filled in, and must show everything it
 * holds: no text cut off its picture or box, no content wider than its box
 * without a scroll bar, and the title and the device check's lines whole,
 * wrapped rather than scrolled out of sight (tsup_layout_problems).
 *
 * The DOM comes from `chromium --dump-dom` (the page as the browser parsed
 * and built it); the screenshot is a PNG decoded by tsup_png_colours, which
 * counts its distinct colours and its share of non-white pixels.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/support/tsup.h"

static const char *const sections[] = {"summary", "source", "listing", "lds", "l2", "launch", "timeline", "check"};
/* sections whose content is a picture */
static const char *const pictured[] = {"listing", "lds", "l2", "launch", "timeline"};

/* The text of <section id="id">...</section> in a DOM dump (NULL when absent); caller frees. */
static char *section_of(const char *dom, const char *id)
{
    char open[64];
    snprintf(open, sizeof open, "<section id=\"%s\">", id);
    const char *a = strstr(dom, open);
    if (!a)
        return NULL;
    const char *b = strstr(a, "</section>");
    ck_assert_ptr_nonnull(b);
    return strndup(a, (size_t)(b - a));
}

START_TEST(test_report_chromium_renders_every_section_and_a_nonblank_screenshot)
{
    char *dir = tsup_temp_dir();
    ck_assert_ptr_nonnull(dir);
    /* article 002's fp16 kernel has LDS traffic, so every picture has something to show */
    char args[4096], *out = NULL;
    snprintf(args, sizeof args,
             "report '%s/kernels/002_lds_fp16/neighborhood_fp16_split.json' --machine gcn_vega64 -o '%s/r.html'",
             tsup_root(), dir);
    int rc = tsup_run_cli(args, &out);
    ck_assert_msg(rc == 0, "%s", out);
    free(out);
    char path[4096];
    snprintf(path, sizeof path, "%s/r.html", dir);
    char *page = tsup_read_file(path, NULL);
    /* self-contained: nothing to fetch */
    ck_assert_msg(strstr(page, "src=") == NULL && strstr(page, "href=\"http") == NULL &&
                      strstr(page, "url(") == NULL && strstr(page, "@import") == NULL,
                  "the page refers to something outside itself");
    free(page);

    char png[4096];
    snprintf(png, sizeof png, "%s/shot.png", dir);
    char *dom = tsup_chromium_dom(path, 1200, 2400, dir, png);
    for (size_t i = 0; i < sizeof sections / sizeof sections[0]; i++) {
        char *s = section_of(dom, sections[i]);
        ck_assert_msg(s != NULL, "section %s missing from the rendered page", sections[i]);
        ck_assert_msg(strstr(s, "<h2>") != NULL, "section %s has no heading", sections[i]);
        free(s);
    }
    for (size_t i = 0; i < sizeof pictured / sizeof pictured[0]; i++) {
        char *s = section_of(dom, pictured[i]);
        ck_assert_msg(strstr(s, "<svg") && strstr(s, "<rect"), "section %s has no picture", pictured[i]);
        free(s);
    }
    char *summary = section_of(dom, "summary");
    ck_assert_msg(strstr(summary, "PASS") != NULL, "summary has no expectation result");
    free(summary);
    free(dom);

    double ink = 0;
    uint32_t w = 0, h = 0;
    size_t colours = tsup_png_colours(png, &ink, &w, &h);
    ck_assert_uint_eq(w, 1200);
    ck_assert_uint_eq(h, 2400);
    /* a blank or failed page is one or two colours; text, bars and the curve give many */
    ck_assert_msg(colours > 50, "screenshot has only %zu colours", colours);
    ck_assert_msg(ink > 0.03, "screenshot is %.1f%% ink", 100 * ink);
    tsup_remove_tree(dir);
    free(dir);
}
END_TEST

/* The report of `case_path` (with the device check: the section shows check's own lines), laid out at 480 and
 * 1400 px: every problem tsup_layout_problems finds fails the test, and each width's screenshot is not blank. */
static void check_report_layout(const char *label, const char *case_path)
{
    char *dir = tsup_temp_dir();
    ck_assert_ptr_nonnull(dir);
    char args[8192], path[4200], *out = NULL;
    snprintf(path, sizeof path, "%s/r.html", dir);
    snprintf(args, sizeof args, "report '%s' --backend vulkan -o '%s'", case_path, path);
    int rc = tsup_run_cli(args, &out);
    ck_assert_msg(rc == 0, "report %s: exit %d\n%s", case_path, rc, out);
    free(out);
    char *page = tsup_read_file(path, NULL);
    /* the device check's line says what check's exit code means (wavelab --help): 3 is a skip, not a failure */
    const char *verdict = strstr(page, "wavelab check: exit ");
    ck_assert_msg(verdict != NULL, "no device check in the report");
    int check_rc = atoi(verdict + strlen("wavelab check: exit "));
    static const char *const cls[] = {"<p class=\"pass\">", "<p class=\"fail\">", "<p class=\"fail\">",
                                      "<p class=\"skip\">"};
    static const char *const says[] = {"(the device agrees)", "(mismatch)", "(bad input)",
                                       "(the device cannot run this case)"};
    ck_assert_msg(check_rc >= 0 && check_rc <= 3, "check exit %d", check_rc);
    ck_assert_msg(strncmp(verdict - strlen(cls[check_rc]), cls[check_rc], strlen(cls[check_rc])) == 0 &&
                      strncmp(strchr(verdict, '('), says[check_rc], strlen(says[check_rc])) == 0,
                  "check's exit %d is shown as:\n%.200s", check_rc, verdict - strlen(cls[check_rc]));
    char *report = tsup_layout_at_two_widths(dir, page, 2000, "h1, pre.check", label);
    ck_assert_msg(report[0] == 0, "the report of %s (%s): layout problems\n%s", label, case_path, report);
    free(report);
    free(page);
    tsup_remove_tree(dir);
    free(dir);
}

START_TEST(test_report_layout_long_path_one_workgroup)
{
    char *dir = tsup_temp_dir();
    ck_assert_ptr_nonnull(dir);
    free(tsup_write_file(dir, "a_kernel_with_a_name_long_enough_to_cross_a_phone_screen_and_then_some.comp",
                         "#version 450\nlayout(local_size_x = 4) in;\n"
                         "layout(set = 0, binding = 0) buffer B { uint v[]; };\n"
                         "void main() { v[gl_GlobalInvocationID.x] += 1u; }\n"));
    char *c = tsup_write_file(dir, "a_case_whose_file_name_is_much_wider_than_a_narrow_window_can_show.json",
                              "{\"kernel\": \"a_kernel_with_a_name_long_enough_to_cross_a_phone_screen_and_then_some."
                              "comp\", \"groups\": [1, 1, 1], \"bindings\": [{\"set\": 0, \"binding\": 0, "
                              "\"type\": \"u32\", \"data\": [1, 2, 3, 4]}], \"expect\": [{\"set\": 0, "
                              "\"binding\": 0, \"data\": [2, 3, 4, 5]}]}");
    ck_assert_ptr_nonnull(c);
    check_report_layout("a long path, one workgroup", c);
    free(c);
    tsup_remove_tree(dir);
    free(dir);
}
END_TEST

START_TEST(test_report_layout_fp16_lds)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/kernels/002_lds_fp16/neighborhood_fp16_split.json", tsup_root());
    check_report_layout("article 002's fp16 kernel", path);
}
END_TEST

START_TEST(test_report_layout_pipeline_of_passes)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/kernels/001_compaction/pipeline.json", tsup_root());
    check_report_layout("three passes", path);
}
END_TEST

START_TEST(test_report_bad_arguments_exit_2)
{
    char *out = NULL;
    ck_assert_int_eq(tsup_run_cli("report", &out), 2);
    free(out);
    char args[4096];
    snprintf(args, sizeof args, "report '%s/kernels/002_lds_fp16/neighborhood_fp16_split.json' --backend metal -o x",
             tsup_root());
    ck_assert_int_eq(tsup_run_cli(args, &out), 2);
    ck_assert_ptr_nonnull(strstr(out, "--backend"));
    free(out);
}
END_TEST

static Suite *report_suite(void)
{
    Suite *s = suite_create("report");
    TCase *plain = tcase_create("report");
    tcase_add_test(plain, test_report_bad_arguments_exit_2);
    suite_add_tcase(s, plain);
    TCase *t = tsup_chromium_tcase("chromium");
    tcase_set_timeout(t, 600);
    tcase_add_test(t, test_report_chromium_renders_every_section_and_a_nonblank_screenshot);
    tcase_add_test(t, test_report_layout_long_path_one_workgroup);
    tcase_add_test(t, test_report_layout_fp16_lds);
    tcase_add_test(t, test_report_layout_pipeline_of_passes);
    suite_add_tcase(s, t);
    return s;
}

int main(void) { return tsup_run_suite(report_suite(), "test_report"); }
